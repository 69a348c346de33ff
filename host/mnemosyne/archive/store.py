"""The archive: save (idempotent upsert), get, list, delete, token counts.
Search lives in search.py."""

from __future__ import annotations

import base64
import builtins
import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import ArchiveError, InputError, NotFoundError
from . import attachments, db, facets, indexing, migrations, sync
from .db import Transaction, sqlite
from .opening import open_database

if (
    TYPE_CHECKING
):  # the format (pydantic) is imported on first save or get: `hello` opens the archive without it
    from ..model import Conversation

SUMMARY_KEYS = (
    "id",
    "site",
    "title",
    "url",
    "created_at",
    "updated_at",
    "saved_at",
    "message_count",
    "source_id",
    "project",
    "model",
    "has_code",
    "has_attachments",
    "length",
)
SUMMARY_COLUMNS = ", ".join(SUMMARY_KEYS).replace("length", "text_chars")
# list orders: the sort column and direction; ties broken by id in the same direction (keyset paging)
ORDERS = {
    "newest": ("sort_key", "DESC"),
    "oldest": ("sort_key", "ASC"),
    # first message time, else last activity (a conversation with no created_at still has a place)
    "created": ("coalesce(created_at, sort_key)", "DESC"),
    "title": ("title_key", "ASC"),
    "length": ("text_chars", "DESC"),
}


class SaveResult(NamedTuple):  # not a dataclass: dataclasses (with inspect) is not on hello's path
    id: str
    status: str  # created | updated | unchanged | kept (a partial capture did not replace a complete copy)
    title: str | None
    site: str
    messages: int
    warnings: int
    partial: bool
    reason: str | None = None  # why a save was `kept`

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
        return out


def _summary(row) -> dict[str, Any]:
    summary = dict(zip(SUMMARY_KEYS, row))
    summary["has_code"] = bool(summary["has_code"])
    summary["has_attachments"] = bool(summary["has_attachments"])
    return summary


def _encode_cursor(values: list[Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, length: int) -> list[Any]:
    try:
        values = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError):
        values = None
    if not isinstance(values, list) or len(values) != length:
        raise InputError("cursor is not one this host issued", code="BAD_CURSOR")
    return values


KEPT_REASON = "the archive holds a complete copy of this conversation; a partial capture never replaces it"
_IMPORTED = sync.SyncMark(origin="import")

_CAPTURED_AT = re.compile(r'"captured_at":"[^"]*",?')


_DIGEST_SLICE = 1 << 20  # characters encoded at a time


def _content_digest(document: str) -> str:
    """What the conversation says, not when it was captured: re-saving the same thing is 'unchanged'.

    Transcript text cannot fake the pattern: inside JSON strings its quotes are escaped. The same digest as
    sha256 of the document without its captured_at, hashed piece by piece: a 64 MiB save's document is never
    copied whole (a str copy, then its UTF-8 bytes, was the save's peak memory)."""
    digest = hashlib.sha256()

    def feed(start: int, end: int) -> None:
        for at in range(start, end, _DIGEST_SLICE):
            digest.update(document[at : min(at + _DIGEST_SLICE, end)].encode("utf-8", "surrogatepass"))

    kept_from = 0
    for match in _CAPTURED_AT.finditer(document):
        feed(kept_from, match.start())
        kept_from = match.end()
    feed(kept_from, len(document))
    return digest.hexdigest()


