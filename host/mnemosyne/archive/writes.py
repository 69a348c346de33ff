"""The archive's write path: save (an idempotent upsert that merges and never makes a copy worse), delete,
and per-message token counts. `Archive` (store.py) is built on it."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import ArchiveError
from . import attachments, facets, indexing, sync
from .db import Connection, Transaction, insert_rows, sqlite

# Imports inside functions: the format (pydantic), canonical JSON (msgspec) and the merge load on the first
# save, as the archive opens on the host's hello path without them.

if TYPE_CHECKING:  # the format (pydantic) is imported on first save: `hello` opens the archive without it
    from ..model import Conversation
    from .bulk_index import BulkIndex


class SaveResult(NamedTuple):  # not a dataclass: dataclasses (with inspect) is not on hello's path
    id: str
    status: str  # created | updated | unchanged | kept (the stored copy stays as it is: see _kept)
    title: str | None
    site: str
    messages: int
    warnings: int
    partial: bool
    reason: str | None = None  # why a save was `kept`
    kept_copy: str | None = None  # which copy a `kept` save kept: "complete" or "site_data"

    def as_dict(self) -> dict[str, Any]:
        out = {
            "conversation_id": self.id,
            "status": self.status,
            "title": self.title,
            "site": self.site,
            "messages": self.messages,
            "warnings": self.warnings,
            "partial": self.partial,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.kept_copy is not None:
            out["kept_copy"] = self.kept_copy
        return out


KEPT_REASON = "the archive holds a complete copy of this conversation; a partial capture never replaces it"
PAGE_KEPT_REASON = (
    "the archive holds this conversation as read from the site's data; a page capture never replaces it "
    "(a script on the page can change what the page shows)"
)


def _kept(stored: Conversation, new: Conversation) -> tuple[str, str] | None:
    """Why `new` must not touch `stored`, and which copy that keeps (None: merge them)."""
    if new.provenance.method == "page_dom" and stored.provenance.method != "page_dom":
        # a page's DOM is the page's to forge (its title, its turns, which turn is last): it never replaces
        # the messages, title or active branch of a copy read from the site's data or an export
        return PAGE_KEPT_REASON, "site_data"
    if new.provenance.partial and not stored.provenance.partial:  # never worse: keep the complete copy
        return KEPT_REASON, "complete"
    return None


_IMPORTED = sync.SyncMark(origin="import")

_CAPTURED_AT = re.compile(rb'"captured_at":"[^"]*",?')


_DIGEST_SLICE = 1 << 20  # bytes hashed at a time
_json = indexing.json_text  # the rows of many-row statements, as JSON for json_each


def _content_digest(document: bytes) -> str:
    """What the conversation says, not when it was captured: re-saving the same thing is 'unchanged'.

    Transcript text cannot fake the pattern: inside JSON strings its quotes are escaped (and no byte of a
    UTF-8 character past ASCII is a quote). sha256 of the document's UTF-8 without its captured_at, hashed
    piece by piece: a 64 MiB save's document is never copied whole."""
    digest = hashlib.sha256()
    view = memoryview(document)

    def feed(start: int, end: int) -> None:
        for at in range(start, end, _DIGEST_SLICE):
            digest.update(view[at : min(at + _DIGEST_SLICE, end)])

    kept_from = 0
    for match in _CAPTURED_AT.finditer(document):
        feed(kept_from, match.start())
        kept_from = match.end()
    feed(kept_from, len(document))
    return digest.hexdigest()


_CONVERSATION_COLUMNS = (
    "id, site, source_id, title, url, created_at, updated_at, saved_at, message_count, active_leaf,"
    f" content_sha256, document, sort_key, {', '.join(facets.COLUMNS)}"
).split(", ")
# each column's value; the document comes as UTF-8 bytes (canonical.document_bytes), stored as the text it is
_VALUES = {name: "CAST(? AS TEXT)" if name == "document" else "?" for name in _CONVERSATION_COLUMNS}
_INSERT_CONVERSATION = (
    f"INSERT INTO conversations ({', '.join(_CONVERSATION_COLUMNS)}) VALUES ({','.join(_VALUES.values())})"
)
# every column but the id, then the id (a re-save: see _replace_rows)
_UPDATE_CONVERSATION = (
    f"UPDATE conversations SET {', '.join(f'{name} = {_VALUES[name]}' for name in _CONVERSATION_COLUMNS[1:])}"
    " WHERE id = ?"
)


