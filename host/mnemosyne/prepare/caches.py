"""What a process keeps between context builds: its texts' units, its conversations' corpora, its token
counts, its texts' redactions. `Caches` is the context engine's Memory (context/memory.py) that the service layer hands to every
build and preparation of a process, and the one place that decides what stays in memory.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from . import unit_cache
from .redaction_memo import RedactionMemo
from .unit_cache import UnitCache

# (corpora, their stored form and the engine's units load with the first corpus: `mnemo context` of a
# conversation that fits by its byte count loads none of them)
if TYPE_CHECKING:
    from ..context.corpus import Corpus
    from ..context.counting import CountMemo
    from ..context.turns import Turn
    from ..context.units import TextUnits
    from .split_worker import WorkerSlot


def _keep_all() -> bool:
    return True


# The corpora of the last conversations built, with their relevance to the query: a warm host builds the
# same conversation again (the preview, then the paste, or at another budget), and its statistics,
# relevance and units' weights are the same each time. Two: a conversation and its redacted copy.
MAX_CORPORA = 2


class Caches:
    """A process's units, corpora, token counts and redactions kept between builds (see the module)."""

    def __init__(self, workers: WorkerSlot | None = None) -> None:
        self.units = UnitCache(workers)
        self.counts: CountMemo = {}
        self.redactions = RedactionMemo()  # (let go of by the host with the rest: Preparation.turn_to)
        self.corpora: OrderedDict[tuple[Any, ...], Corpus] = OrderedDict()
        self._held: str | None = None  # the conversation hold_only was last called for
        # The conversation's corpora stored in the archive (corpus_store: key -> packed corpus), offered with
        # its units (offered) while a build or a preparation runs: a corpus not in memory is read back from
        # them when its key is there (the same turns and query).
        self._offer_corpora: Callable[[], dict[bytes, bytes]] | None = None

    def units_of_texts(
        self, texts: list[str], keep_going: Callable[[], bool] = _keep_all
    ) -> dict[str, TextUnits]:
        return self.units.units_of_texts(texts, keep_going)

    def clear(self) -> None:
        """Nothing of any conversation in memory: its texts' units, its corpora, its counts, its redactions."""
        self.units.clear()
        self.corpora.clear()
        self.counts.clear()
        self.redactions.clear()
        self._held = None

    @contextmanager
    def offered(
        self,
        read: Callable[[], dict[bytes, bytes]],
        read_corpora: Callable[[], dict[bytes, bytes]] | None = None,
    ) -> Iterator[None]:
        """Units of texts from the archive (`read()` gives them), read back instead of split while the block
        runs, and its corpora (`read_corpora()`), read back instead of made."""
        self._offer_corpora = read_corpora
        try:
            with self.units.offered(read):
                yield
        finally:
            self._offer_corpora = None

    def corpus_of(
        self,
        turns: list[Turn],
        query: dict[str, str],
        skip: set[int],
        owner: str = "",
        default: bool = False,
        made: dict[str, TextUnits] | None = None,
    ) -> Corpus:
        """The corpus of `turns` scored against `query` (`skip`: the turns the query came from); `owner` is
        the id of the conversation they are of (see hold_only); `default`: the query is the conversation's
        own (no focus), so the corpus may be read from the archive and stored there (corpus_store). `made`:
        the units of the turns' texts made already (by text), taken before the unit cache's."""
        from ..context.corpus import Corpus  # (see the imports)

        key = _key(turns, query, skip)
        corpus = self._kept(key)
        if corpus is not None:
            return corpus
        offered = default and self._offer_corpora is not None
        corpus = self._stored_corpus(turns, query, skip, owner) if offered else None
        if corpus is None:
            corpus = Corpus(turns, owner, query, skip, default, made=made, source=self.units)
            # a kept corpus holds its texts' units even when the unit cache lets them go: the corpora kept
            # hold at most unit_cache.CACHE_TERMS terms; one whose units alone hold more (a conversation of
            # more than about 1.5 MB of distinct text) is kept slim (see Corpus), unless even that is more
            held = terms_held([corpus])
            corpus.whole = held <= unit_cache.CACHE_TERMS or corpus.slim_weight() >= held
        self.corpora[key] = corpus
        while self.corpora and (
            len(self.corpora) > MAX_CORPORA or terms_held(self.corpora.values()) > unit_cache.CACHE_TERMS
        ):
            self.corpora.popitem(last=False)
        return corpus

    def kept(self, turns: list[Turn], query: dict[str, str], skip: set[int]) -> Corpus | None:
        """The corpus of these turns and query held in memory, if any (see corpus_of)."""
        return self._kept(_key(turns, query, skip))

    def _kept(self, key: tuple[Any, ...]) -> Corpus | None:
        """The corpus kept under `key`, made the last used and ready for a new build; None when none is."""
        corpus = self.corpora.get(key)
        if corpus is not None:
            self.corpora.move_to_end(key)
            corpus.begin()
        return corpus

    def _stored_corpus(
        self, turns: list[Turn], query: dict[str, str], skip: set[int], owner: str
    ) -> Corpus | None:
        """The corpus of these turns and query the archive offers, slim; None when it holds none or a
        damaged one."""
        from ..context.corpus import Corpus  # (see the imports)
        from . import corpus_store

        assert self._offer_corpora is not None
        offered = self._offer_corpora()
        blob = (
            offered.get(corpus_store.key(turns, query, skip)) if offered else None
        )  # (no key made for none)
        stored = None if blob is None else corpus_store.unpack(blob)
        if stored is None or len(stored.parts) != len(turns):
            return None
        return Corpus(turns, owner, query, skip, True, stored, source=self.units)

    def storable(self, owner: str) -> list[Corpus]:
        """The corpora kept for conversation `owner` that its archive may keep: of its own query, made for a
        build (corpus_store.pack)."""
        return [c for c in self.corpora.values() if c.owner == owner and c.default and c.densities]

    def hold_only(self, owner: str) -> None:
        """Keep in memory only what serves conversation `owner`: its corpora and their texts' units. A host
        calls it when it turns to a conversation; another conversation's units, stored in the archive, are
        read back if it comes back (a third of the time a split takes). Without it the caches fill up to
        their bounds with the conversations seen last: a host's memory grew by 40-50 MB with each distinct
        1 MB conversation until about 290 MB."""
        self.units.end_ahead(unless=owner)
        if (
            owner == self._held
        ):  # what was made since the last call is this conversation's (a preparation cut short)
            return
        self._held = owner
        for key in [key for key, c in self.corpora.items() if c.owner != owner]:
            del self.corpora[key]
        self.units.keep_only({t.text for c in self.corpora.values() for t in c.turns})
        self.counts.clear()  # (its units carry their counts)

    def settle(self) -> None:
        """After a build or a preparation: the kept corpora too long to keep whole let go of their units."""
        for c in self.corpora.values():
            if not c.whole:
                c.slim()


def _key(turns: list[Turn], query: dict[str, str], skip: set[int]) -> tuple[Any, ...]:
    return tuple((t.index, t.id, t.role, t.text) for t in turns), tuple(query.items()), frozenset(skip)


def terms_held(corpora: Iterable[Corpus]) -> int:
    """What `corpora` hold, in terms: the terms of the units of the whole ones, each text's units once (a
    conversation and its redacted copy share most of theirs), and the weight of the slim ones."""
    held = {id(tu): tu.held for c in corpora if c.whole for tu in c.every_text_units()}
    return sum(held.values()) + sum(c.slim_weight() for c in corpora if not c.whole)
