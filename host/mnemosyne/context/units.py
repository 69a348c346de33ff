"""A message text's units (sentences, list items, table rows, code blocks) with their terms, made once per text.

Splitting and terming a message is most of a build's cost. Its units are kept in-process by the text itself
(a warm host builds the same conversation again), read back from the archive's stored units where memory
does not hold them (unit_store: about a third of the time a split takes), and otherwise split: for a long
history never seen, shared with a helper process (shared_work: a child forked for it, or the host's split
worker, split_worker.py, which may have started ahead). The corpora a selection reads are made of them
(corpus.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from sys import intern

from ..archive.cjk import has_cjk  # (the archive package loads its store only on use)
from . import digest, split_worker
from . import salience as S
from .shared_work import MIN_CHARS, map_shared
from .split_worker import Job

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

# kind, text, its terms' keys, their kinds (salience.KIND_CODE: a letter each, upper case for a term the unit is
# the first of its text to use), the names a code block defines
Part = tuple[str, str, tuple[str, ...], str, tuple[str, ...]]


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


def _text_units(text: str) -> TextUnits:
    parts: list[Part] = []
    seen: set[str] = set()  # the terms of the text's units so far
    for kind, body in digest.split_text(text):
        if kind == "code":
            body, names = digest.code_unit(body)
            found = S.terms(body)
            for n in names:
                found[n.lower()] = "ident"
        else:
            body, names = S.compress(body), ()
            found = S.terms(body)
        parts.append((kind, body, *_coded(found, seen), names))
    return TextUnits(
        tuple(parts),
        tuple(len(p[1]) if p[1].isascii() else len(p[1].encode()) for p in parts),
        tuple(p[1].count("|") if p[0] in ("table", "row") else 0 for p in parts),
        tuple(p[0] == "sentence" and p[1].rstrip().endswith(digest.QUESTION_END) for p in parts),
        # (a unit's text is a piece of the message's, with "…" or "..." added: no CJK when it has none)
        tuple(has_cjk(p[1]) for p in parts) if has_cjk(text) else (False,) * len(parts),
        held_of(parts),
    )


def _coded(found: dict[str, str], seen: set[str]) -> tuple[tuple[str, ...], str]:
    """A unit's terms (key -> kind, salience.terms) as their keys and the string of their kinds' letters,
    upper case for the keys not in `seen` (the terms of the text's earlier units), which takes them in."""
    keys = tuple(found)
    if seen.isdisjoint(keys):
        kinds = "".join(map(S.FIRST_CODE.__getitem__, found.values()))
    else:
        first, code = S.FIRST_CODE, S.KIND_CODE
        kinds = "".join([code[k] if t in seen else first[k] for t, k in found.items()])
    seen.update(keys)
    # (interned: a few thousand distinct strings serve the units of a long conversation)
    return keys, intern(kinds)


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


def clear() -> None:
    """Nothing of any text in memory, and no job ahead."""
    global _cache_terms
    end_ahead()
    _cache.clear()
    _cache_terms = 0


def keep_only(texts: set[str]) -> None:
    """Let go of the units of every text but `texts`."""
    global _cache_terms
    for text in [text for text in _cache if text not in texts]:
        _cache_terms -= _cache.pop(text).held


# Units stored in the archive for the conversation at hand (unit_store: key -> packed units), offered by
# the service while a build or a preparation runs: a text not in memory is read back from them (about a
# third of the time its split takes) before it is split. Read from the archive on the first text not in
# memory: a warm build reads nothing.
_offer: Callable[[], dict[bytes, bytes]] | None = None
_offered: dict[bytes, bytes] | None = None


@contextmanager
def offered(read: Callable[[], dict[bytes, bytes]]) -> Iterator[None]:
    """Units of texts from the archive (`read()` gives them), read back instead of split while the block
    runs."""
    global _offer, _offered
    _offer, _offered = read, None
    try:
        yield
    finally:
        _offer = _offered = None


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
        # (their places in the job's list, which need not be the path's: texts guessed before the read)
        wanted = sorted((_ahead_places.get(hash(text), -1), text) for _, text in new)
        made = _ahead.share(_text_units, wanted, _from_fields, keep_going)
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


# The job the host's worker (split_worker) was given ahead for the conversation `_ahead_owner` (split_ahead),
# and the place of each text in the list it was given, by the text's hash: texts guessed before the read are
# the payload's strings, which would otherwise outlive it (14 MB of a 5 MB English conversation's, with the
# UTF-8 copies the JSON parser left on them). A hash shared by two texts only misplaces one.
_ahead: Job | None = None
_ahead_owner: str | None = None
_ahead_places: dict[int, int] = {}


def split_ahead(owner: str, texts: Callable[[], list[str]]) -> None:
    """Have the host's worker process (split_worker) split the texts `texts()` gives (in the order a build
    lists them, or a guess of them) but those in memory, while this process goes on: a host storing a
    long conversation never seen, whose context is asked for next. The units_of_texts that wants them
    takes what it made. `owner`: the id of the conversation (end_ahead unless it is the one turned to).
    Nothing without a worker."""
    global _ahead, _ahead_owner, _ahead_places
    end_ahead()
    worker = split_worker.current()
    if worker is not None:
        listed = [None if text in _cache else text for text in texts()]
        _ahead = worker.submit(listed)
        if _ahead is not None:
            _ahead_owner = owner
            _ahead_places = {hash(text): place for place, text in reversed(list(enumerate(listed))) if text}


def splitting_ahead(owner: str) -> bool:
    """Whether the worker has a job given ahead for the conversation `owner`."""
    return _ahead is not None and _ahead_owner == owner


def end_ahead(unless: str | None = None) -> None:
    """Stop the job given ahead, if any and not `unless`'s (what it made and nobody took is lost)."""
    global _ahead, _ahead_owner, _ahead_places
    if _ahead_owner is not None and _ahead_owner == unless:
        return
    if _ahead is not None:
        _ahead.end()
    _ahead, _ahead_owner, _ahead_places = None, None, {}


def _fields(units: TextUnits) -> tuple[Any, ...]:
    """What a helper process sends of a text's units (the rest is made from it: _from_fields)."""
    return units.parts, units.sizes, units.pipes, units.questions, units.cjk


def _from_fields(fields: tuple[Any, ...]) -> TextUnits:
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
