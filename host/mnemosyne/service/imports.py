"""Importing files, folders and export zips into the archive, in batches, lazily."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InputError, MnemosyneError

if TYPE_CHECKING:
    from ..archive import Archive
    from ..archive.writes import Prepared
    from ..model import Conversation
    from ..readers import RawInput

SAVE_BATCH = 50  # conversations per transaction: one commit, one fsync, per batch
# While the search index of earlier batches is written (Archive.bulk_import, on a worker thread, holding
# the connection), the import reads and counts ahead instead of waiting, up to this many conversations.
READ_AHEAD = 100


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
    from ..token_policy import import_counter

    run = _Import(arc, fmt, import_counter() if count_tokens else None, on_failure, progress)
    with arc.bulk_import():
        for path in paths:
            try:
                run.path(path)
            except InputError as exc:
                run.fail(exc.message)
        run.save()
    return run.totals


class _Import:
    batch: list[Conversation]  # read, not saved yet
    counted: dict[int, tuple[Conversation, dict[str, int]]]  # counted ahead, by id()
    prepared: dict[int, Prepared]  # made ahead, by id()

    def __init__(self, arc, fmt, counter, on_failure, progress):
        self.arc, self.fmt, self.counter = arc, fmt, counter
        self.on_failure, self.progress = on_failure, progress
        self.totals = ImportTotals()
        self.batch, self.counted, self.prepared = [], {}, {}

    def fail(self, line: str) -> None:
        self.totals.failed += 1
        self.totals.failures.append(line)
        self.on_failure(line)

    def path(self, path: str) -> None:
        """A large export arrives in batches (never parsed whole); its bar counts the characters read,
        other files count their conversations."""
        from ..readers.streaming import iter_inputs

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
        from ..readers import ReadContext, ReadFailure, read_raw

        try:
            for item in read_raw(raw, ReadContext(), self.fmt):
                if isinstance(item, ReadFailure):
                    self.fail(item.describe())
                else:
                    self.add(item)
                step()
        except MnemosyneError as exc:
            where = "" if exc.message.startswith(raw.name) else f"{raw.name}: "  # the path once
            self.fail(f"{where}{exc.message}")

    def add(self, conv: Conversation) -> None:
        """Saved with the next batch; while the archive is busy writing the search index, counted and
        prepared (document, digest, index text) now, beside SQLite (the tokenizer runs without the GIL too),
        so the save's transaction is its SQL alone; saved once the archive is free or READ_AHEAD wait."""
        from ..archive.writes import prepare

        self.batch.append(conv)
        busy = self.arc.bulk_index is not None and self.arc.bulk_index.busy()
        if busy:
            self.prepared[id(conv)] = prepare(conv)
            if self.counter is not None:
                self.counted[id(conv)] = (conv, self.counter(conv))
        if len(self.batch) >= (READ_AHEAD if busy else SAVE_BATCH):
            self.save()

    def count(self, saved: Conversation) -> dict[str, int]:
        """Token counts of what was saved: the ones counted ahead when it is the conversation as read."""
        ahead = self.counted.get(id(saved))
        return ahead[1] if ahead is not None and ahead[0] is saved else self.counter(saved)

    def save(self) -> None:
        from ..token_policy import COUNTED_ENCODING
        from .save import save_conversations

        convs, self.batch = self.batch, []
        counter = None if self.counter is None else self.count
        results = save_conversations(self.arc, convs, counter, COUNTED_ENCODING, prepared=self.prepared)
        self.counted.clear()
        self.prepared.clear()
        for conv, result in zip(convs, results):
            if isinstance(result, MnemosyneError):
                self.fail(f"{conv.title or conv.id}: {result.message}")
            else:
                setattr(self.totals, result.status, getattr(self.totals, result.status) + 1)
