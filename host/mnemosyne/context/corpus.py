"""The units of a conversation path, with the statistics and the relevance a selection needs.

Splitting and terming a message is most of a build's cost; it happens once per message text and is kept
in-process (a warm host also does it right after a save's reply, see engine.prepare). What a build needs of
every unit is then a few numbers per unit in flat lists: a unit becomes a `Unit` object only when it is
a candidate, so the cost of a build follows the budget more than the length of the history.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any

from ..archive.cjk import has_cjk  # (the archive package loads its store only on use)
from . import digest, relevance, split_worker
from . import salience as S
from .digest import Unit
from .shared_work import MIN_CHARS, map_shared
from .split_worker import Job

if TYPE_CHECKING:  # (the split worker loads this module without the conversation models)
    from .corpus_store import Stored
    from .turns import Turn

Part = tuple[str, str, dict[str, str], tuple[str, ...]]  # kind, text, terms, names a code block defines


@dataclass(frozen=True, slots=True)
class TextUnits:
    """The units of one message text and what the conversation's statistics need from them."""

    parts: tuple[Part, ...]
    sizes: tuple[int, ...]  # UTF-8 bytes of each unit's text
    pipes: tuple[int, ...]  # table pipes in each unit (markup, not information)
    questions: tuple[bool, ...]  # the unit is a question
    cjk: tuple[bool, ...]  # the unit is written (partly) in Chinese, Japanese or Korean script
    held: int  # terms held, for the cache's bound (held_of)
    # each unit's token count in token_policy.COUNTED_ENCODING, when known (units read back from the archive)
    counts: tuple[int, ...] | None = field(default=None, compare=False)
    _first: dict[str, int] | None = field(default=None, compare=False, repr=False)

    @property
    def first(self) -> dict[str, int]:
        """term -> the seq of the first unit using it. Only the units a build weighs need it: made on
        first use (most texts of a long conversation never have a candidate)."""
        first = self._first
        if first is None:
            first = {}
            for seq in range(len(self.parts) - 1, -1, -1):  # earlier units overwrite later ones
                first.update(dict.fromkeys(self.parts[seq][2], seq))
            object.__setattr__(self, "_first", first)  # (a memo: frozen otherwise)
        return first


def _text_units(text: str) -> TextUnits:
    parts: list[Part] = []
    for kind, body in digest.split_text(text):
        if kind == "code":
            body, names = digest.code_unit(body)
            found = S.terms(body)
            for n in names:
                found[n.lower()] = "ident"
            parts.append((kind, body, found, names))
        else:
            body = S.compress(body)
            parts.append((kind, body, S.terms(body), ()))
    return TextUnits(
        tuple(parts),
        tuple(len(p[1]) if p[1].isascii() else len(p[1].encode()) for p in parts),
        tuple(p[1].count("|") if p[0] in ("table", "row") else 0 for p in parts),
        tuple(p[0] == "sentence" and p[1].rstrip().endswith(digest.QUESTION_END) for p in parts),
        # (a unit's text is a piece of the message's, with "…" or "..." added: no CJK when it has none)
        tuple(has_cjk(p[1]) for p in parts) if has_cjk(text) else (False,) * len(parts),
        held_of(parts),
    )


def held_of(parts: Iterable[Part]) -> int:
    """A text's TextUnits.held, from its parts (a split, or units read back from the archive)."""
    return sum(len(p[2]) for p in parts) + 1


# The units of a message's text, kept in-process: a warm host builds the same conversation again (the
# preview, then the paste; the conversation grown by a turn). Keyed by the text itself, so a hit is
# exact. The terms are what takes memory (measured 140-250 bytes each, Chinese bigrams the smaller):
# least recently used texts go first once CACHE_TERMS terms are held, about 40-80 MB.
CACHE_TERMS = 300_000
_cache: OrderedDict[str, TextUnits] = OrderedDict()
_cache_terms = 0
_held: str | None = None  # the conversation hold_only was last called for


def clear_cache() -> None:
    global _cache_terms, _held
    end_ahead()
    _cache.clear()
    _cache_terms = 0
    _corpora.clear()
    _held = None


# Units stored in the archive for the conversation at hand (unit_store: key -> packed units), offered by
# the service while a build or a preparation runs: a text not in memory is read back from them (about a
# third of the time its split takes) before it is split. Read from the archive on the first text not in
# memory: a warm build reads nothing.
_offer: Callable[[], dict[bytes, bytes]] | None = None
_offered: dict[bytes, bytes] | None = None
# The conversation's corpora stored in the archive (corpus_store: key -> packed corpus), offered likewise: a
# corpus not in memory is read back from them when its key is there (the same turns and query).
_offer_corpora: Callable[[], dict[bytes, bytes]] | None = None


@contextmanager
def offered(
    read: Callable[[], dict[bytes, bytes]], read_corpora: Callable[[], dict[bytes, bytes]] | None = None
) -> Iterator[None]:
    """Units of texts from the archive (`read()` gives them), read back instead of split while the block
    runs, and its corpora (`read_corpora()`), read back instead of made."""
    global _offer, _offered, _offer_corpora
    _offer, _offered, _offer_corpora = read, None, read_corpora
    try:
        yield
    finally:
        _offer = _offered = _offer_corpora = None


