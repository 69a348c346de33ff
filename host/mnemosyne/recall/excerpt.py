"""A long turn cut to what bears on the query: its best-matching paragraphs, wherever they are in it.

The paragraphs holding query words are taken best first while they fit (ranked by how many of the query's
terms each holds, then BM25 among the turn's paragraphs), then grown into the paragraphs next to them
while the room lasts; they are given in the turn's order, with GAP where text was left out. Growing one
window around the single best paragraph lost an answer that sits a few paragraphs before a code block
holding the same words (tuning half of tests/bench/recall_bench.py at 400 tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import ranking

if TYPE_CHECKING:
    from ..context.counting import Meter

GAP = "[…]"
MAX_TRIALS = 40  # counts of a turn's excerpt: a turn of hundreds of paragraphs is not tried piece by piece


def excerpt(meter: Meter, query: Sequence[str], text: str, cap: int) -> str:
    """`text` when it counts at most `cap` tokens; else its best pieces (ranking.paragraphs) that fit, or a
    window of the best one around its first query word; "" when not even that fits."""
    if cap <= 0:
        return ""
    if meter.count(text) <= cap:
        return text
    pieces = ranking.paragraphs(text)
    if not pieces:
        return ""
    order = ranking.rank_paragraphs(query, pieces)
    chosen: set[int] = set()
    trials = 0
    for i in order:
        if trials >= MAX_TRIALS:
            break
        trials += 1
        if meter.count(_render(pieces, chosen | {i})) <= cap:
            chosen.add(i)
        elif not chosen:
            return _cut_around_hit(meter, query, pieces[i], cap)
    grown = True
    while grown and trials < MAX_TRIALS:  # the paragraphs next to the chosen ones, the best's first
        grown = False
        for i in [j for j in order if j in chosen]:
            for j in (i + 1, i - 1):
                if 0 <= j < len(pieces) and j not in chosen and trials < MAX_TRIALS:
                    trials += 1
                    if meter.count(_render(pieces, chosen | {j})) <= cap:
                        chosen.add(j)
                        grown = True
    return _render(pieces, chosen)


def _render(pieces: Sequence[str], chosen: set[int]) -> str:
    """The chosen pieces in order, GAP where pieces were left out (before, between, after)."""
    out: list[str] = []
    last = -1
    for i in sorted(chosen):
        if i != last + 1:
            out.append(GAP)
        out.append(pieces[i])
        last = i
    if last != len(pieces) - 1:
        out.append(GAP)
    return "\n\n".join(out)


def _cut_around_hit(meter: Meter, query: Sequence[str], text: str, cap: int) -> str:
    """A window of one long paragraph around its first query word, shrunk until it fits."""
    folded = text.casefold()
    hits = [folded.find(t) for t in query if t and folded.find(t) >= 0]
    at = min(hits) if hits else 0
    width = cap * 4
    while width > 8:
        start = max(0, at - width // 3)
        # cut between words: a word cut in two is one the encoder of a one-off process was not made for
        while 0 < start < at and not text[start - 1].isspace():
            start += 1
        end = min(len(text), start + width)
        while start < end < len(text) and not text[end].isspace():
            end -= 1
        out = f"{GAP} {text[start:end]} {GAP}"
        if meter.count(out) <= cap:
            return out
        width = int(width * 0.8)
    return ""
