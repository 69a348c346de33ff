"""A conversation path's units as one corpus, with the statistics and the relevance a selection needs.

What a build needs of every unit is a few numbers per unit in flat lists (sizes, densities, relevance) and
the term statistics over all of them: a unit becomes a `Unit` object only when it is a candidate, so the
cost of a build follows the budget more than the length of the history. A corpus is kept between the builds
of a conversation (whole, or slim for a long one), and stored in the archive (corpus_store.py). Its units are
units.py's: made once per text (a warm host does it right after a save's reply, see engine.prepare).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any

from . import counting, relevance, units
from . import salience as S
from .digest import Unit
from .units import TextUnits, units_of_texts

if TYPE_CHECKING:
    from .corpus_store import Stored
    from .turns import Turn

_held: str | None = None  # the conversation hold_only was last called for


def clear_cache() -> None:
    """Nothing of any conversation in memory: its texts' units, its corpora."""
    global _held
    units.clear()
    _corpora.clear()
    _held = None


# The conversation's corpora stored in the archive (corpus_store: key -> packed corpus), offered with its
# units (units.offered) while a build or a preparation runs: a corpus not in memory is read back from them when
# its key is there (the same turns and query).
_offer_corpora: Callable[[], dict[bytes, bytes]] | None = None


@contextmanager
def offered(
    read: Callable[[], dict[bytes, bytes]], read_corpora: Callable[[], dict[bytes, bytes]] | None = None
) -> Iterator[None]:
    """Units of texts from the archive (`read()` gives them), read back instead of split while the block
    runs, and its corpora (`read_corpora()`), read back instead of made."""
    global _offer_corpora
    _offer_corpora = read_corpora
    try:
        with units.offered(read):
            yield
    finally:
        _offer_corpora = None


# The corpora of the last conversations built, with their relevance to the query: a warm host builds the
# same conversation again (the preview, then the paste, or at another budget), and its statistics,
# relevance and units' weights are the same each time. Two: a conversation and its redacted copy.
MAX_CORPORA = 2
_corpora: OrderedDict[tuple[Any, ...], Corpus] = OrderedDict()


def corpus_of(
    turns: list[Turn],
    query: dict[str, str],
    skip: set[int],
    owner: str = "",
    default: bool = False,
    made: dict[str, TextUnits] | None = None,
) -> Corpus:
    """The corpus of `turns` scored against `query` (`skip`: the turns the query came from); `owner` is the
    id of the conversation they are of (see hold_only); `default`: the query is the conversation's own (no
    focus), so the corpus may be read from the archive and stored there (corpus_store). `made`: the
    units of the turns' texts made already (by text), taken before the unit cache's."""
    key = _key(turns, query, skip)
    corpus = _kept(key)
    if corpus is not None:
        return corpus
    corpus = _stored_corpus(turns, query, skip, owner) if default and _offer_corpora is not None else None
    if corpus is None:
        corpus = Corpus(turns, owner, query, skip, default, made=made)
        # a kept corpus holds its texts' units even when the unit cache lets them go: the corpora kept hold
        # at most units.CACHE_TERMS terms; one whose units alone hold more (a conversation of more than about 1.5
        # MB of distinct text) is kept slim (see Corpus), unless even that is more
        held = _terms_held([corpus])
        corpus.whole = held <= units.CACHE_TERMS or corpus.slim_weight() >= held
    _corpora[key] = corpus
    while _corpora and (len(_corpora) > MAX_CORPORA or _terms_held(_corpora.values()) > units.CACHE_TERMS):
        _corpora.popitem(last=False)
    return corpus


def kept(turns: list[Turn], query: dict[str, str], skip: set[int]) -> Corpus | None:
    """The corpus of these turns and query held in memory, if any (see corpus_of)."""
    return _kept(_key(turns, query, skip))


def _kept(key: tuple[Any, ...]) -> Corpus | None:
    """The corpus kept under `key`, made the last used and ready for a new build; None when none is."""
    corpus = _corpora.get(key)
    if corpus is not None:
        _corpora.move_to_end(key)
        corpus.begin()
    return corpus


def _key(turns: list[Turn], query: dict[str, str], skip: set[int]) -> tuple[Any, ...]:
    return tuple((t.index, t.id, t.role, t.text) for t in turns), tuple(query.items()), frozenset(skip)


def _stored_corpus(turns: list[Turn], query: dict[str, str], skip: set[int], owner: str) -> Corpus | None:
    """The corpus of these turns and query the archive offers, slim; None when it holds none or a damaged one."""
    from . import corpus_store

    assert _offer_corpora is not None
    offered = _offer_corpora()
    blob = offered.get(corpus_store.key(turns, query, skip)) if offered else None  # (no key made for none)
    stored = None if blob is None else corpus_store.unpack(blob)
    if stored is None or len(stored.parts) != len(turns):
        return None
    return Corpus(turns, owner, query, skip, True, stored)


