"""The search index of a conversation's messages: FTS5 words, trigrams and CJK bigrams.

The trigram table holds no copy of the text (contentless, deletable): search.py re-checks its candidates
against messages_fts, and it leaves CJK runs out (cjk.without_cjk), which the bigram table serves.

Written with the save (bulk import, the CLI), or after the reply (the host: `Archive.defer_index`). A
deferred save writes the document and the message rows, records the conversation in `index_pending` in
the same transaction, and returns; `index_pending()` writes the index later, one transaction per
conversation: the host does it after its reply while no request waits, and every search does it first.
The pending row lives in the archive, so a host killed before indexing loses nothing: the next search,
in any process, indexes the conversation from its stored document.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from ..cjk import has_cjk, index_text, without_cjk
from ..runtime.utf8 import without_utf8_copy
from ..text import message_text
from .db import Connection

if TYPE_CHECKING:
    from ..model import Conversation

# (message rowid, the title on the first message else None, body)
Row = tuple[int, str | None, str]


class Pending(NamedTuple):
    """What a deferred save leaves for its index, valid while the stored digest is still `digest`: the
    conversation and its message rowids, so the rows are computed after the reply, not on the request path.
    `conv` is None once let go (see ArchiveWrites._hold_pending): the indexer reads the stored document."""

    digest: str
    conv: Conversation | None
    rowids: Sequence[int | None]  # per message (None: its search rows are written; see Archive._replace_rows)


def storable(text: str) -> str:
    """Text SQLite can store: readers already replace lone surrogates; this keeps a missed one from failing a save."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def searchable_texts(conv: Conversation) -> list[tuple[str | None, str]]:
    """What each message's search rows hold: (the title on the first message else None, body)."""
    title = storable(conv.title or "")
    return [
        (title if seq == 0 else None, storable(message_text(msg))) for seq, msg in enumerate(conv.messages)
    ]


def rows_for(conv: Conversation, rowids: Sequence[int | None]) -> list[Row]:
    """The search rows of `conv`'s messages; `rowids` per message (None: a message whose rows are written)."""
    return [
        (rowid, title, body)
        for rowid, (title, body) in zip(rowids, searchable_texts(conv))
        if rowid is not None
    ]


# The text write() inserts per statement, in characters: the bigram text of Chinese is about 3x the
# text, and SQLite's binding attaches a UTF-8 copy of what it reads (utf8.py); a 5 MB Chinese
# conversation's index, made at once, was 24 MB of a host's peak.
WRITE_CHARS = 1 << 18


def write(c: Connection, rows: list[Row]) -> None:
    """Insert the index rows of one conversation (inside the caller's transaction), about WRITE_CHARS
    characters of text at a time."""
    for chunk in chunks(rows):
        _write_rows(c, chunk)


def chunks(rows: list[Row]) -> Iterator[list[Row]]:
    """`rows` in runs of about WRITE_CHARS characters of text."""
    start = chars = 0
    for end, (_, title, body) in enumerate(rows, 1):
        chars += len(body) + len(title or "")
        if chars >= WRITE_CHARS or end == len(rows):
            yield rows[start:end]
            start, chars = end, 0


def _write_rows(c: Connection, rows: list[Row]) -> None:
    # (the message texts are the ones a host keeps: SQLite is given copies to attach its UTF-8 to)
    c.executemany(
        "INSERT INTO messages_fts (rowid, title, body) VALUES (?,?,?)",
        [(rowid, without_utf8_copy(title or ""), without_utf8_copy(body)) for rowid, title, body in rows],
    )
    searchable = _searchable(rows)
    c.executemany(
        "INSERT INTO messages_tri (rowid, body) VALUES (?,?)",
        [(rowid, without_utf8_copy(without_cjk(text))) for rowid, text in searchable],
    )
    c.executemany(
        "INSERT INTO messages_cjk (rowid, body) VALUES (?,?)",
        [(rowid, index_text(text)) for rowid, text in searchable if has_cjk(text)],
    )


