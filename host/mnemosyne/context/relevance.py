"""Term statistics over a path's units, and each unit's BM25 relevance to a query (the focus, or the
conversation's title and last user turns), widened once by pseudo-relevance feedback."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from itertools import chain, compress, count, repeat
from operator import itemgetter, not_
from typing import TYPE_CHECKING

from . import salience as S

if TYPE_CHECKING:
    from .corpus import Corpus
    from .units import TextUnits

BM25_K1 = 1.2
BM25_B = 0.75
TURN_SHARE = 0.5
# pseudo-relevance feedback (tuned on the tuning halves only)
FEEDBACK_UNITS = 10  # the best-scoring units whose terms widen the query
FEEDBACK_TERMS = 20  # terms added to the query from them
FEEDBACK_WEIGHT = 1.0  # an added term's weight at most, next to a query term's 1


_TERMS, _CODES = itemgetter(2), itemgetter(3)  # a unit's terms' keys and their kinds' codes (units.Part)


def term_stats(texts: list[TextUnits], terms_of: list[tuple[str, ...]]) -> S.TermStats:
    """Term statistics over the units: how many units use each term, the first and last turn that does, and
    each term's kind in the last unit using it."""
    df = Counter(chain.from_iterable(terms_of))
    last: dict[str, int] = {}
    new: list[int] = []  # per text: how many terms it uses first
    code_of: dict[str, str] = {}
    for turn, tu in enumerate(texts):  # (a text's units at once, in C: a unit at a time was 2x the time)
        held = len(last)
        terms = list(chain.from_iterable(map(_TERMS, tu.parts)))
        last.update(zip(terms, repeat(turn)))
        code_of.update(zip(terms, chain.from_iterable(map(_CODES, tu.parts))))
        new.append(len(last) - held)
    # `last` holds the terms in order of first use: the first `new[0]` are the first text's, and so on
    first = dict(zip(last, chain.from_iterable(map(repeat, range(len(texts)), new))))
    kind_of = dict(zip(code_of, map(S.KIND_OF_CODE.__getitem__, code_of.values())))
    return S.TermStats(df, first, last, len(terms_of), kind_of)


def scores(corpus: Corpus) -> dict[int, float]:
    """Unit -> relevance, 0..1 (units without any left out): BM25 of each of the corpus's units (it holds
    them: not slim) against its query's terms, widened once by pseudo-relevance feedback, scaled so the best
    unit outside the query's own turns (`corpus.skip`: they match it perfectly and go in verbatim) scores 1;
    a unit also gets TURN_SHARE of its turn's best score, since the sentences of one turn share a subject."""
    texts, terms_of, query, skip = corpus.texts, corpus.terms_of, corpus.query, corpus.skip
    assert texts is not None and terms_of is not None
    stats = corpus.stats
    weights = {t: 1.0 for t, kind in query.items() if kind != S.GRAMMAR and stats.idf(t) > 0}
    # a focus's Chinese pairs with a function character (上海, 会议) are no unit's terms: found in the text
    in_text = _in_text(corpus, texts, [t for t, kind in query.items() if kind == S.GRAMMAR])
    if not weights and not in_text:
        return {}
    avg = sum(map(len, terms_of)) / max(1, len(terms_of))
    found = _bm25(corpus, terms_of, weights, avg, in_text)
    if FEEDBACK_UNITS and FEEDBACK_TERMS:
        extra = _feedback(corpus, terms_of, found, weights, skip)
        if extra:
            weights.update(extra)
            found = _bm25(corpus, terms_of, weights, avg, in_text)
    turn_of = corpus.turn_of
    best = max((x for k, x in found.items() if turn_of[k] not in skip), default=0.0)
    if best <= 0:
        return {}
    rel: dict[int, float] = {}
    by_turn: dict[int, float] = {}
    for k, x in found.items():
        rel[k] = r = min(1.0, x / best)
        turn = turn_of[k]
        if r > by_turn.get(turn, 0.0):
            by_turn[turn] = r
    for turn, r in by_turn.items():
        spread = TURN_SHARE * r
        for k in range(corpus.start[turn], corpus.start[turn] + corpus.parts[turn]):
            if rel.get(k, 0.0) < spread:
                rel[k] = spread
    return rel


def _in_text(corpus: Corpus, texts: list[TextUnits], pairs: list[str]) -> dict[int, list[float]]:
    """Unit -> the idf of each of `pairs` its text holds (query terms no unit carries: salience.terms)."""
    if not pairs:
        return {}
    holders: dict[str, list[int]] = {pair: [] for pair in pairs}
    for turn, tu in enumerate(texts):
        whole = corpus.turns[turn].text
        held = [pair for pair in pairs if pair in whole]
        if not held:
            continue
        for seq, part in enumerate(tu.parts):
            for pair in held:
                if pair in part[1]:
                    holders[pair].append(corpus.start[turn] + seq)
    n = len(corpus)
    out: dict[int, list[float]] = {}
    for ks in holders.values():
        idf = max(0.0, math.log((n - len(ks) + 0.5) / (len(ks) + 0.5)))
        for k in ks:
            out.setdefault(k, []).append(idf)
    return out


def _bm25(
    corpus: Corpus,
    terms_of: list[tuple[str, ...]],
    query: dict[str, float],
    avg: float,
    in_text: dict[int, list[float]],
) -> dict[int, float]:
    """Scores of the units that hold a query term (`in_text`: see _in_text), by unit in order."""
    idf = corpus.stats.idf
    weight = {t: idf(t) * w for t, w in query.items()}
    keys = weight.keys()
    scale = BM25_K1 * BM25_B / max(avg, 1e-9)
    # the units holding a query term, found in C: most hold none (a Python loop over every unit took
    # about 12 ms a MB of chat, twice a build)
    holding = compress(count(), map(not_, map(keys.isdisjoint, terms_of)))
    out: dict[int, float] = {}
    for k in sorted(in_text.keys() | holding) if in_text else holding:
        terms = terms_of[k]
        found = in_text.get(k) if in_text else None
        hit = [weight[t] for t in keys & terms]
        norm = BM25_K1 * (1 - BM25_B) + scale * len(terms)
        out[k] = math.fsum(hit + found if found else hit) * (BM25_K1 + 1) / (1 + norm)
    return out


def _feedback(
    corpus: Corpus,
    terms_of: list[tuple[str, ...]],
    found: dict[int, float],
    query: dict[str, float],
    skip: set[int],
) -> dict[str, float]:
    """Pseudo-relevance feedback (RM3-like): the terms that weigh most in the best-scoring units outside the
    query's own turns, each weighted by its unit's score and rarity."""
    turn_of = corpus.turn_of
    best = heapq.nlargest(
        FEEDBACK_UNITS,
        (k for k in found if turn_of[k] not in skip),
        key=lambda k: (found[k], -k),
    )
    if not best:
        return {}
    top = found[best[0]]
    idf = corpus.stats.idf
    mass: dict[str, float] = {}
    for k in best:
        terms = terms_of[k]
        share = found[k] / top / max(1, len(terms))
        for t in terms:
            if t not in query:
                w = idf(t)
                if w > 0:
                    mass[t] = mass.get(t, 0.0) + share * w
    chosen = heapq.nlargest(FEEDBACK_TERMS, mass.items(), key=lambda x: (x[1], x[0]))
    if not chosen:
        return {}
    peak = chosen[0][1]
    return {t: FEEDBACK_WEIGHT * w / peak for t, w in chosen}