def _conversation_row(
    conv: Conversation, document: bytes, digest: str, found: facets.Facets, now: str
) -> tuple[Any, ...]:
    from ..model import format_time  # (see the imports)

    created = format_time(conv.created_at) if conv.created_at else None
    updated = format_time(conv.updated_at) if conv.updated_at else None
    return (
        conv.id,
        conv.source.site,
        conv.source.conversation_id,
        conv.title and indexing.storable(conv.title),
        conv.source.url,
        created,
        updated,
        now,
        len(conv.messages),
        conv.active_leaf,
        digest,
        document,
        updated or created or now,
        *found.values(),
    )


def _result(conv: Conversation, status: str) -> SaveResult:
    return SaveResult(
        id=conv.id,
        status=status,
        title=conv.title,
        site=conv.source.site,
        messages=len(conv.messages),
        warnings=sum(w.count for w in conv.warnings),
        partial=conv.provenance.partial,
    )


class Prepared(NamedTuple):
    """What saving `conv` as a new conversation computes, made ahead of the save's transaction (a bulk
    import makes it while the archive writes the search index, so the transaction holds the connection
    for its SQL only). Used only for that same object, and only when the archive does not hold it yet."""

    conv: Conversation
    document: bytes  # UTF-8 (canonical.document_bytes)
    digest: str
    facets: facets.Facets
    texts: indexing.Texts
    exact: bool  # the document is `conv`'s own dump (canonical.document_bytes)


def prepare(conv: Conversation) -> Prepared:
    from .. import canonical  # (see the imports)

    document, data, exact = canonical.document_bytes(conv)
    return Prepared(
        conv, document, _content_digest(document), facets.of_document(data), indexing.texts_for(conv), exact
    )