# One statement per table for many rows: SQLite reads the rows from a JSON array and does the whole
# insert in C, without the GIL (bulk_index.py runs it on a worker thread). The same texts as write().
# A row is [rowid, title or null, body, the trigram text when it has CJK]; a key [rowid, text key].
_BULK_FTS = (
    "INSERT INTO messages_fts (rowid, title, body)"
    " SELECT value->>0, coalesce(value->>1, ''), value->>2 FROM json_each(?)"
)
# (the keys go in their own small array: each statement over the rows parses all of their text again)
# a long text's first message, in the order saved, owns its trigram rows unless the archive has an owner
_BULK_OWNERS = (
    "INSERT OR IGNORE INTO tri_owner (rowid, text_key) SELECT value->>0, value->>1 FROM json_each(?)"
)
_BULK_SAME = (
    "INSERT INTO tri_same (rowid, source) SELECT value->>0, o.rowid FROM json_each(?)"
    " JOIN tri_owner o ON o.text_key = value->>1 WHERE o.rowid <> value->>0"
)
# the trigram text, else the title, a newline and the body; none for a message that repeats another
_BULK_TRI = (
    "INSERT INTO messages_tri (rowid, body) SELECT value->>0, coalesce(value->>3,"
    " CASE WHEN value->>1 IS NULL THEN value->>2 ELSE (value->>1) || char(10) || (value->>2) END)"
    " FROM json_each(?) WHERE NOT EXISTS (SELECT 1 FROM tri_same WHERE tri_same.rowid = value->>0)"
)
_BULK_CJK = (
    "INSERT INTO messages_cjk (rowid, body) SELECT value->>0, value->>1 FROM json_each(?)"  # [rowid, bigrams]
)


# A message's trigram text at least this long is written once for all the messages that hold it word for
# word, in its conversation or any other (`tri_owner` keys it to the message whose rows it is, `tri_same`
# names that message for each other one): ChatGPT quotes an uploaded file in full each time it reads it
# again, people paste the same file or notes into several chats, and custom instructions open every chat
# made after they were set. Shorter repeats ("ok", "continue") are not worth a row and a join.
SAME_TEXT_MIN_CHARS = 1024


def text_key(text: str) -> str:
    """What names a trigram text in `tri_owner`: 128 bits of BLAKE2b (a collision would only hide a match:
    the search re-checks each candidate against its own text)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class Texts(NamedTuple):
    """A conversation's index text as JSON, made before its messages have rowids (an import makes it
    while the archive is busy): per message the items `"title" or null, "body"` (and its trigram text
    when it has CJK), the CJK bigram text (None without CJK) and the key of a long trigram text (see
    SAME_TEXT_MIN_CHARS, else None); `chars`: how much text they index."""

    rows: list[str]
    cjk: list[str | None]
    keys: list[str | None]
    chars: int


def texts_for(conv: Conversation) -> Texts:
    dumps = json_text
    rows: list[str] = []
    cjk: list[str | None] = []
    keys: list[str | None] = []
    chars = 0
    for title, body in searchable_texts(conv):
        text = body if title is None else f"{title}\n{body}"
        tri = without_cjk(text) if has_cjk(text) else None
        trigram_text = text if tri is None else tri
        # (the first message carries the title: its text is the conversation's own)
        long = title is None and len(trigram_text) >= SAME_TEXT_MIN_CHARS
        keys.append(text_key(trigram_text) if long else None)
        rows.append(dumps([title, body] if tri is None else [title, body, tri])[1:-1])
        cjk.append(None if tri is None else dumps(index_text(text)))
        chars += len(body) + len(title or "")
    return Texts(rows, cjk, keys, chars)


def json_text(value: object) -> str:
    """JSON for SQLite's json_each: msgspec writes it 2-3x faster than json (the text is valid UTF-8: storable)."""
    return msgspec.json.encode(value).decode("utf-8")


class Bulk(NamedTuple):
    """One conversation's index rows, and the keys of its long trigram texts, as JSON array items (no
    brackets) for write_many."""

    rows: str
    cjk: str
    keys: str
    chars: int


