"""Importing files, folders and export zips into the archive, in batches, lazily."""

from __future__ import annotations

import gc
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..archive.bulk_index import growing
from ..archive.writes import prepare
from ..errors import InputError, MnemosyneError
from ..readers import ReadContext, ReadFailure, read_raw
from ..readers.streaming import iter_inputs
from ..tokens.policy import COUNTED_ENCODING
from .export_files import keep_shipped_files, reader_of, shipped_files
from .save import save_conversations
from .token_counts import import_counter

if TYPE_CHECKING:
    from ..archive import Archive
    from ..archive.writes import Prepared
    from ..model import Conversation
    from ..readers import RawInput

SAVE_BATCH = 100  # conversations per transaction: one commit, one fsync (synchronous=FULL), per batch
# A batch also ends once its documents reach this many bytes: an import holds up to three batches (one
# read, one waiting, one saving), each as conversations, documents and index text, so a count alone let
# its memory follow how much text 100 conversations carry (100 long ones: 100 MB of documents).
SAVE_BYTES = 2 * 1024 * 1024
# The first batch is this share of SAVE_BATCH and each next one twice the last, up to SAVE_BATCH: the
# writer thread (the slowest part) starts on the first 12 conversations, not after 100 are read.
FIRST_BATCH_SHARE = 8
# Batches handed to the writer thread and not started yet: reading goes on while it saves and indexes
# (bounded, as each batch holds its documents); the import waits only when the writer is this far behind.
IN_FLIGHT = 1
GC_THRESHOLD = (10_000, 10, 10)  # see _tuned_for_bulk
SWITCH_INTERVAL = 0.001  # seconds


class Bar(Protocol):
    count: int

    def step(self, n: int = 1) -> None: ...
    def done(self) -> None: ...


class _NoBar:
    def __init__(self, total: int = 0, label: str = "", min_total: int = 0):
        self.count = 0

    def step(self, n: int = 1) -> None:
        self.count += n

    def done(self) -> None:
        pass


@dataclass
class ImportTotals:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    kept: int = 0  # partial inputs that did not replace a complete copy
    files: int = 0  # attachment files an export shipped, kept in the archive
    failed: int = 0
    failures: list[str] = field(default_factory=list)  # one readable line per failed input or conversation

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("created", "updated", "unchanged", "failed")}


def import_paths(
    arc: Archive,
    paths: Iterable[str],
    fmt: str | None = None,
    *,
    count_tokens: bool = True,
    on_failure: Callable[[str], None] = lambda line: None,
    progress: Callable[..., Bar] = _NoBar,
) -> ImportTotals:
    """Every conversation under `paths` into `arc`. A broken input or conversation is counted and
    reported through `on_failure`; the rest still go in. `progress(total, label, min_total=)` makes a bar."""

    run = _Import(arc, fmt, import_counter() if count_tokens else None, on_failure, progress)
    with arc.bulk_import(), _tuned_for_bulk():
        for path in paths:
            try:
                run.path(path)
            except InputError as exc:
                run.fail(exc.message)
        run.finish()
    return run.totals


@contextmanager
def _tuned_for_bulk() -> Iterator[None]:
    """The interpreter set for one reading thread beside the writer thread, and put back after.

    Cycle collection: an import makes millions of short-lived objects (parsed JSON, models) that form no
    cycles; at the default threshold (700) the collector ran about 880 times in a 2,000-conversation import,
    0.5 s of its reading thread's 4 s, at GC_THRESHOLD about 30 times, 0.2 s. Reference counting still
    frees everything as it goes.
    Switch interval: the writer needs the GIL back after each SQLite statement, and waits until the reading
    thread lets go of it, up to the interval (5 ms by default). Beside a busy reading thread, saving 800
    conversations took 1.9-3.0 s of the writer's time for 0.35 s of CPU; at SWITCH_INTERVAL 0.6-0.9 s."""
    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    gc.set_threshold(*GC_THRESHOLD)
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)


