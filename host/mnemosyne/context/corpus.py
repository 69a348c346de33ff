"""A conversation path's units as one corpus, with the statistics and the relevance a selection needs.

What a build needs of every unit is a few numbers per unit in flat lists (sizes, densities, relevance) and
the term statistics over all of them: a unit becomes a `Unit` object only when it is a candidate, so the
cost of a build follows the budget more than the length of the history. The preparation layer keeps a
corpus between the builds of a conversation (whole, or slim for a long one: prepare/caches.py) and stores
it in the archive (prepare/corpus_store.py). Its units come from a `UnitSource` (units.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any, Protocol

from . import relevance
from . import salience as S
from .digest import Unit
from .units import SplitHere, TextUnits

if TYPE_CHECKING:
    from .turns import Turn
    from .units import UnitSource


class Stored(Protocol):
    """What a slim corpus is made from besides its turns (what the archive keeps of a corpus, read back by
    prepare/corpus_store.py): per turn its units' count, per unit its size, the term statistics, the
    relevance to its query and the densities by focus weight."""

    @property
    def parts(self) -> list[int]: ...
    @property
    def sizes(self) -> list[int]: ...
    @property
    def df(self) -> dict[str, int]: ...
    @property
    def first_turn(self) -> dict[str, int]: ...
    @property
    def last_turn(self) -> dict[str, int]: ...
    @property
    def kind_of(self) -> Mapping[str, str]: ...
    @property
    def relevance(self) -> dict[int, float]: ...
    @property
    def densities(self) -> list[tuple[float, list[float], list[bool | None]]]: ...


# What a slim corpus holds, in the unit cache's terms (a term held by a unit: 140-250 bytes), per distinct
# term of its statistics (seven dictionaries), per unit (a handful of numbers) and per unit weighed (its weights
# and what it states). Measured: 15 MB for a 5 MB English conversation (7,500 terms, 61,000 units), 24 MB
# for a 5 MB Chinese one (23,000 terms, 51,000 units), against 180-250 MB whole.
SLIM_PER_TERM = 3
SLIM_PER_UNIT = 1
SLIM_PER_WEIGHED = 5


class Corpus:
    """Every unit of a path's turns in conversation order, by index k, with the term statistics.

    The preparation layer may keep a corpus between builds (prepare/caches.py). One whose units would take
    more than its unit cache's bound (a conversation of more than about 1.5 MB of distinct text) is kept
    slim: after each build it lets go of its units and keeps what a build needs of every unit (sizes,
    densities, relevance, the statistics); a build reads back the units of the turns it looks at (`fetch`: the unit cache, the
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
        source: UnitSource | None = None,
    ):
        """The corpus of `turns`, made from their units (those `made` already, by text, the others from
        `source`, which a slim corpus reads them back from) and scored against `query` (`skip`: the turns
        the query came from; none: not scored), or slim from what the archive kept of it (`stored`,
        relevance and densities included). `default`: the query is the conversation's own."""
        self.turns = turns
        self.source: UnitSource = source if source is not None else SplitHere()
        self.owner = owner  # the id of the conversation the turns are of
        self.query = query or {}
        self.skip = set(skip)
        self.default = default
        self._weights: dict[int, dict[str, float]] = {}  # unit -> its weighed terms (shared: read only)
        # select.densities by focus weight: every unit's rough density and script, kept with the corpus
        self.densities: dict[float, tuple[array[float], list[bool | None]]] = {}
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
            made.update(self.source.units_of_texts(missing))
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
        self.whole = True  # kept with its units (the cache that keeps it decides)
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
            made = self.source.units_of_texts([self.turns[turn].text for turn in wanted])
            for turn in wanted:
                self._read[turn] = made[self.turns[turn].text]

    def every_text_units(self) -> list[TextUnits]:
        """The units of every turn (a slim corpus reads them back, and does not keep them)."""
        if self.texts is not None:
            return self.texts
        made = self.source.units_of_texts([t.text for t in self.turns])
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