def storable(owner: str) -> list[Corpus]:
    """The corpora kept for conversation `owner` that its archive may keep: of its own query, made for a
    build (corpus_store.pack)."""
    return [c for c in _corpora.values() if c.owner == owner and c.default and c.densities]


def hold_only(owner: str) -> None:
    """Keep in memory only what serves conversation `owner`: its corpora and their texts' units. A host
    calls it when it turns to a conversation; another conversation's units, stored in the archive, are
    read back if it comes back (a third of the time a split takes). Without it the caches fill up to their
    bounds with the conversations seen last: a host's memory grew by 40-50 MB with each distinct 1 MB
    conversation until about 290 MB."""
    global _held
    units.end_ahead(unless=owner)
    if owner == _held:  # what was made since the last call is this conversation's (a preparation cut short)
        return
    _held = owner
    for key in [key for key, c in _corpora.items() if c.owner != owner]:
        del _corpora[key]
    units.keep_only({t.text for c in _corpora.values() for t in c.turns})
    counting.forget_counts()


def _terms_held(corpora: Iterable[Corpus]) -> int:
    """What `corpora` hold, in terms: the terms of the units of the whole ones, each text's units once (a
    conversation and its redacted copy share most of theirs), and the weight of the slim ones."""
    held = {id(tu): tu.held for c in corpora if c.whole for tu in c.every_text_units()}
    return sum(held.values()) + sum(c.slim_weight() for c in corpora if not c.whole)


def settle() -> None:
    """After a build or a preparation: the kept corpora too long to keep whole let go of their units."""
    for c in _corpora.values():
        if not c.whole:
            c.slim()


# What a slim corpus holds, in the unit cache's terms (a term held by a unit: 140-250 bytes), per distinct
# term of its statistics (seven dictionaries), per unit (a handful of numbers) and per unit weighed (its weights
# and what it states). Measured: 15 MB for a 5 MB English conversation (7,500 terms, 61,000 units), 24 MB
# for a 5 MB Chinese one (23,000 terms, 51,000 units), against 180-250 MB whole.
SLIM_PER_TERM = 3
SLIM_PER_UNIT = 1
SLIM_PER_WEIGHED = 5


