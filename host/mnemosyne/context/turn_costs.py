"""What whole turns cost in a plan: a turn's tokens with its framing, counted when the plan first looks at the
turn, and the turns that always go in (the instructions and the last user message), cut in the middle if they
must (select.plan)."""

from __future__ import annotations

from .counting import Meter
from .turns import Turn

TURN_OVERHEAD = 8  # role label, blank lines, per-message framing of the API shapes


def turn_cost(turn: Turn, meter: Meter, counts: dict[str, int] | None) -> int:
    base = counts.get(turn.id) if counts else None
    cost = meter.scale(base) if base is not None else meter.count(turn.text)
    return cost + TURN_OVERHEAD


class TurnCosts(dict[int, int]):
    """Each turn's cost by its position, counted when first asked for: of a long history without stored
    counts (a redacted build), only the turns a build looks at are counted."""

    def __init__(self, turns: list[Turn], meter: Meter, counts: dict[str, int] | None):
        super().__init__()
        self.turns, self.meter, self.counts = turns, meter, counts

    def __missing__(self, pos: int) -> int:
        cost = self[pos] = turn_cost(self.turns[pos], self.meter, self.counts)
        return cost


def all_fit(costs: TurnCosts, positions: list[int], room: int) -> bool:
    """Whether the turns at `positions` fit `room` together; counted in order only until they do not."""
    total = 0
    for pos in positions:
        total += costs[pos]
        if total > room:
            return False
    return True


def fit_mandatory(
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
