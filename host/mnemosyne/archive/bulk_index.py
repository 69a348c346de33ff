"""The search index of a bulk import, written in large chunks on a worker thread.

Written per saved conversation, the three FTS5 tables flush a segment on every commit and then merge those
segments again and again (about 40 % of a 2,000-conversation import went there). An import instead saves each
batch with an `index_pending` row per conversation (as the host's deferred saves do: a kill loses no
search, the next search indexes what is pending from the stored document) and keeps the index rows of
what it saved: text, not the conversations. Once CHUNK_CHARS of text wait, one transaction writes them
with one INSERT ... SELECT per table (indexing.write_many): SQLite does the whole chunk in C without the
GIL, on the writer thread, while the import reads and converts the next conversations.

The import hands its saves to the same writer thread (`submit`): one connection, one transaction at a time,
in order, and the reading thread never waits for SQLite unless the writer is IN_FLIGHT batches behind
(service/imports.py). Every other use of the connection waits for the writer's jobs first (`wait`,
called by the archive's writes). A chunk indexes a conversation only while it is still pending
with the digest it was saved with; anything else (a save by another process meanwhile, a failed chunk)
stays pending for `Archive.index_pending`, which `finish` runs so the import returns with everything
searchable.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any, NamedTuple, TypeVar

from . import indexing
from .db import Transaction, sqlite

# Index text per chunk: ~0.4 s of FTS work. The peak memory of an import grows with it: about 12 bytes
# a character (the chunk being written in its JSON, UTF-8 and SQLite forms, and the next one waiting).
CHUNK_CHARS = 2_000_000
# The first chunk is this share of CHUNK_CHARS and each next one twice the last, up to CHUNK_CHARS: the
# writer thread is an import's slowest part, and it idled until the first full chunk was read (~0.3 s).
FIRST_CHUNK_SHARE = 8
# FTS5 flushes its in-memory terms to a new segment at 1 MB by default: a chunk would leave several to
# merge. 32 MiB holds a chunk's terms (a cap, not an allocation; saved in the tables' config).
HASH_BYTES = 32 << 20
TABLES = ("messages_fts", "messages_tri", "messages_cjk")
# WAL pages between checkpoints while importing (64 MiB) instead of SQLite's 1,000: each checkpoint copies
# the pages written since the last one into the database and fsyncs both files, and an import rewrites the
# same b-tree and index pages batch after batch (2,000 conversations: 116 fsyncs -> 53, 370 -> 337 MB
# written). Durability is unchanged: each commit is in the WAL, fsynced, before it returns.
CHECKPOINT_PAGES = 16_384
# FTS5 merges its segments as it goes once AUTOMERGE of them are at one level: with SQLite's 4, each of an
# import's chunks (one segment each) was rewritten again every 4 chunks, 16 and 64 (2,000 conversations: a
# writer thread 7 % slower, the import's slowest part). While importing up to IMPORT_AUTOMERGE wait at a
# level, so a segment is rewritten log16 instead of log4 times; after it the host's saves merge as before.
AUTOMERGE = 4
IMPORT_AUTOMERGE = 16


def growing(full: int, first_share: int) -> Iterator[int]:
    """Sizes that start at `full` / `first_share` and double up to `full`, then stay there: an import's
    batches and index chunks, so the writer thread (its slowest part) starts before a whole one is read."""
    size = max(1, full // first_share)
    while True:
        yield size
        size = min(full, size * 2)


class _Saved(NamedTuple):
    digest: str
    bulk: indexing.Bulk


T = TypeVar("T")


class _Submitted:
    """A save handed to the writer thread, and where its result (or error) goes."""

    def __init__(self, job: Callable[[], Any], future: Future[Any]):
        self.job, self.future = job, future

    def __call__(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            self.future.set_result(self.job())
        except BaseException as exc:  # the submitter re-raises it from the future
            self.future.set_exception(exc)
        finally:
            self.job = _stop  # the batch it held is saved


def _stop() -> None:
    pass


_STOP = _stop  # the writer thread's last job


class BulkIndex:
    def __init__(self, conn: sqlite.Connection):
        self.conn = conn
        self._waiting: dict[str, _Saved] = {}
        self._chars = 0
        self._chunk_sizes = growing(CHUNK_CHARS, FIRST_CHUNK_SHARE)
        self._chunk_chars = next(self._chunk_sizes)  # the next chunk's size
        # the writer thread's jobs (saves handed over by `submit`, index chunks), run one at a time in order
        self._jobs: deque[Callable[[], None]] = deque()
        self._running = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._error: Exception | None = None
        for table in TABLES:
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('hashsize', {HASH_BYTES})")
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', {IMPORT_AUTOMERGE})")
        self._checkpoint_pages = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        if self._checkpoint_pages:  # 0: the owner checkpoints when idle (the host), and still does
            conn.execute(f"PRAGMA wal_autocheckpoint = {max(CHECKPOINT_PAGES, self._checkpoint_pages)}")

    def close(self, cancel: bool = False) -> None:
        """After the import: the writer thread's jobs are done (`cancel`: those not started are dropped, after
        an error), the thread has stopped, the connection has its checkpoints back."""
        if cancel:
            with self._changed:
                for job in self._jobs:
                    if isinstance(job, _Submitted):
                        job.future.cancel()
                self._jobs.clear()
        self.wait()
        with self._changed:
            self._jobs.append(_STOP)
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        try:
            with Transaction(self.conn) as c:  # (before the checkpoints: this commit is not to start one)
                for table in TABLES:
                    c.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', {AUTOMERGE})")
        except sqlite.Error:
            pass  # (a full disk, say): FTS5 keeps merging 16 at a time, and the import's own error stays the one raised
        self.conn.execute(f"PRAGMA wal_autocheckpoint = {self._checkpoint_pages}")

    def submit(self, job: Callable[[], T], limit: int = 2) -> Future[T]:
        """Run `job` (a save) on the writer thread after the jobs before it; waits first while `limit` saves
        are queued, so what is handed over stays bounded. The caller takes its result from the future."""
        future: Future[T] = Future()
        with self._changed:
            while sum(isinstance(j, _Submitted) for j in self._jobs) >= limit:
                self._changed.wait()
            self._jobs.append(_Submitted(job, future))
            self._changed.notify_all()
        self._ensure_thread()
        return future

    def add(self, conv_id: str, digest: str, bulk: indexing.Bulk) -> None:
        """A conversation saved (pending) in the current transaction; a later save of the same id replaces it."""
        old = self._waiting.pop(conv_id, None)
        if old is not None:
            self._chars -= old.bulk.chars
        saved = _Saved(digest, bulk)
        self._waiting[conv_id] = saved
        self._chars += saved.bulk.chars

    def committed(self) -> None:
        """After a commit: the waiting rows are indexed on the writer thread once they make a chunk."""
        if self._chars >= self._chunk_chars:
            chunk, self._waiting, self._chars = self._waiting, {}, 0
            self._chunk_chars = next(self._chunk_sizes)
            with self._changed:
                self._jobs.append(lambda: self._write_quietly(chunk))
                self._changed.notify_all()
            self._ensure_thread()

    def busy(self) -> bool:
        """Whether the writer thread has work (the connection is in use)."""
        with self._changed:
            return self._running or bool(self._jobs)

    def wait(self) -> None:
        """Until the writer thread's jobs are done: the connection is free again. On the writer thread
        itself (a save it runs) there is nothing to wait for: its jobs run one at a time."""
        if threading.current_thread() is self._thread:
            return
        with self._changed:
            while self._running or self._jobs:
                self._changed.wait()

    def finish(self) -> None:
        """Index everything still waiting, in this thread, once the writer thread's jobs are done."""
        self.wait()
        if self._error is not None:
            raise self._error
        chunk, self._waiting, self._chars = self._waiting, {}, 0
        if chunk:
            self._write(chunk)

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="bulk-writer", daemon=True)
            self._thread.start()

    def _work(self) -> None:
        while True:
            with self._changed:
                while not self._jobs:
                    self._changed.wait()
                job = self._jobs.popleft()
                if job is _STOP:
                    return
                self._running = True
            try:
                job()
            except Exception as exc:  # a chunk's bug: its conversations stay pending; finish() raises it
                self._error = exc
            finally:
                del job  # what it holds (a batch, a chunk's text) is freed now, not when the next job comes
                with self._changed:
                    self._running = False
                    self._changed.notify_all()

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
