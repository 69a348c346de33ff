"""The context engine's units of each conversation's message texts, and its corpora of the conversation
(migration m010_context_units).

A message text is split into units and termed once, and the result is kept here with its conversation, so
that a later process (a restarted host, `mnemo context ID`) reads it back instead of splitting the history
again. The rows are derived data, written after a reply: prepare/unit_store.py owns their bytes and their
format number; the archive keys them by conversation and by the text's digest. They outlive a save that
replaces the conversation (a re-save of it grown by a turn reads most of them back), and go when the
conversation is deleted (Archive.delete) or when its texts no longer hold them (`store` with `keep`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ArchiveError
from .db import Transaction, insert_rows, sqlite

if TYPE_CHECKING:
    from collections.abc import Iterable


# Two kinds of rows share the table, told apart by their format: a message text's units (formats below
# KIND_SPAN: prepare/unit_store.py, keyed by the text's digest) and a corpus of a conversation's path
# (formats from it on: prepare/corpus_store.py, keyed by its turns' and query's digest).
KIND_SPAN = 1_000_000


def stored(conn: sqlite.Connection, conv_id: str, fmt: int) -> dict[bytes, bytes]:
    """text key -> packed units, for the conversation's texts stored in format `fmt`."""
    try:
        rows = conn.execute(
            "SELECT text_key, units FROM context_units WHERE conversation_id = ? AND format = ?",
            (conv_id, fmt),
        )
        return {bytes(k): bytes(v) for k, v in rows}
    except sqlite.Error as exc:
        raise ArchiveError(f"could not read the stored context units: {exc}") from None


def holds_any(conn: sqlite.Connection, conv_id: str, fmt: int) -> bool:
    """Whether some units of the conversation's texts are stored in format `fmt`."""
    try:
        row = conn.execute(
            "SELECT 1 FROM context_units WHERE conversation_id = ? AND format = ? LIMIT 1", (conv_id, fmt)
        ).fetchone()
    except sqlite.Error as exc:
        raise ArchiveError(f"could not read the stored context units: {exc}") from None
    return row is not None


def stored_keys(conn: sqlite.Connection, conv_id: str, fmt: int) -> set[bytes]:
    try:
        rows = conn.execute(
            "SELECT text_key FROM context_units WHERE conversation_id = ? AND format = ?", (conv_id, fmt)
        )
        return {bytes(k) for (k,) in rows}
    except sqlite.Error as exc:
        raise ArchiveError(f"could not read the stored context units: {exc}") from None


def store(
    conn: sqlite.Connection,
    conv_id: str,
    fmt: int,
    rows: Iterable[tuple[bytes, bytes]],
    keep: set[bytes] | None = None,
) -> int:
    """Store (key, packed data) rows of format `fmt` for `conv_id`; with `keep` (every key it has now), the
    conversation's other rows of `fmt`'s kind go (rows of another format of that kind too, never those of
    the other kind: see KIND_SPAN). Returns the rows written (0 when the conversation is not archived).
    Derived data: committed without the fsync (a power cut loses rows, which are made again)."""
    rows = list(rows)
    conn.execute("PRAGMA synchronous = NORMAL")
    try:
        with Transaction(conn) as c:
            if not c.execute("SELECT 1 FROM conversations WHERE id = ?", (conv_id,)).fetchone():
                return 0  # not archived, or deleted meanwhile
            if keep is not None:
                old = [
                    (bytes(k),)
                    for (k, f) in c.execute(
                        "SELECT text_key, format FROM context_units WHERE conversation_id = ?", (conv_id,)
                    )
                    if f // KIND_SPAN == fmt // KIND_SPAN and (f != fmt or bytes(k) not in keep)
                ]
                c.executemany(
                    "DELETE FROM context_units WHERE conversation_id = ? AND text_key = ?",
                    [(conv_id, k) for (k,) in old],
                )
            if rows:
                insert_rows(
                    c,
                    "INSERT INTO context_units (conversation_id, text_key, format, units) VALUES (?,?,?,?)"
                    " ON CONFLICT DO UPDATE SET format = excluded.format, units = excluded.units",
                    [(conv_id, k, fmt, blob) for k, blob in rows],
                )
        return len(rows)
    except sqlite.Error as exc:
        raise ArchiveError(f"could not store the context units: {exc}") from None
    finally:
        conn.execute("PRAGMA synchronous = FULL")