class Archive:
    def __init__(self, conn: sqlite.Connection, path: Path):
        self.conn = conn
        self.path = path
        # the host sets this: saves leave the search index to index_pending(), after the reply
        self.defer_index = False
        self._pending: dict[str, indexing.Pending] = {}

    # ---------------------------------------------------------------- lifecycle

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------------- writes

    def save(self, conv: Conversation) -> SaveResult:
        """One transaction: insert, or merge into the stored copy of the same conversation."""
        return self.save_many([conv])[0]

    def save_many(
        self,
        convs: list[Conversation],
        counter: Callable[[Conversation], dict[str, int]] | None = None,
        encoding: str = "o200k_base",
        marks: list[sync.SyncMark] | None = None,
    ) -> list[SaveResult]:
        """Several conversations in one transaction (bulk import: one commit, one fsync, for the batch).

        `counter` gives per-message token counts to store with each conversation that changed; `marks`
        (one per conversation) what the sync bookkeeping records (default: an import)."""
        try:
            with Transaction(self.conn) as c:
                results = []
                for n, conv in enumerate(convs):
                    result, saved = self._save_in(c, conv)
                    if result.status == "kept":
                        results.append(result)
                        continue
                    if counter is not None and result.status != "unchanged":
                        self._store_counts(c, saved.id, encoding, counter(saved))
                    mark = marks[n] if marks is not None else _IMPORTED
                    complete = not saved.provenance.partial
                    sync.record_save(c, saved.id, result.site, saved.source.conversation_id, complete, mark)
                    results.append(result)
                return results
        except sqlite.Error as exc:  # rolled back: nothing of this batch was written
            raise ArchiveError(f"could not save to the archive: {exc}") from None

    def _save_in(self, c, conv: Conversation) -> tuple[SaveResult, Conversation]:
        from .. import canonical
        from .merge import merge

        row = c.execute(
            "SELECT document, content_sha256 FROM conversations WHERE id = ?", (conv.id,)
        ).fetchone()
        status = "created"
        if row is not None:
            stored = canonical.loads(row[0])
            if (
                conv.provenance.partial and not stored.provenance.partial
            ):  # never worse: keep the complete copy
                kept = SaveResult(
                    id=stored.id,
                    status="kept",
                    title=stored.title,
                    site=stored.source.site,
                    messages=len(stored.messages),
                    warnings=sum(w.count for w in stored.warnings),
                    partial=True,
                    reason=KEPT_REASON,
                )
                return kept, stored
            conv = merge(stored, conv)
            status = "updated"
        document = canonical.dumps(conv, indent=None)
        digest = _content_digest(document)
        if row is not None and row[1] == digest:
            status = "unchanged"
        else:
            self._write(c, conv, document, digest, replace=row is not None)
        result = SaveResult(
            id=conv.id,
            status=status,
            title=conv.title,
            site=conv.source.site,
            messages=len(conv.messages),
            warnings=sum(w.count for w in conv.warnings),
            partial=conv.provenance.partial,
        )
        return result, conv

    def _write(self, c, conv: Conversation, document: str, digest: str, replace: bool) -> None:
        from ..model import format_time

        if replace:
            self._delete_rows(c, conv.id)
        now = format_time(datetime.now(timezone.utc))
        created = format_time(conv.created_at) if conv.created_at else None
        updated = format_time(conv.updated_at) if conv.updated_at else None
        c.execute(
            "INSERT INTO conversations (id, site, source_id, title, url, created_at, updated_at, saved_at,"
            f" message_count, active_leaf, content_sha256, document, sort_key, {', '.join(facets.COLUMNS)})"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
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
                *facets.of_json(document).values(),
            ),
        )
        c.executemany(
            "INSERT INTO messages (conversation_id, message_id, seq, role, hidden) VALUES (?,?,?,?,?)",
            [(conv.id, msg.id, seq, msg.role, int(msg.hidden)) for seq, msg in enumerate(conv.messages)],
        )
        rowids = [
            r[0]
            for r in c.execute(
                "SELECT rowid FROM messages WHERE conversation_id = ? ORDER BY seq", (conv.id,)
            )
        ]
        if self.defer_index:
            c.execute("INSERT OR IGNORE INTO index_pending (conversation_id) VALUES (?)", (conv.id,))
            self._pending[conv.id] = indexing.Pending(digest, conv, rowids)
        else:
            indexing.write(c, indexing.rows_for(conv, rowids))

    def _delete_rows(self, c, conv_id: str) -> None:
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
            sync.forget(c, conv_id)
            attachments.forget(c, site, source_id)
        return True

    def store_token_counts(self, conv_id: str, encoding: str, counts: dict[str, int]) -> None:
        with Transaction(self.conn) as c:
            if not c.execute("SELECT 1 FROM conversations WHERE id = ?", (conv_id,)).fetchone():
                return  # deleted meanwhile
            self._store_counts(c, conv_id, encoding, counts)

    @staticmethod
    def _store_counts(c, conv_id: str, encoding: str, counts: dict[str, int]) -> None:
        # an upsert, not INSERT OR REPLACE: with foreign keys on, REPLACE made these inserts 35x slower
        # (4.7 s of a 2,000-conversation import's 25 s for 26k rows; 0.13 s as an upsert)
        c.executemany(
            "INSERT INTO token_counts (conversation_id, message_id, encoding, tokens) VALUES (?,?,?,?)"
            " ON CONFLICT DO UPDATE SET tokens = excluded.tokens",
            [(conv_id, mid, encoding, int(n)) for mid, n in counts.items()],
        )

    def index_pending(self, more: Callable[[], bool] = lambda: True) -> int:
        """Write the search index of conversations saved with defer_index (by any process), one
        transaction each, while `more()` says to go on; returns how many were indexed."""
        try:
            return self._index_pending(more)
        except sqlite.Error as exc:  # rolled back: the conversation stays pending
            raise ArchiveError(f"could not write the search index: {exc}") from None

    def _index_pending(self, more: Callable[[], bool]) -> int:
        # The index is derived data: its commits skip the fsync (synchronous=NORMAL). A power cut can
        # lose one, never the save: the index_pending row goes in the same transaction, so the
        # conversation stays pending and is indexed again from its stored document.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        try:
            return self._index_pending_rows(more)
        finally:
            self.conn.execute("PRAGMA synchronous = FULL")

    def _index_pending_rows(self, more: Callable[[], bool]) -> int:
        done = 0
        while more():
            row = self.conn.execute("SELECT conversation_id FROM index_pending LIMIT 1").fetchone()
            if row is None:
                break
            with Transaction(self.conn) as c:
                stored = c.execute(
                    "SELECT p.conversation_id, c.content_sha256 FROM index_pending p"
                    " LEFT JOIN conversations c ON c.id = p.conversation_id WHERE p.conversation_id = ?",
                    (row[0],),
                ).fetchone()
                if stored is None:
                    continue  # another process indexed it meanwhile
                conv_id, digest = stored
                c.execute("DELETE FROM index_pending WHERE conversation_id = ?", (conv_id,))
                pending = self._pending.pop(conv_id, None)
                if digest is None:
                    continue  # deleted
                if pending is None or pending.digest != digest:  # saved by another process, or a crash
                    rowids = [
                        r[0]
                        for r in c.execute(
                            "SELECT rowid FROM messages WHERE conversation_id = ? ORDER BY seq", (conv_id,)
                        )
                    ]
                    from .. import canonical

                    document = c.execute("SELECT document FROM conversations WHERE id = ?", (conv_id,))
                    pending = indexing.Pending(digest, canonical.loads(document.fetchone()[0]), rowids)
                indexing.write(c, pending.rows())
            done += 1
        return done

    def checkpoint_deferred(self) -> None:
        """The host checkpoints the WAL after its reply instead of inside a save's commit (db.py,
        `defer_checkpoints`); passive, so it never waits for another process's readers."""
        try:
            if db.wal_unbackfilled(self.conn) >= db.CHECKPOINT_PAGES:
                self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite.Error as exc:  # the next one retries; other processes checkpoint too
            raise ArchiveError(f"could not checkpoint the archive: {exc}") from None

    def has_pending_index(self) -> bool:
        return self.conn.execute("SELECT 1 FROM index_pending LIMIT 1").fetchone() is not None

    # ---------------------------------------------------------------- reads

    def resolve(self, conv_id: str) -> str:
        """Full id from an id or a unique prefix of at least 4 characters (ids are typed by hand)."""
        conv_id = (conv_id or "").strip().lower()
        if self.conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conv_id,)).fetchone():
            return conv_id
        if len(conv_id) >= 4 and conv_id.isalnum():
            rows = self.conn.execute(
                "SELECT id FROM conversations WHERE id >= ? AND id < ? LIMIT 2", (conv_id, conv_id + "\x7f")
            ).fetchall()
            if len(rows) == 1:
                return rows[0][0]
            if len(rows) > 1:
                raise NotFoundError(f"conversation id {conv_id!r} is ambiguous; type more characters")
        raise NotFoundError(f"no conversation {conv_id!r} in the archive")

    def get(self, conv_id: str) -> Conversation:
        conv_id = self.resolve(conv_id)
        row = self.conn.execute(
            "SELECT document, site, source_id FROM conversations WHERE id = ?", (conv_id,)
        ).fetchone()
        from .. import canonical

        # the attachments whose bytes the archive holds carry their sha256 (kept apart: a re-save keeps them)
        return attachments.annotate(canonical.loads(row[0]), attachments.links(self.conn, row[1], row[2]))

    def get_document(self, conv_id: str) -> str:
        conv_id = self.resolve(conv_id)
        return self.conn.execute("SELECT document FROM conversations WHERE id = ?", (conv_id,)).fetchone()[0]

    def token_counts(self, conv_id: str, encoding: str) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT message_id, tokens FROM token_counts WHERE conversation_id = ? AND encoding = ?",
            (self.resolve(conv_id), encoding),
        )
        return dict(rows.fetchall())

    def list(
        self,
        limit: int = 50,
        cursor: str | None = None,
        site: str | None = None,
        order: str = "newest",
        since: str | None = None,
        until: str | None = None,
        project: str | None = None,
        model: str | None = None,
        has_code: bool | None = None,
        has_attachments: bool | None = None,
    ) -> tuple[list[dict], str | None]:
        """In `order` (ORDERS: newest or oldest by last activity, newest created, title A-Z, longest first), within
        [since, until) of last activity (ISO prefixes compare as text, as sort_key is stored) and the facet
        filters; keyset paging so page N costs the same as page 1. A cursor names its order: one issued for
        another order is BAD_CURSOR, never a page of the wrong list."""
        if order not in ORDERS:
            raise InputError(f"order must be one of {', '.join(ORDERS)}")
        column, direction = ORDERS[order]
        where: builtins.list[str] = []
        args: builtins.list[Any] = []
        for name, value in (("site", site), ("project", project), ("model", model)):
            if value:
                where.append(f"{name} = ?")
                args.append(value)
        for name, flag in (("has_code", has_code), ("has_attachments", has_attachments)):
            if flag is not None:
                where.append(f"{name} = ?")
                args.append(int(flag))
        if since:
            where.append("sort_key >= ?")
            args.append(since)
        if until:
            where.append("sort_key < ?")
            args.append(until)
        if cursor:
            cursor_order, key, last_id = decode_cursor(cursor, 3)
            if cursor_order != order:
                raise InputError("cursor is not one this host issued", code="BAD_CURSOR")
            op = "<" if direction == "DESC" else ">"
            where.append(f"({column} {op} ? OR ({column} = ? AND id {op} ?))")
            args += [key, key, last_id]
        sql = f"SELECT {SUMMARY_COLUMNS}, {column} FROM conversations"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {column} {direction}, id {direction} LIMIT ?"
        rows = self.conn.execute(sql, (*args, limit + 1)).fetchall()
        more = len(rows) > limit
        rows = rows[:limit]
        next_cursor = _encode_cursor([order, rows[-1][-1], rows[-1][0]]) if more and rows else None
        return [_summary(r[:-1]) for r in rows], next_cursor

    def facet_values(self, limit: int = 200) -> dict[str, builtins.list[dict[str, Any]]]:
        """The projects and models in the archive, most conversations first (the library's filter choices)."""
        found = {}
        for name in ("project", "model"):
            rows = self.conn.execute(
                f"SELECT {name}, count(*) FROM conversations WHERE {name} IS NOT NULL"
                f" GROUP BY {name} ORDER BY count(*) DESC, {name} LIMIT ?",
                (limit,),
            )
            found[name] = [{"value": value, "count": count} for value, count in rows]
        return found

    def all_ids(self) -> builtins.list[str]:
        return [
            r[0] for r in self.conn.execute("SELECT id FROM conversations ORDER BY sort_key DESC, id DESC")
        ]

    def stats(self) -> dict[str, Any]:
        conversations = self.conn.execute("SELECT count(*) FROM conversations").fetchone()[0]
        messages = self.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        return {
            "path": str(self.path),
            "conversations": conversations,
            "messages": messages,
            "migrations": migrations.applied(self.conn),
        }

    def search(self, query: str, limit: int = 20, site: str | None = None) -> builtins.list[dict[str, Any]]:
        from .search import search

        self.index_pending()  # a deferred save is found as soon as its reply was sent
        return search(self.conn, query, limit=limit, site=site)


def open_archive(path: Path | None = None, *, create: bool = True) -> Archive:
    """Open (or create) the archive. A database without its key is an error, never replaced."""
    return Archive(*open_database(path, create=create))
