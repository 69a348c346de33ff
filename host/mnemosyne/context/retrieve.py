"""Passages that answer a query: the turns that match it best, each with the turns around it.

When the user says what comes next (a focus, or without one the last user turns), the context should hold
the exchange that answers it, not a summary that mentions its subject. A passage is a turn with the turn
before it (the question it answers) and, when the turn matched by its own words, the turn after it (the
answer it gets). Passages are ranked with
BM25F over two fields, the turn itself and the turn before it: in a conversation the words of a question
are often in the turn that asks it, and the fact in the reply (measured on LoCoMo's tuning conversations:
an answer's turn was among the ten best by the turn alone for 61 % of the questions, by the turn and the
one before it for 71 %). Terms are the corpus's own (salience.terms), matched on a light stem (a plural, a
possessive, -ing and -ed), so "paintings" finds "painting" and "Caroline's" finds "Caroline".

How much of the budget passages take follows how well the query matched (`strength`): a query whose terms
are rare and found together spends most of it on passages; a vague one (common words only) leaves it to
the coverage digest.

Tried and left out (LoCoMo tuning conversations, focus at 1,000 / 2,000 tokens): reciprocal rank fusion of
this ranking with a sentence-level BM25 ranking and with a ranking by name, number and phrase matches kept
79-82 % / 88 % of the questions against this ranking's 84 % / 89 %: the exact-match ranking is noisy on
chat, where names are everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress, count
from operator import not_
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .corpus import Corpus
    from .coverage import Coverage

BM25_K1 = 1.2
BM25_B = 0.4  # short turns are not favoured much over long ones: chat turns vary from a word to pages
PREV_FIELD = 0.5  # the weight of the turn before a turn's terms in its passage (BM25F)
RELATIVE_FLOOR = 0.15  # a passage scoring under this share of the best is no match
# strength (the best passage's score over an ideal passage's: every query term once, average length)
STRONG = 0.45  # at or above it, passages may take all the room they are offered
WEAK = 0.1  # at or under it, none
FOCUS_SHARE = 1.0  # of the room left after the recent turns, the most passages take for a focus
QUERY_SHARE = 0.0  # the same for the query a build derives from the last user turns
MIN_PASSAGE = 12  # tokens: less room than this holds no passage
MAX_MISSED = 20  # passages in a row that did not fit: the rest are no likelier to
PINNED = 1e6  # a passage's value in the coverage: above any unit's gain (coverage.Coverage.drop_least)
_ENDINGS = (("'s", ""), ("ies", "y"), ("es", ""), ("s", ""))  # a plural or possessive, stripped first
_FORMS = (("ing", ""), ("ed", ""))  # then a verb form


def stem(term: str) -> str:
    """A light stem: a plural or possessive, then -ing or -ed, stripped (a stem keeps 3 letters at least),
    so "paintings", "painting" and "painted" share one; a number is itself."""
    for suffixes in (_ENDINGS, _FORMS):
        for suffix, tail in suffixes:
            if term.endswith(suffix) and len(term) - len(suffix) >= 3:
                term = term[: -len(suffix)] + tail
                break
    return term


@dataclass(frozen=True, slots=True)
class Passage:
    hit: int  # the turn that matched, by index into the corpus's turns
    turns: tuple[int, ...]  # the hit and the turns around it, in order
    score: float


@dataclass(frozen=True, slots=True)
class Retrieval:
    passages: list[Passage]  # best first
    strength: float  # 0..1: how well the query matched (see the module)


def _expanded(query: Iterable[str], df: dict[str, int]) -> dict[str, str]:
    """Each term of the corpus sharing a stem with a query term -> that stem (its forms are made from the
    stem and looked up: a pass over the vocabulary was most of a build's time)."""
    out: dict[str, str] = {}
    for s in {stem(t) for t in query}:
        bases = [s, s + "ing", s + "ed"]
        forms = [b + end for b in bases for end in ("", "s", "es", "'s")]
        if s.endswith("y"):
            forms.append(s[:-1] + "ies")
        out.update((t, s) for t in forms if t in df and stem(t) == s)
    return out


def retrieve(corpus: Corpus, query: Iterable[str], exclude: Iterable[int] = ()) -> Retrieval:
    """The passages of `corpus`'s turns for the `query` terms (salience.terms keys), best first; `exclude`:
    turns that may not be a passage's hit (the query's own)."""
    terms_of = corpus.terms_of
    if terms_of is None:  # a slim corpus: its units' terms are read back
        terms_of = [p[2] for tu in corpus.every_text_units() for p in tu.parts]
    n_turns = len(corpus.turns)
    if not n_turns or not terms_of:
        return Retrieval([], 0.0)
    of = _expanded(query, corpus.stats.df)
    if not of:
        return Retrieval([], 0.0)
    turn_of = corpus.turn_of
    # term frequencies by turn and stem (a unit holds a term once), for the units holding a query term,
    # found in C as relevance._bm25 does
    tf: dict[int, dict[str, int]] = {}
    keys = of.keys()
    for k in compress(count(), map(not_, map(keys.isdisjoint, terms_of))):
        row = tf.setdefault(turn_of[k], {})
        for t in keys & set(terms_of[k]):
            row[of[t]] = row.get(of[t], 0) + 1
    if not tf:
        return Retrieval([], 0.0)
    df: dict[str, int] = {}  # turns holding each stem
    for row in tf.values():
        for s in row:
            df[s] = df.get(s, 0) + 1
    idf = {s: math.log(1 + (n_turns - c + 0.5) / (c + 0.5)) for s, c in df.items()}
    length = _turn_lengths(corpus, terms_of)
    avg = (1 + PREV_FIELD) * sum(length) / n_turns or 1.0
    skip = set(exclude)
    scores: dict[int, float] = {}
    for i in tf.keys() | {i + 1 for i in tf if i + 1 < n_turns}:
        if i in skip:
            continue
        # (the query's own turn says nothing of the turn after it: the query matches it perfectly)
        here, before = tf.get(i, {}), tf.get(i - 1, {}) if i and i - 1 not in skip else {}
        size = length[i] + PREV_FIELD * (length[i - 1] if i else 0)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * size / avg)
        total = 0.0
        for s in here.keys() | before.keys():
            f = here.get(s, 0) + PREV_FIELD * before.get(s, 0)
            total += idf[s] * f * (BM25_K1 + 1) / (f + norm)
        if total > 0:
            scores[i] = total
    if not scores:
        return Retrieval([], 0.0)
    best = max(scores.values())
    ideal = sum(idf.values())  # a passage of average length holding each stem of the query once
    strength = min(1.0, best / ideal)
    ranked = sorted(scores, key=lambda i: (-scores[i], i))
    passages = [
        # the turn after a hit is its answer when the hit matched by its own words; a hit that matched by
        # the turn before it is that turn's answer, and what follows it is another exchange
        Passage(i, tuple(j for j in (i - 1, i, i + 1) if 0 <= j < n_turns and (j <= i or i in tf)), scores[i])
        for i in ranked
        if scores[i] >= RELATIVE_FLOOR * best
    ]
    return Retrieval(passages, strength)


