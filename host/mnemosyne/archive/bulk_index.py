"""The search index of a bulk import, written in large chunks on a worker thread.

Written per saved conversation, the three FTS5 tables flush a segment on every commit and then merge those
segments again and again (about 40 % of a 2,000-conversation import went there). An import instead saves each
batch with an `index_pending` row per conversation (as the host's deferred saves do: a kill loses no
search, the next search indexes what is pending from the stored document) and keeps the index rows of
what it saved: text, not the conversations. Once CHUNK_CHARS of text wait, one transaction writes them
with one INSERT ... SELECT per table (indexing.write_many): SQLite does the whole chunk in C without the
GIL, on a worker thread, while the import reads and converts the next conversations.

One connection, one transaction at a time: every other use of the connection waits for the chunk first
(`wait`, called by the archive's writes). A chunk indexes a conversation only while it is still pending
with the digest it was saved with; anything else (a save by another process meanwhile, a failed chunk)
stays pending for `Archive.index_pending`, which `finish` runs so the import returns with everything
searchable.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

from . import indexing
from .db import CACHE_KIB as SEARCH_CACHE_KIB
from .db import Transaction, sqlite

# Index text per chunk: ~0.4 s of FTS work. The peak memory of an import grows with it: about 12 bytes
# a character (the chunk being written in its JSON, UTF-8 and SQLite forms, and the next one waiting).
CHUNK_CHARS = 2_000_000
# FTS5 flushes its in-memory terms to a new segment at 1 MB by default: a chunk would leave several to
# merge. 32 MiB holds a chunk's terms (a cap, not an allocation; saved in the tables' config).
HASH_BYTES = 32 << 20
# The page cache while importing: appends need few pages, and the 32 MiB a wide search wants (db.py) was
# a sixth of an import's peak memory (the worker thread's pages sit in a second malloc arena)
CACHE_KIB = 8 * 1024
TABLES = ("messages_fts", "messages_tri", "messages_cjk")


class _Saved(NamedTuple):
    digest: str
    bulk: indexing.Bulk


class BulkIndex:
    def __init__(self, conn: sqlite.Connection):
        self.conn = conn
        self._waiting: dict[str, _Saved] = {}
        self._chars = 0
        self._thread: threading.Thread | None = None
        for table in TABLES:
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('hashsize', {HASH_BYTES})")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")

    def close(self) -> None:
        """After the import: the chunk being written is done, the connection has its search cache back."""
        self.wait()
        self.conn.execute(f"PRAGMA cache_size = -{SEARCH_CACHE_KIB}")

    def add(self, conv_id: str, digest: str, bulk: indexing.Bulk) -> None:
        """A conversation saved (pending) in the current transaction; a later save of the same id replaces it."""
        old = self._waiting.pop(conv_id, None)
        if old is not None:
            self._chars -= old.bulk.chars
        saved = _Saved(digest, bulk)
        self._waiting[conv_id] = saved
        self._chars += saved.bulk.chars

    def committed(self) -> None:
        """After a commit: index the waiting rows on the worker thread once they make a chunk."""
        if self._chars >= CHUNK_CHARS:
            self._start(background=True)

    def busy(self) -> bool:
        """Whether a chunk is being written (the connection is in use)."""
        return self._thread is not None and self._thread.is_alive()

    def wait(self) -> None:
        """Until the chunk being written (if any) is done: the connection is free again."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def finish(self) -> None:
        """Index everything still waiting, in this thread."""
        self._start(background=False)

    def _start(self, background: bool) -> None:
        self.wait()
        chunk, self._waiting, self._chars = self._waiting, {}, 0
        if not chunk:
            return
        if background:
            self._thread = threading.Thread(target=self._write_quietly, args=(chunk,), daemon=True)
            self._thread.start()
        else:
            self._write(chunk)

    def _write_quietly(self, chunk: dict[str, _Saved]) -> None:
        try:
            self._write(chunk)
        except sqlite.Error:
            pass  # rolled back: the chunk's conversations stay pending; finish() indexes them again

    def _write(self, chunk: dict[str, _Saved]) -> None:
        # derived data: no fsync for its commit (see Archive._index_pending); the save's own commit had one
        self.conn.execute("PRAGMA synchronous = NORMAL")
        try:
            with Transaction(self.conn) as c:
                ids = list(chunk)
                ready: set[str] = set()
                for start in range(0, len(ids), 500):
                    part = ids[start : start + 500]
                    marks = ",".join("?" * len(part))
                    stored = c.execute(
                        "SELECT p.conversation_id, c.content_sha256 FROM index_pending p"
                        f" JOIN conversations c ON c.id = p.conversation_id WHERE p.conversation_id IN ({marks})",
                        part,
                    ).fetchall()
                    found = [conv_id for conv_id, digest in stored if chunk[conv_id].digest == digest]
                    c.execute(
                        f"DELETE FROM index_pending WHERE conversation_id IN ({','.join('?' * len(found))})",
                        found,
                    )
                    ready.update(found)
                # in the order saved, so rowids only grow: FTS5 writes its pending terms out as a new
                # segment whenever a rowid is lower than the last one (out of order, a chunk made dozens)
                items = [saved.bulk for conv_id, saved in chunk.items() if conv_id in ready]
                chunk.clear()  # the text is held by `items` alone, which write_many empties
                indexing.write_many(c, items)
        finally:
            self.conn.execute("PRAGMA synchronous = FULL")