class Corpus:
    """Every unit of a path's turns in conversation order, by index k, with the term statistics.

    A corpus is kept between builds (corpus_of). One whose units would take more than the unit cache's
    bound (a conversation of more than about 1.5 MB of distinct text) is kept slim: after each build it
    lets go of its units and keeps what a build needs of every unit (sizes, densities, relevance, the
    statistics); a build reads back the units of the turns it looks at (`fetch`: the unit cache, the
    archive's units on offer, else a split)."""

    def __init__(
        self,
        turns: list[Turn],
        owner: str = "",
        query: dict[str, str] | None = None,
        skip: Iterable[int] = (),
        default: bool = False,
        stored: Stored | None = None,
        made: dict[str, TextUnits] | None = None,
    ):
        """The corpus of `turns`, made from their units (those `made` already, by text, the others by
        units_of_texts) and scored against `query` (`skip`: the turns the query came from; none: not
        scored), or slim from what the archive kept of it (`stored`, relevance and densities included).
        `default`: the query is the conversation's own (corpus_of)."""
        self.turns = turns
        self.owner = owner  # the id of the conversation the turns are of
        self.query = query or {}
        self.skip = set(skip)
        self.default = default
        self._weights: dict[int, dict[str, float]] = {}  # unit -> its weighed terms (shared: read only)
        # select.densities by focus weight: every unit's rough density and script, kept with the corpus
        self.densities: dict[float, tuple[array[float], list[bool]]] = {}
        self.statements: dict[int, tuple[int, Any]] = {}  # unit -> what mark_repeats_and_corrections found
        self.prepared: set[float] = set()  # the focus weights select.prepare went through to the end for
        self._units: dict[int, Unit] = {}
        self._read: dict[int, TextUnits] = {}  # a slim corpus: turn -> its units, read back for this build
        if stored is not None:
            self._from_stored(stored)
            return
        made = dict(made or ())
        missing = [t.text for t in turns if t.text not in made]
        if missing:
            made.update(units_of_texts(missing))
        texts = [made[t.text] for t in turns]
        self.texts: list[TextUnits] | None = texts  # None once slim
        self.start: list[int] = []  # turn -> index of its first unit
        self.parts: list[int] = []  # turn -> how many units it has
        self.turn_of: list[int] = []
        self.sizes: list[int] = []  # UTF-8 bytes of each unit's text
        terms_of: list[tuple[str, ...]] = []
        for i, tu in enumerate(texts):
            self.start.append(len(terms_of))
            self.parts.append(len(tu.parts))
            self.turn_of.extend(repeat(i, len(tu.parts)))
            self.sizes.extend(tu.sizes)
            terms_of.extend(p[2] for p in tu.parts)
        self.terms_of: list[tuple[str, ...]] | None = terms_of  # None once slim
        self.stats = relevance.term_stats(texts, terms_of)
        self.relevance: dict[int, float] = {}  # unit -> relevance to the query, 0..1 (0 when absent)
        self.whole = True  # kept with its units (corpus_of decides)
        if query:
            self.score()

    def _from_stored(self, stored: Stored) -> None:
        self.texts = self.terms_of = None
        self.parts, self.sizes = stored.parts, stored.sizes
        self.start = list(accumulate(stored.parts, initial=0))[:-1]
        self.turn_of = list(chain.from_iterable(map(repeat, range(len(stored.parts)), stored.parts)))
        self.stats = S.TermStats(
            stored.df, stored.first_turn, stored.last_turn, len(stored.sizes), dict(stored.kind_of)
        )
        self.relevance = stored.relevance
        self.densities = {weight: (array("d", density), cjk) for weight, density, cjk in stored.densities}
        self.whole = False

    def __len__(self) -> int:
        return len(self.turn_of)

    def seq(self, k: int) -> int:
        return k - self.start[self.turn_of[k]]

    def size(self, k: int) -> int:
        """UTF-8 bytes of unit k's text."""
        return self.sizes[k]

    def units_at(self, turn: int) -> TextUnits:
        """The units of `turn`'s text."""
        if self.texts is not None:
            return self.texts[turn]
        tu = self._read.get(turn)
        if tu is None:
            self.fetch((turn,))
            tu = self._read[turn]
        return tu

    def fetch(self, turns: Iterable[int]) -> None:
        """Read back the units of `turns` at once (a slim corpus; a whole one holds them)."""
        if self.texts is not None:
            return
        wanted = [turn for turn in dict.fromkeys(turns) if turn not in self._read]
        if wanted:
            made = units_of_texts([self.turns[turn].text for turn in wanted])
            for turn in wanted:
                self._read[turn] = made[self.turns[turn].text]

    def every_text_units(self) -> list[TextUnits]:
        """The units of every turn (a slim corpus reads them back, and does not keep them)."""
        if self.texts is not None:
            return self.texts
        made = units_of_texts([t.text for t in self.turns])
        return [made[t.text] for t in self.turns]

    def slim(self) -> None:
        """Let go of the units (see the class). The statistics, relevance, densities, weights and what
        each unit states stay: they are those of the units let go."""
        self.texts = self.terms_of = None
        self._units, self._read = {}, {}

    def slim_weight(self) -> int:
        """What the corpus holds once slim, in the unit cache's terms."""
        return (
            SLIM_PER_TERM * len(self.stats.df)
            + SLIM_PER_UNIT * len(self.turn_of)
            + SLIM_PER_WEIGHED * len(self._weights)
        )

    def unit(self, k: int) -> Unit:
        """Unit k as an object (made once per build: the selection marks it)."""
        u = self._units.get(k)
        if u is None:
            turn = self.turn_of[k]
            seq = k - self.start[turn]
            tu = self.units_at(turn)
            kind, text, terms, kinds, names = tu.parts[seq]
            t = self.turns[turn]
            u = Unit(turn, seq, t.id, t.role, kind, text, terms, kinds, names, key=k)
            if tu.counts is not None:
                u.tokens = tu.counts[seq]
            u.relevance = self.relevance.get(k, 0.0)
            self._units[k] = u
        return u

    def units_of_turns(self, turns: Iterable[int]) -> list[Unit]:
        turns = sorted(turns)
        self.fetch(turns)
        return [self.unit(k) for i in turns for k in range(self.start[i], self.start[i] + self.parts[i])]

    def begin(self) -> None:
        """A new build on this corpus: fresh Unit objects (a build marks its units)."""
        self._units, self._read = {}, {}

    def weigh(self, u: Unit) -> dict[str, float]:
        """Unit u's terms with their weights (the same dict each build: copy it to change it)."""
        w = self._weights.get(u.key)
        if w is None:
            w = self._weights[u.key] = self.stats.weigh(u.terms, u.kinds, u.turn, u.names)
        return w

    # ------------------------------------------------------------ relevance

    def score(self) -> None:
        """Each unit's relevance to the query (relevance.scores): when made, before it may turn slim."""
        self.relevance = relevance.scores(self)