def units_of_texts(texts: list[str], keep_going: Callable[[], bool] = lambda: True) -> dict[str, TextUnits]:
    """The units of each of `texts` (shared: read only), by text: from memory, else read back from the
    archive's units on offer, else split, all at once: with the helper splitting ahead when there is one
    (`split_ahead`), else shared with a helper forked for them where there are many (shared_work: a history
    never seen). `texts` are a path's in order (a helper ahead lists them so). Stops when `keep_going()`
    says so: the texts not made by then are missing."""
    out: dict[str, TextUnits] = {}
    places: dict[str, int] = {}  # text not in memory -> its first place in `texts`
    for place, text in enumerate(texts):
        if text in out or text in places:
            continue
        hit = _cache.get(text)
        if hit is not None:
            _cache.move_to_end(text)
            out[text] = hit
        else:
            places[text] = place
    new = [(place, text) for text, place in places.items()]
    if new and _offer is not None and _offered_units():  # (a conversation just saved has none: no key made)
        for _, text in new:
            stored = _stored_units(text)
            if stored is not None:
                out[text] = stored
                _keep(text, stored)
                if not keep_going():
                    return out
        new = [(place, text) for place, text in new if text not in out]
    if new:
        made = _split(new, keep_going)
        for _, text in new:
            units = made.get(text)
            if units is not None:
                out[text] = units
                _keep(text, units)
    return out


def _split(new: list[tuple[int, str]], keep_going: Callable[[], bool]) -> dict[str, TextUnits]:
    """The units of the `new` texts ((place, text)), split here and by a helper (see units_of_texts)."""
    if _ahead is not None:
        made = _ahead.share(_text_units, new, _from_fields, keep_going)
        if len(made) == len(new):  # what the worker made ahead is all taken
            end_ahead()
        return made
    texts = [text for _, text in new]
    worker = split_worker.current()
    job = worker.submit(texts) if worker is not None and sum(map(len, texts)) >= MIN_CHARS else None
    if job is None:
        shared = map_shared(_text_units, texts, _fields, _from_fields, keep_going)
        return {text: units for text, units in zip(texts, shared) if units is not None}
    try:
        return job.share(_text_units, list(enumerate(texts)), _from_fields, keep_going)
    finally:
        job.end()


# The job the host's worker (split_worker) was given ahead for the conversation `_ahead_owner` (split_ahead).
_ahead: Job | None = None
_ahead_owner: str | None = None


def split_ahead(owner: str, listing: Callable[[], list[str]]) -> None:
    """Have the host's worker process (split_worker) split the texts `listing()` gives (in the order a build
    lists them) while this process goes on: a host storing a long conversation never seen, whose context is
    asked for next. The units_of_texts that wants them takes what it made. `owner`: the id of the
    conversation (another one's hold_only stops the job). Nothing without a worker."""
    global _ahead, _ahead_owner
    end_ahead()
    worker = split_worker.current()
    if worker is not None:
        hold_only(owner)  # (the host turns to it: what is in memory now stays, and is not split again)
        _ahead = worker.submit([None if text in _cache else text for text in listing()])
        _ahead_owner = owner if _ahead is not None else None


def end_ahead() -> None:
    """Stop the job given ahead, if any (what it made and nobody took is lost)."""
    global _ahead, _ahead_owner
    if _ahead is not None:
        _ahead.end()
    _ahead = _ahead_owner = None


def _fields(units: TextUnits) -> tuple:
    """What a helper process sends of a text's units (the rest is made from it: _from_fields)."""
    return units.parts, units.sizes, units.pipes, units.questions, units.cjk


def _from_fields(fields: tuple) -> TextUnits:
    parts, sizes, pipes, questions, cjk = fields
    return TextUnits(parts, sizes, pipes, questions, cjk, held_of(parts))


def _keep(text: str, units: TextUnits) -> None:
    """`units` into the cache, the least recently used texts let go past CACHE_TERMS."""
    global _cache_terms
    _cache[text] = units
    _cache_terms += units.held
    while _cache_terms > CACHE_TERMS and _cache:
        _, old = _cache.popitem(last=False)
        _cache_terms -= old.held


def _offered_units() -> dict[bytes, bytes]:
    """The units on offer (read from the archive on first use)."""
    global _offered
    if _offered is None:
        assert _offer is not None
        _offered = _offer()
    return _offered


def _stored_units(text: str) -> TextUnits | None:
    from . import unit_store

    blob = _offered_units().get(unit_store.key(text))
    return None if blob is None else unit_store.unpack(blob)


def text_units(text: str) -> TextUnits:
    """The units of `text`: the ones in memory, else split (and not kept: for storing them)."""
    hit = _cache.get(text)
    return hit if hit is not None else _text_units(text)