class _Import:
    """Reads, converts, counts and serialises on the calling thread; the archive's writer thread
    (Archive.bulk_import) saves each batch and writes the search index meanwhile."""

    ahead = True  # count and prepare each conversation here, not inside its save (tests turn it off)
    batch: list[Conversation]  # read, not handed over yet
    counted: dict[int, tuple[Conversation, dict[str, int]]]  # counted ahead, by id()
    prepared: dict[int, Prepared]  # made ahead, by id()
    saving: deque[tuple[list[str], Future[Any]]]  # each batch handed over (its labels), oldest first

    def __init__(
        self,
        arc: Archive,
        fmt: str | None,
        counter: Callable[[Conversation], dict[str, int]] | None,
        on_failure: Callable[[str], None],
        progress: Callable[..., Bar],
    ) -> None:
        self.arc, self.fmt, self.counter = arc, fmt, counter
        self.on_failure, self.progress = on_failure, progress
        self.totals = ImportTotals()
        self.batch, self.counted, self.prepared, self.saving = [], {}, {}, deque()
        self.filing: list[Future[int]] = []  # attachment files handed to the writer thread
        self.batch_bytes = 0  # of the batch's documents made ahead

        self.batch_sizes = growing(SAVE_BATCH, FIRST_BATCH_SHARE)
        self.batch_size = next(self.batch_sizes)  # the next batch's

    def fail(self, line: str) -> None:
        self.totals.failed += 1
        self.totals.failures.append(line)
        self.on_failure(line)

    def path(self, path: str) -> None:
        """A large export arrives in batches (never parsed whole); its bar counts the characters read,
        other files count their conversations."""

        bar: Bar | None = None
        for raw in iter_inputs(path):
            if raw.progress is None:
                whole = self.progress(len(raw.data) if isinstance(raw.data, list) else 1, Path(raw.name).name)
                self.raw(raw, whole.step)
                whole.done()
                continue
            bar = bar or self.progress(raw.progress[1], Path(raw.name.split(":")[-1]).name, min_total=0)
            self.raw(raw, lambda: None)
            bar.step(raw.progress[0] - bar.count)
            if raw.progress[0] >= raw.progress[1]:
                bar.done()
                bar = None

    def raw(self, raw: RawInput, step: Callable[[], Any]) -> None:

        try:
            for item in read_raw(raw, ReadContext(), self.fmt):
                if isinstance(item, ReadFailure):
                    self.fail(item.describe())
                else:
                    self.add(item)
                    self.keep_files(item, raw.members)
                step()
        except MnemosyneError as exc:
            where = "" if exc.message.startswith(raw.name) else f"{raw.name}: "  # the path once
            self.fail(f"{where}{exc.message}")

    def add(self, conv: Conversation) -> None:
        """Counted and prepared (document, digest, index text) now, so the save's transaction on the
        writer thread is its SQL alone; handed over with its batch."""

        self.batch.append(conv)
        if self.ahead:
            prepared = self.prepared[id(conv)] = prepare(conv)
            self.batch_bytes += len(prepared.document)
            if self.counter is not None:
                self.counted[id(conv)] = (conv, self.counter(conv))
        if len(self.batch) >= self.batch_size or self.batch_bytes >= SAVE_BYTES:
            self.save()

    def keep_files(self, conv: Conversation, members: dict[str, Any]) -> None:
        """The attachment files the export ships for `conv`, read here and stored by the writer thread."""

        read = reader_of(members)
        if read is None or not conv.source.conversation_id:
            return
        files = shipped_files(conv, read)
        if files:
            assert self.arc.bulk_index is not None  # import_paths saves inside Archive.bulk_import
            job = partial(keep_shipped_files, self.arc, conv.source.site, conv.source.conversation_id, files)
            self.filing.append(self.arc.bulk_index.submit(job, limit=IN_FLIGHT))

    def save(self) -> None:
        """Hand the batch to the writer thread (waiting while IN_FLIGHT batches wait for it), and take in
        the results of the batches it has saved."""

        convs, counted, prepared = self.batch, self.counted, self.prepared
        self.batch, self.counted, self.prepared, self.batch_bytes = [], {}, {}, 0
        if convs:
            own = self.counter

            def count(saved: Conversation) -> dict[str, int]:
                """The counts made ahead when it is the conversation as read (not a merge)."""
                ahead = counted.get(id(saved))
                if ahead is not None and ahead[0] is saved:
                    return ahead[1]
                assert own is not None  # count is handed on only with a counter
                return own(saved)

            counter = None if own is None else count
            assert self.arc.bulk_index is not None  # import_paths saves inside Archive.bulk_import
            job = partial(save_conversations, self.arc, convs, counter, COUNTED_ENCODING, prepared=prepared)
            labels = [
                conv.title or conv.id for conv in convs
            ]  # not the conversations: memory is freed once saved
            self.saving.append((labels, self.arc.bulk_index.submit(job, limit=IN_FLIGHT)))
            self.batch_size = next(self.batch_sizes)
        while self.saving and self.saving[0][1].done():
            self._saved(*self.saving.popleft())

    def finish(self) -> None:
        """The last batch saved, and every result taken in."""
        self.save()
        while self.saving:
            self._saved(*self.saving.popleft())
        for future in self.filing:
            try:
                self.totals.files += future.result()
            except MnemosyneError as exc:  # one file refused (too large): the conversation is saved
                self.on_failure(f"an attachment file was not kept: {exc.message}")

    def _saved(self, labels: list[str], future: Future[Any]) -> None:
        for label, result in zip(labels, future.result()):
            if isinstance(result, MnemosyneError):
                self.fail(f"{label}: {result.message}")
            else:
                setattr(self.totals, result.status, getattr(self.totals, result.status) + 1)
