"""The archive: get, list, facets, the deferred search index, and open_archive; saving and deleting are in
writes.py (ArchiveWrites), search in search.py."""

from __future__ import annotations

import base64
import builtins
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ArchiveError, InputError, NotFoundError
from . import attachments, db, indexing, migrations
from .db import Connection, Transaction, sqlite
from .opening import open_database
from .search import search as search_index
from .writes import ArchiveWrites

# Imports inside functions: the bulk index's worker thread (threading, concurrent.futures) loads for an import
# only, the format (pydantic) on the first read of a document (see TYPE_CHECKING below).

if (
    TYPE_CHECKING
):  # the format (pydantic) is imported on first save or get: `hello` opens the archive without it
    from ..model import Conversation
    from .bulk_index import BulkIndex

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


def _summary(row: Any) -> dict[str, Any]:
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


class Archive(ArchiveWrites):
    def __init__(self, conn: sqlite.Connection, path: Path):
        self.conn = conn
        self.path = path
        # the host sets this: saves leave the search index to index_pending(), after the reply
        self.defer_index = False
        self._pending: dict[str, indexing.Pending] = {}
        self.bulk_index: BulkIndex | None = None  # set inside bulk_import()
        # the conversation saved or read last, with its stored digest: `get` returns it while it is stored
        # unchanged (parsing and validating 1 MB of it again took 18-45 ms of each context of it)
        self._last: tuple[str, Conversation] | None = None

    # ---------------------------------------------------------------- lifecycle

    def close(self) -> None:
        if self.bulk_index is not None:
            self.bulk_index.wait()
        self.conn.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def bulk_import(self) -> Iterator[None]:
        """Saves inside write the search index in chunks on a worker thread (bulk_index.py); on a normal
        exit everything saved is indexed, on an error what was not stays pending (every search indexes it)."""
        from .bulk_index import BulkIndex  # (see the imports)

        try:
            self.bulk_index = BulkIndex(self.conn)
        except sqlite.Error as exc:
            raise ArchiveError(f"could not prepare the search index: {exc}") from None
        failed = True
        try:
            yield
            try:
                self.bulk_index.finish()
            except sqlite.Error as exc:  # rolled back: pending, indexed below or by the next search
                raise ArchiveError(f"could not write the search index: {exc}") from None
            failed = False
        finally:
            self.bulk_index.close(
                cancel=failed
            )  # after an error, saves handed over and not started are dropped
            self.bulk_index = None
        self.index_pending()  # what a chunk skipped (saved again by another process meanwhile)

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
                self._pending.clear()  # (what another process indexed while this one was part-way)
                break
            if self._index_one(row[0], more):
                done += 1
        return done

    def _index_one(self, conv_id: str, more: Callable[[], bool]) -> bool:
        """Write the search index of the pending conversation `conv_id`, a transaction per
        indexing.WRITE_CHARS of its text, until `more()` says to stop between two; True once it is done.
        A host's request waits for one transaction, not for a long conversation's index (about 0.15 s a
        MB). What is written is kept in `_pending` (those rowids None) and the index_pending row goes with
        the last rows: a search meanwhile finds the conversation pending and writes the rest, and a process
        without that progress (after a crash, another process) deletes what was written and writes it all."""
        with Transaction(self.conn) as c:
            stored = _pending_digest(c, conv_id)
            if stored is None:
                return True  # another process indexed it meanwhile
            digest = stored[0]
            pending = self._pending.get(conv_id)
            if digest is None:  # deleted
                c.execute("DELETE FROM index_pending WHERE conversation_id = ?", (conv_id,))
                self._pending.pop(conv_id, None)
                return True
            if pending is None or pending.digest != digest:  # saved by another process, or a crash
                rowids = [
                    r[0]
                    for r in c.execute(
                        "SELECT rowid FROM messages WHERE conversation_id = ? ORDER BY seq", (conv_id,)
                    )
                ]
                indexing.delete(c, rowids)  # the rows a re-save kept are written: all of them again
                pending = indexing.Pending(digest, None, rowids)
        self._pending[conv_id] = pending  # (once the deletion is committed)
        conv = pending.conv if pending.conv is not None else self._kept(conv_id, digest)
        if conv is None:  # let go since its save: read back (not kept: the host serves another)
            conv = self._parsed(self.conn, conv_id)[1]
        chunks = list(indexing.chunks(indexing.rows_for(conv, pending.rowids))) or [[]]
        for n, chunk in enumerate(chunks, 1):
            try:
                finished = self._index_part(conv_id, digest, chunk, last=n == len(chunks))
            except sqlite.Error:  # (rolled back) the next round writes it all again, whatever was written
                self._pending.pop(conv_id, None)
                raise
            if finished is not None:
                self._pending.pop(conv_id, None)
                return finished
            written = {rowid for rowid, _, _ in chunk}
            pending = pending._replace(rowids=[None if r in written else r for r in pending.rowids])
            self._pending[conv_id] = pending
            if not more():
                return False
        return True

    def _index_part(self, conv_id: str, digest: str, rows: list[indexing.Row], last: bool) -> bool | None:
        """Write `rows` of the index of `conv_id` (stored with `digest`) in a transaction, the last with its
        index_pending row. Returns None when more is to come, else whether the conversation is indexed
        (False: saved again by another process meanwhile, to be indexed anew)."""
        with Transaction(self.conn) as c:
            now = _pending_digest(c, conv_id)
            if now is None or now[0] != digest:  # indexed, deleted or saved again by another process
                return now is None or now[0] is None
            indexing.write(c, rows)
            if last:
                c.execute("DELETE FROM index_pending WHERE conversation_id = ?", (conv_id,))
        return True if last else None

    def _kept(self, conv_id: str, digest: str) -> Conversation | None:
        """The conversation saved or read last (`_last`), when it is `conv_id` as stored with `digest`."""
        last = self._last
        return last[1] if last is not None and last[0] == digest and last[1].id == conv_id else None

    @staticmethod
    def _parsed(c: Connection, conv_id: str) -> tuple[str, Conversation]:
        """The stored digest and conversation of `conv_id`, parsed from its document."""
        from .. import canonical  # (see the imports)

        document, digest = c.execute(
            "SELECT document, content_sha256 FROM conversations WHERE id = ?", (conv_id,)
        ).fetchone()
        return digest, canonical.loads(document)

    def checkpoint_deferred(self) -> None:
        """The host checkpoints the WAL after its reply instead of inside a save's commit (db.py,
        `defer_checkpoints`); passive, so it never waits for another process's readers."""
        try:
            if db.wal_unbackfilled(self.conn) >= db.CHECKPOINT_PAGES:
                self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite.Error as exc:  # the next one retries; other processes checkpoint too
            raise ArchiveError(f"could not checkpoint the archive: {exc}") from None

    def release_page_cache(self) -> None:
        """Free the connection's page cache (up to db.CACHE_KIB): the next reads decrypt their pages again."""
        try:
            self.conn.execute("PRAGMA shrink_memory").fetchone()
        except sqlite.Error as exc:
            raise ArchiveError(f"could not release the archive's page cache: {exc}") from None

    @contextmanager
    def small_page_cache(self) -> Iterator[None]:
        """The connection's page cache held to db.WRITE_CACHE_KIB while the block runs: rows written once
        and not read back (derived data a host stores while idle) would fill it to db.CACHE_KIB for nothing
        (6 MB of a host's memory after a 5 MB conversation's units)."""
        self._cache_size(db.WRITE_CACHE_KIB)
        try:
            yield
        finally:
            self._cache_size(db.CACHE_KIB)

    def _cache_size(self, kib: int) -> None:
        try:
            self.conn.execute(f"PRAGMA cache_size = -{int(kib)}")
        except sqlite.Error as exc:
            raise ArchiveError(f"could not size the archive's page cache: {exc}") from None

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
                only: str = rows[0][0]
                return only
            if len(rows) > 1:
                raise NotFoundError(f"conversation id {conv_id!r} is ambiguous; type more characters")
        raise NotFoundError(f"no conversation {conv_id!r} in the archive")

    def get(self, conv_id: str) -> Conversation:
        conv_id = self.resolve(conv_id)
        digest, site, source_id = self.conn.execute(
            "SELECT content_sha256, site, source_id FROM conversations WHERE id = ?", (conv_id,)
        ).fetchone()
        conv = self._kept(conv_id, digest)
        if conv is None:
            digest, conv = self._parsed(self.conn, conv_id)
            self._last = (digest, conv)
        # the attachments whose bytes the archive holds carry their sha256 (kept apart: a re-save keeps them)
        return attachments.annotate(conv, attachments.links(self.conn, site, source_id))

    def get_document(self, conv_id: str) -> str:
        conv_id = self.resolve(conv_id)
        document: str = self.conn.execute(
            "SELECT document FROM conversations WHERE id = ?", (conv_id,)
        ).fetchone()[0]
        return document

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
    ) -> tuple[list[dict[str, Any]], str | None]:
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
            # what this host issues: the order, the row's sort value (text, a whole number or none) and its id;
            # anything else is a cursor it never issued, not a value for SQLite to refuse (INTERNAL)
            issued_key = key is None or isinstance(key, str) or (type(key) is int and -(2**63) <= key < 2**63)
            if cursor_order != order or not issued_key or not isinstance(last_id, str):
                raise InputError("cursor is not one this host issued", code="BAD_CURSOR")
            op = "<" if direction == "DESC" else ">"
            where.append(f"({column} {op} ? OR ({column} = ? AND id {op} ?))")
            args += [key, key, last_id]
        sql = f"SELECT {SUMMARY_COLUMNS}, derived_title, {column} FROM conversations"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {column} {direction}, id {direction} LIMIT ?"
        rows = self.conn.execute(sql, (*args, limit + 1)).fetchall()
        more = len(rows) > limit
        rows = rows[:limit]
        next_cursor = _encode_cursor([order, rows[-1][-1], rows[-1][0]]) if more and rows else None
        items = []
        for row in rows:
            item = _summary(row[:-2])
            if not item["title"]:  # what tells untitled conversations apart (derived_title.py)
                item["first_words"] = row[-2]
            items.append(item)
        return items, next_cursor

    def derived_title(self, conv_id: str) -> str | None:
        """An untitled conversation's title from its first user message (None when it has a title)."""
        row = self.conn.execute("SELECT derived_title FROM conversations WHERE id = ?", (conv_id,)).fetchone()
        return None if row is None else row[0]

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

    def conversation_count(self) -> int:
        """How many conversations the archive holds (the library's total)."""
        return int(self.conn.execute("SELECT count(*) FROM conversations").fetchone()[0])

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
        self.index_pending()  # a deferred save is found as soon as its reply was sent
        return search_index(self.conn, query, limit=limit, site=site)


def open_archive(path: Path | None = None, *, create: bool = True) -> Archive:
    """Open (or create) the archive. A database without its key is an error, never replaced."""
    return Archive(*open_database(path, create=create))


def _pending_digest(c: Connection, conv_id: str) -> tuple[str | None] | None:
    """(the stored digest of `conv_id`, None once deleted) while its search index is pending; else None."""
    row: tuple[str | None] | None = c.execute(
        "SELECT c.content_sha256 FROM index_pending p"
        " LEFT JOIN conversations c ON c.id = p.conversation_id WHERE p.conversation_id = ?",
        (conv_id,),
    ).fetchone()
    return row
