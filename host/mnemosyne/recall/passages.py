"""Passages of the candidate conversations for a query, ranked by the context engine's BM25F retrieval
(context/retrieve.py) over all their turns at once.

A turn is scored on its own words and, at half weight, the words of the turn before it: a question's words
are mostly in the user turn that asks it and the fact in the reply, so the reply ranks first and brings its
question along. Ranking each turn on its own words (with a share of its best neighbour's score) put the
question first; in a small budget its long prompt then took the room the answer needed (tuning half of
tests/bench/recall_bench.py at 400 tokens: 6 of the 13 misses).

retrieve() reads a corpus of units: here a unit is a paragraph of a turn (a term's frequency in a turn is
the paragraphs holding it, as the engine counts sentences), and the candidates' turns follow each other
with an empty turn between two conversations, excluded from being a hit, so no turn is scored with the
words of another conversation's last turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..context import retrieve as engine
from ..context.turns import Turn
from . import ranking

_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class Passage:
    conversation: int  # index into the candidates
    hit: int  # the turn that matched, by position in its conversation's turns
    turns: tuple[int, ...]  # the hit and the turns around it, in order (positions in its conversation)
    score: float


class _Stats:
    __slots__ = ("df",)

    def __init__(self, df: dict[str, int]):
        self.df = df


class _Candidates:
    """The candidates' turns as retrieve() reads a corpus: per unit its terms, per turn where its units
    start and how many there are, and the terms' document frequencies (by unit)."""

    def __init__(self, turns: Sequence[Sequence[Turn]], words_of: dict[str, list[tuple[str, ...]]]):
        self.terms_of: list[tuple[str, ...]] = []
        self.turn_of: list[int] = []
        self.start: list[int] = []
        self.parts: list[int] = []
        self.turns: list[tuple[int, int] | None] = []  # global turn -> (conversation, position); None: a gap
        df: dict[str, int] = {}
        for c, conv_turns in enumerate(turns):
            self._add(None, ())
            for t, turn in enumerate(conv_turns):
                units = words_of.get(turn.text)
                if units is None:  # a text met again (a copy, a re-saved branch) is split once
                    units = words_of[turn.text] = _units(turn.text)
                self._add((c, t), units)
                for unit in units:
                    for term in unit:
                        df[term] = df.get(term, 0) + 1
        self.stats = _Stats(df)

    def _add(self, where: tuple[int, int] | None, units: Sequence[tuple[str, ...]]) -> None:
        turn = len(self.turns)
        self.turns.append(where)
        self.start.append(len(self.terms_of))
        self.parts.append(len(units))
        self.terms_of.extend(units)
        self.turn_of.extend([turn] * len(units))


def _units(text: str) -> list[tuple[str, ...]]:
    """A turn's paragraphs, each as the distinct words it holds (retrieve stems them itself)."""
    out = []
    for para in _PARAGRAPH.split(text):
        found = tuple(dict.fromkeys(ranking.words(para)))
        if found:
            out.append(found)
    return out


def rank(
    query: str, turns: Sequence[Sequence[Turn]], titles: Sequence[str], title_weight: float
) -> list[Passage]:
    """The passages of the candidates' turns for `query`, best first. A passage whose conversation's title
    holds query words gains `title_weight` of the best passage's score for each share of the query's
    words it holds: a conversation about the subject."""
    words_of: dict[str, list[tuple[str, ...]]] = {}
    corpus = _Candidates(turns, words_of)
    query_words = list(dict.fromkeys(ranking.words(query)))
    gaps = [i for i, where in enumerate(corpus.turns) if where is None]
    found = engine.retrieve(corpus, query_words, exclude=gaps)  # type: ignore[arg-type]  # (see _Candidates)
    if not found.passages:
        return []
    wanted = {engine.stem(w) for w in query_words}
    title_share = [
        len(wanted & {engine.stem(w) for w in ranking.words(title)}) / len(wanted) for title in titles
    ]
    best = found.passages[0].score
    out = []
    for p in found.passages:
        where = corpus.turns[p.hit]
        if where is None:
            continue
        c, t = where
        around = tuple(corpus.turns[j][1] for j in p.turns if corpus.turns[j] is not None)  # type: ignore[index]
        out.append(Passage(c, t, around, p.score + title_weight * best * title_share[c]))
    out.sort(key=lambda p: (-p.score, p.conversation, p.hit))
    return out
