"""Spend a token budget: instructions and the last user message first, then the
most recent turns verbatim, then the best digest sentences and code of the
older turns, then more recent turns with whatever is left."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import tokens
from .digest import Candidate
from .turns import Turn

TURN_OVERHEAD = 8  # role label, blank lines, per-message framing of the API shapes
LINE_OVERHEAD = 4  # bullet / role tag / newline of a digest or compressed line
GROUP_OVERHEAD = 6  # the [role #n] line that opens a compressed turn
MIN_SCORE = 1.0  # first pass: only candidates that carry a clear signal
MIN_ANSWER = 120  # tokens: shorter than this, a cut answer says too little to keep
MAX_SKIPS = 400  # stop looking once this many candidates in a row did not fit


class Meter:
    """Counts text with a target's tokenizer (exact, or the estimate)."""

    def __init__(self, tokenizer: str):
        self.tokenizer = tokenizer
        self.base = tokens.base_encoding(tokenizer)
        self._enc = tokens.encoding(self.base)

    def base_count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text)) if text else 0

    def count(self, text: str) -> int:
        return tokens.scale(self.base_count(text), self.tokenizer)

    def scale(self, base: int) -> int:
        return tokens.scale(base, self.tokenizer)

    def truncate_middle(self, text: str, limit: int) -> str:
        """Keep the head and tail of `text` so it counts at most `limit` tokens."""
        if self.count(text) <= limit:
            return text
        ids = self._enc.encode_ordinary(text)
        # tokens of the base encoding we may keep, minus the marker
        keep = max(0, math.floor(limit / tokens.scale(1000, self.tokenizer) * 1000) - 16)
        while True:
            head, tail = keep - keep // 3, keep // 3
            omitted = len(ids) - head - tail
            out = (
                self._enc.decode(ids[:head]).rstrip("\ufffd")
                + f"\n[… {omitted} tokens omitted …]\n"
                + (self._enc.decode(ids[len(ids) - tail :]).lstrip("\ufffd") if tail else "")
            )
            if self.count(out) <= limit or keep == 0:
                return out if self.count(out) <= limit else ""
            keep = max(0, keep - max(4, keep // 10))


@dataclass
class Plan:
    instructions: list[tuple[str, str]]
    verbatim: list[Turn]  # chronological
    chosen: list[Candidate]  # chronological
    truncated: list[str] = field(default_factory=list)  # ids of messages cut in the middle


def _turn_cost(turn: Turn, meter: Meter, counts: dict[str, int] | None) -> int:
    base = counts.get(turn.id) if counts else None
    cost = meter.scale(base) if base is not None else meter.count(turn.text)
    return cost + TURN_OVERHEAD


def _fit_mandatory(
    instructions: list[tuple[str, str]], last: Turn, meter: Meter, room: int, truncated: list[str]
) -> tuple[list[tuple[str, str]], Turn, int]:
    """Instructions and the last user message always go in; cut their middles if they must."""
    costs = [meter.count(t) + TURN_OVERHEAD for _, t in instructions]
    last_cost = meter.count(last.text) + TURN_OVERHEAD
    if sum(costs) + last_cost <= room:
        return instructions, last, sum(costs) + last_cost
    # the last user message gets at least half the room, the instructions share the rest
    last_limit = max(room // 2, room - sum(costs))
    if last_cost > last_limit:
        last = Turn(
            last.index, last.id, last.role, meter.truncate_middle(last.text, last_limit - TURN_OVERHEAD)
        )
        truncated.append(last.id)
        last_cost = meter.count(last.text) + TURN_OVERHEAD
    left = room - last_cost
    fitted: list[tuple[str, str]] = []
    for (label, text), cost in zip(instructions, costs):
        share = left // max(1, len(instructions) - len(fitted))
        if cost > share:
            text = meter.truncate_middle(text, max(0, share - TURN_OVERHEAD))
            cost = meter.count(text) + TURN_OVERHEAD
        if text:
            fitted.append((label, text))
            left -= cost
    used = last_cost + sum(meter.count(t) + TURN_OVERHEAD for _, t in fitted)
    return fitted, last, used


def _pick(
    pool: list[tuple[int, Candidate]],
    meter: Meter,
    room: int,
    chosen: dict[int, Candidate],
    costs: dict[int, int],
    min_score: float,
) -> int:
    """Add the best-scoring candidates that fit; returns tokens used."""
    used = 0
    skips = 0
    groups = {chosen[k].turn for k in chosen}
    for key, cand in pool:
        if key in chosen or cand.score < min_score:
            continue
        if key not in costs:
            costs[key] = meter.count(cand.text) + LINE_OVERHEAD
        cost = costs[key] + (0 if cand.turn in groups else GROUP_OVERHEAD)
        if used + cost > room:
            skips += 1
            if skips > MAX_SKIPS or room - used < LINE_OVERHEAD + 2:
                break
            continue
        skips = 0
        chosen[key] = cand
        groups.add(cand.turn)
        used += cost
    return used


def plan(
    turns: list[Turn],
    last_pos: int,
    instructions: list[tuple[str, str]],
    make_candidates: Callable[[set[int]], list[Candidate]],
    meter: Meter,
    room: int,
    recent_share: float,
    counts: dict[str, int] | None,
) -> Plan:
    truncated: list[str] = []
    instructions, last, used = _fit_mandatory(instructions, turns[last_pos], meter, room, truncated)
    left = room - used if not truncated else 0  # a cut last message leaves nothing for the rest
    verbatim: dict[int, Turn] = {last_pos: last}
    recent_room = int(left * recent_share)
    spent = 0
    # turns after the last user message (its answers), then backwards from it, while they fit
    order = list(range(last_pos + 1, len(turns))) + list(range(last_pos - 1, -1, -1))
    cursor = 0
    for cursor, pos in enumerate(order):
        cost = _turn_cost(turns[pos], meter, counts)
        if spent + cost > recent_room and pos > last_pos and recent_room - spent >= MIN_ANSWER:
            # an answer to the last user message that is too long: its middle goes, not all of it
            turn = turns[pos]
            short = meter.truncate_middle(turn.text, recent_room - spent - TURN_OVERHEAD)
            verbatim[pos] = Turn(turn.index, turn.id, turn.role, short)
            truncated.append(turn.id)
            spent += meter.count(short) + TURN_OVERHEAD
            cursor += 1
            break
        if spent + cost > recent_room:
            break
        verbatim[pos] = turns[pos]
        spent += cost
    else:
        cursor = len(order)
    left -= spent
    cands = make_candidates(set(verbatim))
    pool = sorted(
        ((k, c) for k, c in enumerate(cands) if c.turn not in verbatim),
        key=lambda kc: (-kc[1].score, kc[1].turn, kc[1].seq),
    )
    chosen: dict[int, Candidate] = {}
    costs: dict[int, int] = {}
    left -= _pick(pool, meter, left, chosen, costs, MIN_SCORE)
    # leftover room: more recent turns verbatim, absorbing their chosen sentences
    for pos in order[cursor:]:
        if pos > last_pos:
            continue
        freed = [k for k, c in chosen.items() if c.turn == pos]
        refund = sum(costs[k] for k in freed) + (GROUP_OVERHEAD if freed else 0)
        cost = _turn_cost(turns[pos], meter, counts)
        if cost > left + refund:
            break
        for k in freed:
            del chosen[k]
        verbatim[pos] = turns[pos]
        left += refund - cost
    pool = [(k, c) for k, c in pool if c.turn not in verbatim]
    left -= _pick(pool, meter, left, chosen, costs, -math.inf)
    ordered = sorted(chosen.values(), key=lambda c: (c.turn, c.seq))
    return Plan(instructions, [verbatim[p] for p in sorted(verbatim)], ordered, truncated)