def bulk_rows(rowids: Sequence[int | None], texts: Texts) -> Bulk:
    """`texts` as rows for write_many; `rowids` per message (None: a message whose rows are written)."""
    return Bulk(
        ",".join(f"[{rowid},{item}]" for rowid, item in zip(rowids, texts.rows) if rowid is not None),
        ",".join(
            f"[{rowid},{item}]"
            for rowid, item in zip(rowids, texts.cjk)
            if item is not None and rowid is not None
        ),
        ",".join(
            f'[{rowid},"{key}"]'
            for rowid, key in zip(rowids, texts.keys)
            if key is not None and rowid is not None
        ),
        texts.chars,
    )


def write_many(c: Connection, items: list[Bulk]) -> None:
    """Insert the index rows of many conversations (inside the caller's transaction), one statement per
    table: a bulk import's chunk, so FTS5 writes one segment per table for it instead of one per save.
    Empties `items` once their text is in the statements' arguments (a chunk's text is held once less)."""
    rows = "[" + ",".join(item.rows for item in items if item.rows) + "]"
    cjk = "[" + ",".join(item.cjk for item in items if item.cjk) + "]"
    keys = "[" + ",".join(item.keys for item in items if item.keys) + "]"
    items.clear()
    c.execute(_BULK_FTS, (rows,))
    if keys != "[]":  # (owners first: the trigram rows are the owners' and those of texts without a key)
        c.execute(_BULK_OWNERS, (keys,))
        c.execute(_BULK_SAME, (keys,))
    c.execute(_BULK_TRI, (rows,))
    c.execute(_BULK_CJK, (cjk,))


def _searchable(rows: list[Row]) -> list[tuple[int, str]]:
    """What the trigram and CJK tables hold: the title (first message) and the body."""
    return [(rowid, body if title is None else f"{title}\n{body}") for rowid, title, body in rows]


def delete(c: Connection, rowids: list[int]) -> None:
    """The index rows of messages `rowids`. (The ids go in as one JSON array: a statement with a mark per id
    would be prepared anew, and kept by the connection, for every count of ids.)"""
    if not rowids:
        return
    ids = json_text(rowids)
    # a text whose owner goes while messages that repeat it stay: the first of them owns it now (gets the
    # trigram rows, the key) and the others name it
    moved = c.execute(
        "SELECT s.source, min(s.rowid) FROM tri_same s WHERE s.source IN (SELECT value FROM json_each(?1))"
        " AND s.rowid NOT IN (SELECT value FROM json_each(?1)) GROUP BY s.source",
        (ids,),
    ).fetchall()
    if moved:
        pairs = json_text(moved)
        c.execute(
            "UPDATE tri_same SET source = (SELECT value->>1 FROM json_each(?1) WHERE value->>0 = tri_same.source)"
            " WHERE source IN (SELECT value->>0 FROM json_each(?1))",
            (pairs,),
        )
        c.execute(
            "UPDATE tri_owner SET rowid = (SELECT value->>1 FROM json_each(?1) WHERE value->>0 = tri_owner.rowid)"
            " WHERE rowid IN (SELECT value->>0 FROM json_each(?1))",
            (pairs,),
        )
    owners = json_text([new for _, new in moved])
    c.execute(
        "DELETE FROM tri_same WHERE rowid IN (SELECT value FROM json_each(?1))"
        " OR rowid IN (SELECT value FROM json_each(?2))",
        (ids, owners),
    )
    c.execute("DELETE FROM tri_owner WHERE rowid IN (SELECT value FROM json_each(?))", (ids,))
    for table in ("messages_fts", "messages_tri", "messages_cjk"):
        c.execute(f"DELETE FROM {table} WHERE rowid IN (SELECT value FROM json_each(?))", (ids,))
    kept = c.execute(
        "SELECT rowid, title, body FROM messages_fts WHERE rowid IN (SELECT value FROM json_each(?))",
        (owners,),
    ).fetchall()
    c.executemany(
        "INSERT INTO messages_tri (rowid, body) VALUES (?,?)",
        [(rowid, without_cjk(f"{title}\n{body}" if title else body)) for rowid, title, body in kept],
    )
