"""Spend a token budget: instructions and the last user message first, then the most
recent turns verbatim, then the units of the older turns that cover the most
information per token (coverage.py).
"""

from __future__ import annotations

import heapq
import statistics
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import counting
from .counting import Meter
from .coverage import (
    CANDIDATE_TOKENS,
    COST_POWER,
    KIND_PRIOR,
    LINE_OVERHEAD,
    MARKUP_DISCOUNT,
    MIN_CANDIDATES,
    QUESTION_WEIGHT,
    Coverage,
    densest,
    role_weight,
    self_weight,
)
from .turn_costs import TURN_OVERHEAD, TurnCosts, all_fit, fit_mandatory
from .turns import Turn

if TYPE_CHECKING:  # units exist only when a conversation does not fit: their modules load then
    from .corpus import Corpus
    from .digest import Unit

MIN_ANSWER = 120  # tokens: shorter than this, a cut answer says too little to keep
COVERED_BY_RECENT = False  # what the verbatim recent turns say need not be said again
FOCUS_WEIGHT = 1.5  # how much relevance to an explicit --focus multiplies a unit's value
# the same for the default query: the title and the last user turns (relevance is scaled to the best unit
# outside the query's own turns, so this weight reaches the rest of the conversation)
DEFAULT_FOCUS_WEIGHT = 2.0
# Without a focus, SPREAD_SHARE of the digest's room can be shared out over CATCH_UP_PARTS equal stretches of
# the older turns, each filled with its own densest units (the rest, and what a stretch leaves unused, goes to
# the best units anywhere), against term statistics that favour a conversation's opening. One part (no
# spread) is what leave-one-out on LoCoMo chooses in every fold since small-talk sentences weigh less
# (coverage.GENERIC_WEIGHT): 39.1 % / 55.6 % / 79.6 % at 2k / 4k / 8k against 37.7 % / 56.0 % / 79.6 % for five.
CATCH_UP_PARTS = 1
SPREAD_SHARE = 0.5
RECENT_YIELD = 0.5  # the share of the recent turns' room a query that matched fully gives to passages


@dataclass
class Plan:
    instructions: list[tuple[str, str]]
    verbatim: list[Turn]  # chronological
    coverage: Coverage | None
    truncated: list[str] = field(default_factory=list)  # ids of messages cut in the middle

    @property
    def chosen(self) -> list[Unit]:
        return self.coverage.units() if self.coverage else []