def _turn_lengths(corpus: Corpus, terms_of: list[tuple[str, ...]]) -> list[int]:
    """Terms in each turn's units."""
    sizes = list(map(len, terms_of))
    return [sum(sizes[s : s + n]) for s, n in zip(corpus.start, corpus.parts)]


def pin(
    coverage: Coverage, corpus: Corpus, passages: list[Passage], verbatim: Iterable[int], room: int
) -> int:
    """Take the passages, best first, into `coverage` while they fit `room` (the turns in verbatim are
    there already); returns the tokens they take. A better passage is the last to go when the context
    must shrink."""
    used, missed = 0, 0
    there = set(verbatim)
    for rank, p in enumerate(passages):
        if room - used < MIN_PASSAGE or missed >= MAX_MISSED:
            break
        turns = [t for t in p.turns if t not in there]
        if not turns:
            continue
        units = corpus.units_of_turns(turns)
        took = coverage.pin(
            [coverage.index(u) for u in units], PINNED / (rank + 1), room - used, corpus.weigh
        )
        used += took
        missed = 0 if took else missed + 1
    return used


def share(strength: float) -> float:
    """The share of the room passages may take for a retrieval of this strength: none at WEAK or under,
    all at STRONG or over, in proportion between."""
    if strength <= WEAK:
        return 0.0
    return min(1.0, (strength - WEAK) / (STRONG - WEAK))