class ArchiveWrites:
    """Saving and deleting conversations in `self.conn`; the search index of a save is written at once, or
    after the reply when `defer_index` is set (the host), from `_pending`, or in chunks during a bulk
    import (`bulk_index`, see Archive.bulk_import)."""

    conn: sqlite.Connection
    defer_index: bool
    _pending: dict[str, indexing.Pending]
    bulk_index: BulkIndex | None
    _last: tuple[str, Conversation] | None  # the conversation saved or read last, by its digest (see get)

    resolve: Callable[[str], str]  # Archive's: the id a unique prefix names

    def save(self, conv: Conversation) -> SaveResult:
        """One transaction: insert, or merge into the stored copy of the same conversation."""
        return self.save_many([conv])[0]

    def save_many(
        self,
        convs: list[Conversation],
        counter: Callable[[Conversation], dict[str, int]] | None = None,
        encoding: str = "o200k_base",
        marks: list[sync.SyncMark] | None = None,
        prepared: dict[int, Prepared] | None = None,
    ) -> list[SaveResult]:
        """Several conversations in one transaction (bulk import: one commit, one fsync, for the batch).

        `counter` gives per-message token counts to store with each conversation that changed; `marks`
        (one per conversation) what the sync bookkeeping records (default: an import); `prepared` (by id() of
        the conversation) what was computed ahead for some of them."""
        if self.bulk_index is not None:
            self.bulk_index.wait()  # the connection is free once its chunk is written
        try:
            with Transaction(self.conn) as c:
                results: list[SaveResult] = []
                # a bulk import's new conversations, made ahead, are written together (_write_fresh); any
                # other save first writes those before it, so it sees them (the same id twice in a batch)
                fresh: list[tuple[Prepared, sync.SyncMark]] = []
                stored = self._stored_ids(c, convs) if self.bulk_index is not None and prepared else None
                for n, conv in enumerate(convs):
                    ahead = prepared.get(id(conv)) if prepared else None
                    ahead = ahead if ahead and ahead.conv is conv else None
                    mark = marks[n] if marks is not None else _IMPORTED
                    if stored is not None and ahead is not None and conv.id not in stored:
                        stored.add(conv.id)
                        fresh.append((ahead, mark))
                        continue
                    results += self._write_fresh(c, fresh, counter, encoding)
                    fresh = []
                    result, saved = self._save_in(c, conv, ahead)
                    if result.status == "kept":
                        results.append(result)
                        continue
                    if counter is not None and result.status != "unchanged":
                        self._store_counts(c, saved.id, encoding, counter(saved))
                    complete = not saved.provenance.partial
                    sync.record_save(c, saved.id, result.site, saved.source.conversation_id, complete, mark)
                    results.append(result)
                results += self._write_fresh(c, fresh, counter, encoding)
        except sqlite.Error as exc:  # rolled back: nothing of this batch was written
            raise ArchiveError(f"could not save to the archive: {exc}") from None
        if self.bulk_index is not None:
            self.bulk_index.committed()
        return results

    @staticmethod
    def _stored_ids(c: Connection, convs: list[Conversation]) -> set[str]:
        """Which of these conversations the archive holds, in one statement."""
        ids = _json([conv.id for conv in convs])
        return {
            row[0]
            for row in c.execute(
                "SELECT id FROM conversations WHERE id IN (SELECT value FROM json_each(?))", (ids,)
            )
        }

    def _write_fresh(
        self,
        c: Connection,
        fresh: list[tuple[Prepared, sync.SyncMark]],
        counter: Callable[[Conversation], dict[str, int]] | None,
        encoding: str,
    ) -> list[SaveResult]:
        """New conversations of a bulk import, each made ahead: what _save_in, _write and save_many's loop
        store for each, in a few statements for all of them. Each statement is a wait for the GIL, which the
        import's reading thread holds (a few per conversation were 1.1 s of 2,000 conversations' saves)."""
        from ..model import format_time  # (see the imports)

        if not fresh:
            return []
        assert self.bulk_index is not None
        now = format_time(datetime.now(timezone.utc))
        insert_rows(
            c,
            _INSERT_CONVERSATION,
            [_conversation_row(p.conv, p.document, p.digest, p.facets, now) for p, _ in fresh],
        )
        messages = [
            [p.conv.id, m.id, seq, m.role, int(m.hidden)]
            for p, _ in fresh
            for seq, m in enumerate(p.conv.messages)
        ]
        c.execute(
            "INSERT INTO messages (conversation_id, message_id, seq, role, hidden)"
            " SELECT value->>0, value->>1, value->>2, value->>3, value->>4 FROM json_each(?)",
            (_json(messages),),
        )
        ids = [p.conv.id for p, _ in fresh]
        made = c.execute(
            "SELECT conversation_id, json_group_array(rowid ORDER BY seq) FROM messages"
            " WHERE conversation_id IN (SELECT value FROM json_each(?)) GROUP BY conversation_id",
            (_json(ids),),
        )
        rowids = dict(made.fetchall())
        c.execute(
            "INSERT OR IGNORE INTO index_pending (conversation_id) SELECT value FROM json_each(?)",
            (_json(ids),),
        )
        for p, _ in fresh:
            self.bulk_index.add(
                p.conv.id, p.digest, indexing.bulk_rows(json.loads(rowids.get(p.conv.id, "[]")), p.texts)
            )
        if counter is not None:
            counts = [[p.conv.id, mid, int(n)] for p, _ in fresh for mid, n in counter(p.conv).items()]
            c.execute(
                "INSERT INTO token_counts (conversation_id, message_id, encoding, tokens)"
                " SELECT value->>0, value->>1, ?, value->>2 FROM json_each(?) WHERE true"
                " ON CONFLICT DO UPDATE SET tokens = excluded.tokens",
                (encoding, _json(counts)),
            )
        sync.record_saves(
            c,
            [
                (
                    p.conv.id,
                    p.conv.source.site,
                    p.conv.source.conversation_id,
                    not p.conv.provenance.partial,
                    mark,
                )
                for p, mark in fresh
            ],
        )
        return [_result(p.conv, "created") for p, _ in fresh]

    def _save_in(
        self, c: Connection, conv: Conversation, ahead: Prepared | None
    ) -> tuple[SaveResult, Conversation]:
        from .. import canonical  # (see the imports)
        from .merge import merge  # (see the imports)

        row = c.execute(
            "SELECT document, content_sha256 FROM conversations WHERE id = ?", (conv.id,)
        ).fetchone()
        status = "created"
        if row is not None:
            stored = canonical.loads(row[0])
            why = _kept(stored, conv)
            if why is not None:
                kept = SaveResult(
                    id=stored.id,
                    status="kept",
                    title=stored.title,
                    site=stored.source.site,
                    messages=len(stored.messages),
                    warnings=sum(w.count for w in stored.warnings),
                    partial=conv.provenance.partial,
                    reason=why[0],
                    kept_copy=why[1],
                )
                return kept, stored
            conv = merge(stored, conv)
            status = "updated"
        texts = None
        if ahead is not None and row is None:
            document, digest, found, texts = ahead.document, ahead.digest, ahead.facets, ahead.texts
            exact = ahead.exact
        else:  # not made ahead, or a merge: from the conversation as it is saved
            document, data, exact = canonical.document_bytes(conv)
            digest, found = _content_digest(document), facets.of_document(data)
            del data
        if row is not None and row[1] == digest:
            status = "unchanged"
        else:
            self._write(c, conv, document, digest, found, stored if row is not None else None, texts)
        self._last = (digest, conv) if exact else None  # what `get` reads back is this conversation
        return _result(conv, status), conv

    def _write(
        self,
        c: Connection,
        conv: Conversation,
        document: bytes,
        digest: str,
        found: facets.Facets,
        stored: Conversation | None,
        texts: indexing.Texts | None = None,
    ) -> None:
        """Write `conv`, new or replacing `stored` (the copy it was merged with)."""
        from ..model import format_time  # (see the imports)

        now = format_time(datetime.now(timezone.utc))
        row = _conversation_row(conv, document, digest, found, now)
        kept: dict[int, int] = {}
        if stored is None:
            c.execute(_INSERT_CONVERSATION, row)
        else:
            kept = self._replace_rows(c, conv, stored)
            c.execute(_UPDATE_CONVERSATION, (*row[1:], conv.id))  # (a delete would cascade to the rows kept)
        # the message rows go in, and their rowids come back, in one statement each: a row at a time, every
        # row was a return to Python for the GIL, which the import's reading thread holds (writer thread)
        rows = [[seq, m.id, m.role, int(m.hidden)] for seq, m in enumerate(conv.messages) if seq not in kept]
        c.execute(
            "INSERT INTO messages (conversation_id, message_id, seq, role, hidden)"
            " SELECT ?, value->>1, value->>0, value->>2, value->>3 FROM json_each(?)",
            (conv.id, _json(rows)),
        )
        made = c.execute(
            "SELECT json_group_array(rowid ORDER BY seq) FROM messages WHERE conversation_id = ?", (conv.id,)
        )
        # per message, its row's rowid when its search rows are to be written (None: kept, written before)
        rowids: list[int | None] = [
            None if seq in kept else rowid for seq, rowid in enumerate(json.loads(made.fetchone()[0]))
        ]
        if self.bulk_index is not None:
            c.execute("INSERT OR IGNORE INTO index_pending (conversation_id) VALUES (?)", (conv.id,))
            texts = texts or indexing.texts_for(conv)
            self.bulk_index.add(conv.id, digest, indexing.bulk_rows(rowids, texts))
        elif self.defer_index:
            c.execute("INSERT OR IGNORE INTO index_pending (conversation_id) VALUES (?)", (conv.id,))
            self._hold_pending(indexing.Pending(digest, conv, rowids), conv.id)
        else:
            indexing.write(c, indexing.rows_for(conv, rowids))

    def _replace_rows(self, c: Connection, conv: Conversation, stored: Conversation) -> dict[int, int]:
        """Make room for `conv` replacing `stored`: delete the message rows and search rows that change, and
        return the ones kept (seq -> rowid): a message at the same place with the same id, role,
        visibility and searchable text as in `stored`, once the search rows of `stored` are written (no
        index_pending row). A conversation continued on the site and saved again (Continue in's menu, a
        visit's sync, an export imported again) rewrote the search rows of its whole history before: the
        deletion took 0.15 s of the save of 1 MB, and the index written after the reply as much again.
        The per-message token counts are dropped (counted again on use)."""
        old = c.execute(
            "SELECT seq, rowid, message_id, role, hidden FROM messages WHERE conversation_id = ?", (conv.id,)
        ).fetchall()
        kept: dict[int, int] = {}
        if c.execute("SELECT 1 FROM index_pending WHERE conversation_id = ?", (conv.id,)).fetchone() is None:
            before, after = indexing.searchable_texts(stored), indexing.searchable_texts(conv)
            messages = conv.messages
            for seq, rowid, message_id, role, hidden in old:
                if (
                    seq < len(messages)
                    and seq < len(before)
                    and (message_id, role, hidden)
                    == (messages[seq].id, messages[seq].role, int(messages[seq].hidden))
                    and before[seq] == after[seq]
                ):
                    kept[seq] = rowid
        gone = [rowid for seq, rowid, *_ in old if seq not in kept]
        indexing.delete(c, gone)
        c.execute("DELETE FROM messages WHERE rowid IN (SELECT value FROM json_each(?))", (_json(gone),))
        c.execute("DELETE FROM index_pending WHERE conversation_id = ?", (conv.id,))
        self._pending.pop(conv.id, None)
        c.execute("DELETE FROM token_counts WHERE conversation_id = ?", (conv.id,))
        return kept

    def _hold_pending(self, pending: indexing.Pending, conv_id: str) -> None:
        """Keep `pending` for the index written after the reply; the conversations of the saves before it
        are let go (their rowids kept), read back from the archive when indexed. Saves that arrive back to
        back (a sync, Continue in on one long chat after another) held every conversation until the host
        was idle: 4-5 MB of objects for each 1 MB of text."""
        self._pending.pop(conv_id, None)
        if self._pending:  # (in the order saved: only the last one holds its conversation)
            last = next(reversed(self._pending))
            self._pending[last] = self._pending[last]._replace(conv=None)
        self._pending[conv_id] = pending

    def _delete_rows(self, c: Connection, conv_id: str) -> None:
        self._last = None  # (its attachments' annotations went with the deleted conversation's links)
        rowids = [r[0] for r in c.execute("SELECT rowid FROM messages WHERE conversation_id = ?", (conv_id,))]
        indexing.delete(c, rowids)
        c.execute("DELETE FROM index_pending WHERE conversation_id = ?", (conv_id,))
        self._pending.pop(conv_id, None)
        c.execute("DELETE FROM token_counts WHERE conversation_id = ?", (conv_id,))
        c.execute("DELETE FROM messages WHERE conversation_id = ?", (conv_id,))
        c.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))

    def delete(self, conv_id: str) -> bool:
        conv_id = self.resolve(conv_id)
        with Transaction(self.conn) as c:
            site, source_id = c.execute(
                "SELECT site, source_id FROM conversations WHERE id = ?", (conv_id,)
            ).fetchone()
            self._delete_rows(c, conv_id)
            # (a save that replaces the conversation keeps its context units: see context_units.py)
            c.execute("DELETE FROM context_units WHERE conversation_id = ?", (conv_id,))
            sync.forget(c, conv_id)
            attachments.forget(c, site, source_id)
        return True

    def store_token_counts(self, conv_id: str, encoding: str, counts: dict[str, int]) -> None:
        try:
            with Transaction(self.conn) as c:
                if not c.execute("SELECT 1 FROM conversations WHERE id = ?", (conv_id,)).fetchone():
                    return  # deleted meanwhile
                self._store_counts(c, conv_id, encoding, counts)
        except sqlite.Error as exc:  # rolled back (another writer held the lock past the busy timeout)
            raise ArchiveError(f"could not store the token counts: {exc}") from None

    @staticmethod
    def _store_counts(c: Connection, conv_id: str, encoding: str, counts: dict[str, int]) -> None:
        # an upsert, not INSERT OR REPLACE: with foreign keys on, REPLACE made these inserts 35x slower
        # (4.7 s of a 2,000-conversation import's 25 s for 26k rows; 0.13 s as an upsert)
        # one statement for all of them (see _write); WHERE true: an upsert's SELECT needs a WHERE clause
        c.execute(
            "INSERT INTO token_counts (conversation_id, message_id, encoding, tokens)"
            " SELECT ?, key, ?, value FROM json_each(?) WHERE true"
            " ON CONFLICT DO UPDATE SET tokens = excluded.tokens",
            (conv_id, encoding, _json({mid: int(n) for mid, n in counts.items()})),
        )