def densities(corpus: Corpus, focus_weight: float) -> tuple[array[float], list[bool | None]]:
    """Every unit's rough value per estimated token, with its prior and relevance, and whether it is in
    CJK script (None for code, which is in no language's script), by unit index (kept with the corpus: a
    warm host builds it again at other budgets)."""
    kept = corpus.densities.get(focus_weight)
    if kept is not None:
        return kept
    value = corpus.stats.rough_of.__getitem__
    rel = corpus.relevance
    density = array("d")  # (8 bytes a unit, not a float object and its slot: 2 MB of 5 MB of chat)
    cjk: list[bool | None] = []
    k = 0
    for turn, tu in enumerate(corpus.every_text_units()):  # (a slim corpus made them for its own weight)
        role = role_weight(corpus.turns[turn].role, corpus.turns[turn].text)
        for part, size, pipes, question in zip(tu.parts, tu.sizes, tu.pipes, tu.questions):
            prior = role * self_weight(part[0], part[1]) * KIND_PRIOR[part[0]]
            prior *= QUESTION_WEIGHT if question else 1.0
            if k in rel:
                prior *= 1.0 + focus_weight * rel[k]
            cost = max(1, size // 4 + 1 + LINE_OVERHEAD - MARKUP_DISCOUNT * pipes)
            density.append(sum(map(value, part[2])) * prior / cost**COST_POWER)
            k += 1
        cjk.extend(None if part[0] == "code" else c for part, c in zip(tu.parts, tu.cjk))
    corpus.densities[focus_weight] = (density, cjk)
    return density, cjk


PREPARE_UNITS = 12_000  # the candidates of a build with about 96k tokens of room (CANDIDATE_TOKENS each)
PREPARE_RECENT_BYTES = 400_000  # characters of the latest turns: about the verbatim share of a 400k budget


def prepare(
    corpus: Corpus,
    focus_weight: float,
    keep_going: Callable[[], bool],
    memo: counting.CountMemo | None = None,
) -> None:
    """Weigh and count the densest units ahead of a build whose budget is not known yet (a host, after a
    save's reply): the candidates of builds with up to PREPARE_UNITS * CANDIDATE_TOKENS tokens of room;
    then count the latest turns' lines, into `memo` (the counts the builds that follow read). Stops when
    `keep_going()` says so. A corpus is prepared once (a kept corpus: the conversation saved again
    unchanged, or read again)."""
    if focus_weight in corpus.prepared:
        return
    density, _ = densities(corpus, focus_weight)
    best = heapq.nlargest(
        min(PREPARE_UNITS, counting.MAX_COUNTS // 2), range(len(density)), key=density.__getitem__
    )
    meter = Meter("o200k_base", memo=memo)  # the base encoding of the OpenAI targets and of the estimates
    units = []
    for i, k in enumerate(best):
        if not i % 256:
            if not keep_going():
                corpus.begin()
                return
            corpus.fetch(corpus.turn_of[k] for k in best[i : i + 256])  # (a slim corpus reads them back)
        u = corpus.unit(k)
        u.weights = corpus.weigh(u)
        if u.tokens < 0:  # (units read back from the archive come with their counts)
            meter.base_count(u.text)
        units.append(u)
    from . import digest  # (loaded with the units: a build that fits by its bytes loads none)

    # what each unit states, kept in corpus.statements (the marks are on units no build uses)
    digest.mark_repeats_and_corrections(sorted(units, key=lambda u: u.key), corpus.stats, corpus.statements)
    corpus.begin()  # (the units made here are not a build's)
    # the lines of the latest turns, which a build sends verbatim and counts line by line (count_lines)
    size = 0
    for turn in reversed(corpus.turns):
        if size > PREPARE_RECENT_BYTES:
            break
        if not keep_going():
            return
        size += len(turn.text)
        meter.count_lines(turn.text)
    corpus.prepared.add(focus_weight)


def _preselect(corpus: Corpus, verbatim: dict[int, Turn], room: int, focus_weight: float) -> list[Unit]:
    """The units worth weighing for `room` tokens, in order: the densest by a rough value, so the
    cost of the selection follows the budget, not the length of the conversation."""
    limit = max(MIN_CANDIDATES, room // CANDIDATE_TOKENS)
    every_density, every_cjk = densities(corpus, focus_weight)
    keys = [
        k
        for turn, parts in enumerate(corpus.parts)
        if turn not in verbatim
        for k in range(corpus.start[turn], corpus.start[turn] + parts)
    ]
    density = list(map(every_density.__getitem__, keys))
    cjk = list(map(every_cjk.__getitem__, keys))
    scale = _script_scales(cjk, density)
    if scale[True] != scale[False]:
        density = [d * scale[c] for d, c in zip(density, cjk)]
    best: list[int] | range = range(len(keys))
    if len(keys) > limit:
        best = densest(density, limit)
    corpus.fetch(corpus.turn_of[keys[i]] for i in best)
    chosen = [corpus.unit(keys[i]) for i in best]
    for i, u in zip(best, chosen):
        u.script_scale = scale[cjk[i]]
    return chosen


SCRIPT_MIN_UNITS = 20  # a script with fewer units in the conversation is not rescaled
SCRIPT_SAMPLE = 20_000


def _script_scales(cjk: list[bool | None], density: list[float]) -> dict[bool | None, float]:
    """Value per token differs by script: a Chinese term (a character bigram) is about a token and
    bigrams are shared more than words, so an English passage in a Chinese conversation looks denser than
    the Chinese facts around it. Each script is scaled so that its median density is the median of the
    prose units: units compete on how informative they are for their script. A conversation in one script
    is unchanged. Code (None) is not scaled: its identifiers are what they are in any conversation, and
    scaled as English it fell below every Chinese sentence."""
    step = max(1, len(density) // SCRIPT_SAMPLE)  # medians of an evenly spaced sample: cost stays flat
    by: dict[bool, list[float]] = {True: [], False: []}
    for c, d in zip(cjk[::step], density[::step]):
        if d > 0 and c is not None:
            by[c].append(d)
    if min(len(by[True]), len(by[False])) < SCRIPT_MIN_UNITS:
        return {True: 1.0, False: 1.0, None: 1.0}
    middle = statistics.median(by[True] + by[False])
    return {None: 1.0, **{c: middle / statistics.median(ds) for c, ds in by.items()}}


def plan(
    turns: list[Turn],
    last_pos: int,
    instructions: list[tuple[str, str]],
    get_corpus: Callable[[], Corpus],
    meter: Meter,
    room: int,
    recent_share: float,
    counts: dict[str, int] | None,
    focus_weight: float,
    passage_query: str = "",
    passage_share: float = 0.0,
    parts: int = 1,
) -> Plan:
    """Instructions and the last user message, the recent turns, the passages retrieved for
    `passage_query` (up to `passage_share` of the room left, as much as the query matched well) and the
    coverage digest (its room shared out over `parts` stretches of the older turns first)."""
    truncated: list[str] = []
    instructions, last, used = fit_mandatory(instructions, turns[last_pos], meter, room, truncated)
    left = room - used if not truncated else 0  # a cut last message leaves nothing for the rest
    verbatim: dict[int, Turn] = {last_pos: last}
    costs = TurnCosts(turns, meter, counts)
    # turns after the last user message (its answers), then backwards from it: the recent turns
    nearest_first = list(range(last_pos + 1, len(turns))) + list(range(last_pos - 1, -1, -1))
    if all_fit(costs, nearest_first, left):  # everything fits: nothing to choose
        return Plan(instructions, list(turns), None, truncated)
    # loaded with the units: a build that fits by its bytes loads none of these
    from . import digest, retrieve
    from .salience import GRAMMAR, terms

    corpus = get_corpus()  # only a conversation that does not fit needs its units
    found = retrieve.Retrieval([], 0.0)
    if passage_share and passage_query:
        query = [t for t, kind in terms(passage_query).items() if kind != GRAMMAR]
        found = retrieve.retrieve(corpus, query, corpus.skip | {last_pos})
    offered = passage_share * retrieve.share(found.strength)
    # a query that matched well needs fewer recent turns: it says what the continuation is about
    recent_room = int(left * recent_share * (1.0 - RECENT_YIELD * offered))
    spent = 0
    for pos in nearest_first:  # while they fit
        cost = costs[pos]
        if spent + cost > recent_room and pos > last_pos and recent_room - spent >= MIN_ANSWER:
            # an answer to the last user message that is too long: its middle goes, not all of it
            turn = turns[pos]
            short = meter.truncate_middle(turn.text, recent_room - spent - TURN_OVERHEAD)
            verbatim[pos] = Turn(turn.index, turn.id, turn.role, short)
            truncated.append(turn.id)
            spent += meter.count(short) + TURN_OVERHEAD
            break
        if spent + cost > recent_room:
            break
        verbatim[pos] = turns[pos]
        spent += cost
    left -= spent
    recent = corpus.units_of_turns(verbatim)
    chosen = _preselect(corpus, verbatim, left, focus_weight)
    for u in chosen:
        u.weights = corpus.weigh(u)
    digest.mark_repeats_and_corrections(
        sorted(chosen + recent, key=lambda u: (u.turn, u.seq)), corpus.stats, corpus.statements
    )
    covered = {t for u in recent for t in u.terms} if COVERED_BY_RECENT else set()
    coverage = Coverage(chosen, meter, focus_weight, covered, (corpus, verbatim))
    left -= retrieve.pin(coverage, corpus, found.passages, verbatim, int(left * offered))
    if parts > 1:
        older, each = min(verbatim), int(left * SPREAD_SHARE) // parts
        for part in range(parts):
            left -= coverage.fill(each, range(older * part // parts, older * (part + 1) // parts))
    left -= coverage.fill(left)
    # room the coverage left (what remains is worth little, or too big): earlier turns verbatim, each
    # taking back the room of its chosen units, then the remaining units, most recent first
    pos = min(verbatim) - 1
    while pos >= 0 and not truncated:
        freed = coverage.turn_tokens(pos)
        if costs[pos] > left + freed:
            break
        coverage.remove_turn(pos)
        verbatim[pos] = turns[pos]
        left += freed - costs[pos]
        pos -= 1
    coverage.fill_rest(left)
    return Plan(instructions, [verbatim[p] for p in sorted(verbatim)], coverage, truncated)