# The corpora of the last conversations built, with their relevance to the query: a warm host builds the
# same conversation again (the preview, then the paste, or at another budget), and its statistics,
# relevance and units' weights are the same each time. Two: a conversation and its redacted copy.
MAX_CORPORA = 2
_corpora: OrderedDict[tuple, Corpus] = OrderedDict()


def corpus_of(
    turns: list[Turn],
    query: dict[str, str],
    skip: set[int],
    owner: str = "",
    default: bool = False,
    units: dict[str, TextUnits] | None = None,
) -> Corpus:
    """The corpus of `turns` scored against `query` (`skip`: the turns the query came from); `owner` is the
    id of the conversation they are of (see hold_only); `default`: the query is the conversation's own (no
    focus), so the corpus may be read from the archive and stored there (corpus_store). `units`: the
    units of the turns' texts made already (by text), taken before the unit cache's."""
    key = (tuple((t.index, t.id, t.role, t.text) for t in turns), tuple(query.items()), frozenset(skip))
    corpus = _corpora.get(key)
    if corpus is not None:
        _corpora.move_to_end(key)
        corpus.begin()
        return corpus
    corpus = _stored_corpus(turns, query, skip, owner) if default and _offer_corpora is not None else None
    if corpus is None:
        corpus = Corpus(turns, owner, query, skip, default, units=units)
        # a kept corpus holds its texts' units even when the unit cache lets them go: the corpora kept hold
        # at most CACHE_TERMS terms; one whose units alone hold more (a conversation of more than about 1.5
        # MB of distinct text) is kept slim (see Corpus), unless even that is more
        held = _terms_held([corpus])
        corpus.whole = held <= CACHE_TERMS or corpus.slim_weight() >= held
    _corpora[key] = corpus
    while _corpora and (len(_corpora) > MAX_CORPORA or _terms_held(_corpora.values()) > CACHE_TERMS):
        _corpora.popitem(last=False)
    return corpus


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
    global _cache_terms, _held
    if owner != _ahead_owner:
        end_ahead()
    if owner == _held:  # what was made since the last call is this conversation's (a preparation cut short)
        return
    _held = owner
    for key in [key for key, c in _corpora.items() if c.owner != owner]:
        del _corpora[key]
    kept = {t.text for c in _corpora.values() for t in c.turns}
    for text in [text for text in _cache if text not in kept]:
        _cache_terms -= _cache.pop(text).held


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
        units: dict[str, TextUnits] | None = None,
    ):
        """The corpus of `turns`, made from their units (those of `units` made already, by text, the others
        by units_of_texts) and scored against `query` (`skip`: the turns the query came from; none: not
        scored), or slim from what the archive kept of it (`stored`, relevance and densities included).
        `default`: the query is the conversation's own (corpus_of)."""
        self.turns = turns
        self.owner = owner  # the id of the conversation the turns are of
        self.query = query or {}
        self.skip = set(skip)
        self.default = default
        self._weights: dict[int, dict[str, float]] = {}  # unit -> its weighed terms (shared: read only)
        # select.densities by focus weight: every unit's rough density and script, kept with the corpus
        self.densities: dict[float, tuple[list[float], list[bool]]] = {}
        self.statements: dict[int, tuple[str, Any]] = {}  # unit -> what mark_repeats_and_corrections found
        self.prepared: set[float] = set()  # the focus weights select.prepare went through to the end for
        self._units: dict[int, Unit] = {}
        self._read: dict[int, TextUnits] = {}  # a slim corpus: turn -> its units, read back for this build
        if stored is not None:
            self._from_stored(stored)
            return
        made = dict(units or ())
        missing = [t.text for t in turns if t.text not in made]
        if missing:
            made.update(units_of_texts(missing))
        texts = [made[t.text] for t in turns]
        self.texts: list[TextUnits] | None = texts  # None once slim
        self.start: list[int] = []  # turn -> index of its first unit
        self.parts: list[int] = []  # turn -> how many units it has
        self.turn_of: list[int] = []
        self.sizes: list[int] = []  # UTF-8 bytes of each unit's text
        terms_of: list[dict[str, str]] = []
        for i, tu in enumerate(texts):
            self.start.append(len(terms_of))
            self.parts.append(len(tu.parts))
            self.turn_of.extend(repeat(i, len(tu.parts)))
            self.sizes.extend(tu.sizes)
            terms_of.extend(p[2] for p in tu.parts)
        self.terms_of: list[dict[str, str]] | None = terms_of  # None once slim
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
        self.densities = {weight: (density, cjk) for weight, density, cjk in stored.densities}
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
            kind, text, terms, names = tu.parts[seq]
            t = self.turns[turn]
            u = Unit(turn, seq, t.id, t.role, kind, text, terms, names, key=k)
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
            w = self._weights[u.key] = self.stats.weigh(
                u.terms, u.turn, u.seq, self.units_at(u.turn).first, u.names
            )
        return w

    # ------------------------------------------------------------ relevance

    def score(self) -> None:
        """Each unit's relevance to the query (relevance.scores): when made, before it may turn slim."""
        self.relevance = relevance.scores(self)
