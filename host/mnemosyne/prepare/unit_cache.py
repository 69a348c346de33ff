"""A process's units of message texts, made once per text and kept between builds.

Splitting and terming a message is most of a build's cost. Its units are kept in-process by the text itself
(a warm host builds the same conversation again), read back from the archive's stored units where memory
does not hold them (unit_store: about a third of the time a split takes), and otherwise split: for a long
history never seen, shared with a helper process (shared_work: a child forked for it, or the host's split
worker, split_worker.py, which may have started ahead).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

# (the splitting modules and the helpers load when a text is first split or read back: `mnemo context` of a
# conversation that fits by its byte count loads none of them)
if TYPE_CHECKING:
    from ..context.units import TextUnits
    from .split_worker import Job, WorkerSlot


def _keep_all() -> bool:
    return True


# The units of a message's text, kept in-process: a warm host builds the same conversation again (the
# preview, then the paste; the conversation grown by a turn). Keyed by the text itself, so a hit is
# exact. The terms are what takes memory (measured 140-250 bytes each, Chinese bigrams the smaller):
# least recently used texts go first once CACHE_TERMS terms are held, about 40-80 MB.
CACHE_TERMS = 300_000


class UnitCache:
    """The units of texts (a UnitSource, see context/memory.py) kept in memory, read back from the archive's
    units on offer, or split here and by a helper process (the host's worker, `workers`, when it runs)."""

    def __init__(self, workers: WorkerSlot | None = None) -> None:
        self.workers = workers
        self._cache: OrderedDict[str, TextUnits] = OrderedDict()
        self._terms = 0  # terms the cache holds (TextUnits.held)
        # Units stored in the archive for the conversation at hand (unit_store: key -> packed units), offered
        # by the service while a build or a preparation runs: a text not in memory is read back from them
        # (about a third of the time its split takes) before it is split. Read from the archive on the first
        # text not in memory: a warm build reads nothing.
        self._offer: Callable[[], dict[bytes, bytes]] | None = None
        self._offered: dict[bytes, bytes] | None = None
        # The job the host's worker was given ahead for the conversation `_ahead_owner` (split_ahead), and the
        # place of each text in the list it was given, by the text's hash: texts guessed before the read are
        # the payload's strings, which would otherwise outlive it (14 MB of a 5 MB English conversation's,
        # with the UTF-8 copies the JSON parser left on them). A hash shared by two texts only misplaces one.
        self._ahead: Job | None = None
        self._ahead_owner: str | None = None
        self._ahead_places: dict[int, int] = {}

    @property
    def terms(self) -> int:
        """The terms the cache holds (its bound is CACHE_TERMS)."""
        return self._terms

    def texts(self) -> list[str]:
        """The texts whose units are in memory, least recently used first."""
        return list(self._cache)

    def holds(self, text: str) -> bool:
        return text in self._cache

    def clear(self) -> None:
        """Nothing of any text in memory, and no job ahead."""
        self.end_ahead()
        self._cache.clear()
        self._terms = 0

    def keep_only(self, texts: set[str]) -> None:
        """Let go of the units of every text but `texts`."""
        for text in [text for text in self._cache if text not in texts]:
            self._terms -= self._cache.pop(text).held

    @contextmanager
    def offered(self, read: Callable[[], dict[bytes, bytes]]) -> Iterator[None]:
        """Units of texts from the archive (`read()` gives them), read back instead of split while the block
        runs."""
        self._offer, self._offered = read, None
        try:
            yield
        finally:
            self._offer = self._offered = None

    def units_of_texts(
        self, texts: list[str], keep_going: Callable[[], bool] = _keep_all
    ) -> dict[str, TextUnits]:
        """The units of each of `texts` (shared: read only), by text: from memory, else read back from the
        archive's units on offer, else split, all at once: with the worker splitting ahead when it is
        (`split_ahead`), else shared with a helper forked for them where there are many (shared_work: a
        history never seen). `texts` are a path's in order (a helper ahead lists them so). Stops when
        `keep_going()` says so: the texts not made by then are missing."""
        out: dict[str, TextUnits] = {}
        places: dict[str, int] = {}  # text not in memory -> its first place in `texts`
        for place, text in enumerate(texts):
            if text in out or text in places:
                continue
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                out[text] = hit
            else:
                places[text] = place
        new = [(place, text) for text, place in places.items()]
        if new and self._offer is not None and self._offered_units():  # (a conversation just saved has none)
            for _, text in new:
                stored = self._stored_units(text)
                if stored is not None:
                    out[text] = stored
                    self._keep(text, stored)
                    if not keep_going():
                        return out
            new = [(place, text) for place, text in new if text not in out]
        if new:
            made = self._split(new, keep_going)
            for _, text in new:
                units = made.get(text)
                if units is not None:
                    out[text] = units
                    self._keep(text, units)
        return out

    def text_units(self, text: str) -> TextUnits:
        """The units of `text`: the ones in memory, else split (and not kept: for storing them)."""
        from ..context.units import split_units  # (see the imports)

        hit = self._cache.get(text)
        return hit if hit is not None else split_units(text)

    def _split(self, new: list[tuple[int, str]], keep_going: Callable[[], bool]) -> dict[str, TextUnits]:
        """The units of the `new` texts ((place, text)), split here and by a helper (see units_of_texts)."""
        # (see the imports)
        from ..context.units import fields_of, from_fields, split_units
        from .shared_work import MIN_CHARS, map_shared

        if self._ahead is not None:
            # (their places in the job's list, which need not be the path's: texts guessed before the read)
            wanted = sorted((self._ahead_places.get(hash(text), -1), text) for _, text in new)
            made = self._ahead.share(split_units, wanted, from_fields, keep_going)
            if len(made) == len(new):  # what the worker made ahead is all taken
                self.end_ahead()
            return made
        texts = [text for _, text in new]
        worker = self.workers.current() if self.workers is not None else None
        job = worker.submit(texts) if worker is not None and sum(map(len, texts)) >= MIN_CHARS else None
        if job is None:
            shared = map_shared(split_units, texts, fields_of, from_fields, keep_going)
            return {text: units for text, units in zip(texts, shared) if units is not None}
        try:
            return job.share(split_units, list(enumerate(texts)), from_fields, keep_going)
        finally:
            job.end()

    def split_ahead(self, owner: str, texts: Callable[[], list[str]]) -> None:
        """Have the host's worker process split the texts `texts()` gives (in the order a build lists them,
        or a guess of them) but those in memory, while this process goes on: a host storing a long
        conversation never seen, whose context is asked for next. The units_of_texts that wants them takes
        what it made. `owner`: the id of the conversation (end_ahead unless it is the one turned to).
        Nothing without a worker."""
        self.end_ahead()
        worker = self.workers.current() if self.workers is not None else None
        if worker is not None:
            listed = [None if text in self._cache else text for text in texts()]
            self._ahead = worker.submit(listed)
            if self._ahead is not None:
                self._ahead_owner = owner
                self._ahead_places = {
                    hash(text): place for place, text in reversed(list(enumerate(listed))) if text
                }

    def splitting_ahead(self, owner: str) -> bool:
        """Whether the worker has a job given ahead for the conversation `owner`."""
        return self._ahead is not None and self._ahead_owner == owner

    @property
    def ahead(self) -> Job | None:
        """The job given ahead, if any."""
        return self._ahead

    @property
    def ahead_owner(self) -> str | None:
        return self._ahead_owner

    def end_ahead(self, unless: str | None = None) -> None:
        """Stop the job given ahead, if any and not `unless`'s (what it made and nobody took is lost)."""
        if self._ahead_owner is not None and self._ahead_owner == unless:
            return
        if self._ahead is not None:
            self._ahead.end()
        self._ahead, self._ahead_owner, self._ahead_places = None, None, {}

    def _keep(self, text: str, units: TextUnits) -> None:
        """`units` into the cache, the least recently used texts let go past CACHE_TERMS."""
        self._cache[text] = units
        self._terms += units.held
        while self._terms > CACHE_TERMS and self._cache:
            _, old = self._cache.popitem(last=False)
            self._terms -= old.held

    def _offered_units(self) -> dict[bytes, bytes]:
        """The units on offer (read from the archive on first use)."""
        if self._offered is None:
            assert self._offer is not None
            self._offered = self._offer()
        return self._offered

    def _stored_units(self, text: str) -> TextUnits | None:
        from . import unit_store  # (see the imports)

        blob = self._offered_units().get(unit_store.key(text))
        return None if blob is None else unit_store.unpack(blob)
