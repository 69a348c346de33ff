"""Spend a token budget: instructions and the last user message first, then the most
recent turns verbatim, then the units of the older turns that cover the most
information per token.

The coverage step is the budgeted greedy of submodular summarisation (Lin and
Bilmes): a unit's gain is the weight of its terms, each term worth less every time
a chosen unit already covers it, divided by the unit's token cost. Restatements
gain little once their facts are in, so they are not chosen twice; a unit whose
gain has fallen under REDUNDANT of its own value is a near-duplicate and is left
out. Lazy evaluation keeps the cost near one pass over the units.
"""

from __future__ import annotations

import heapq
import math
import statistics
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import counting
from .counting import Meter
from .turn_costs import TURN_OVERHEAD, TurnCosts, all_fit, fit_mandatory
from .turns import Turn

if TYPE_CHECKING:  # units exist only when a conversation does not fit: their modules load then
    from .corpus import Corpus
    from .digest import Unit

LINE_OVERHEAD = 2  # the space, "… " or newline that joins a unit to its neighbours
GROUP_OVERHEAD = 7  # the [role #n] line that opens a compressed turn
MIN_ANSWER = 120  # tokens: shorter than this, a cut answer says too little to keep

# the coverage objective (a term counts once: covering it again adds nothing); tuned on the tuning
# halves of the benchmarks only
COST_POWER = 1.0  # gain / cost^p: below 1 leans towards fuller units over scraps
MIN_CANDIDATES = 600  # the selector looks at the densest max(this, room / CANDIDATE_TOKENS) units
# one candidate per 8 tokens of room, 4-5x what fits (4 gives the same picks on the tuning halves at
# half the work only at large budgets)
CANDIDATE_TOKENS = 8
ESTIMATE_LOW = 0.6  # a byte/4 estimate can be this much over the real count
COVERED_BY_RECENT = False  # what the verbatim recent turns say need not be said again
REDUNDANT = 0.3  # a unit whose fresh gain is under this share of its value repeats what is in
FOCUS_WEIGHT = 1.5  # how much relevance to an explicit --focus multiplies a unit's value
# the same for the default query: the title and the last user turns (relevance is scaled to the best unit
# outside the query's own turns, so this weight reaches the rest of the conversation)
DEFAULT_FOCUS_WEIGHT = 2.0
# what only the user could have said weighs more; tool output is the noise a continuation needs least
ROLE_WEIGHT = {"user": 1.5, "assistant": 1.0, "tool": 0.5}
# no prior for tables and lists: 1.5 won on the tuning half, whose filler (tool-call demos) has few lists,
# and lost on real assistant answers, which are lists throughout
KIND_PRIOR = {"sentence": 1.0, "item": 1.0, "row": 1.0, "code": 1.0, "table": 1.0, "list": 1.0}
MARKUP_DISCOUNT = 1.0  # tokens per table pipe left out of a unit's cost when units are compared
QUESTION_WEIGHT = 0.5  # a question asks for information rather than stating it
# Diminishing returns per turn (the diversity reward of budgeted submodular summarisation): each unit
# already chosen from a turn scales the next one's gain by this, so a long answer does not fill the
# digest while other turns' facts go; a turn's first unit is not discounted.
TURN_DECAY = 0.8
RECENT_YIELD = 0.5  # the share of the recent turns' room a query that matched fully gives to passages


def _densest(values: list[float], limit: int) -> list[int]:
    """The indices of the `limit` largest values, ties to the earlier index, in index order. A stable sort
    on a C-level key: a key function called per element cost more than the whole sort."""
    top = sorted(range(len(values)), key=values.__getitem__, reverse=True)[:limit]
    top.sort()
    return top


def _markup(u: Unit) -> int:
    return u.text.count("|") if u.kind in ("table", "row") else 0


def _prior(u: Unit) -> float:
    from .digest import QUESTION_END  # (loaded with the units: see the imports)

    question = u.kind == "sentence" and u.text.rstrip().endswith(QUESTION_END)
    return ROLE_WEIGHT.get(u.role, 1.0) * KIND_PRIOR[u.kind] * (QUESTION_WEIGHT if question else 1.0)


class Coverage:
    """The units chosen so far and the terms they cover; fill() adds more within a room."""

    def __init__(
        self,
        units: list[Unit],
        meter: Meter,
        focus_weight: float,
        covered: set[str],
        rest: tuple[Corpus, dict[int, Turn]] | None = None,
    ):
        """`units`: the candidates; `rest`: the path's units and the turns that went in verbatim, for
        fill_rest."""
        self.meter = meter
        self.rest = rest
        self.pool = [u for u in units if not u.repeat and not u.superseded and u.weights]
        self._total = [math.fsum(u.weights.values()) for u in self.pool]  # each unit's term weight
        self.base = [
            total * (1.0 + focus_weight * u.relevance) * _prior(u) * u.script_scale
            for total, u in zip(self._total, self.pool)
        ]
        self.covered = set(covered)  # terms the verbatim turns already carry
        self.given = frozenset(covered)
        self.chosen: dict[int, float] = {}  # pool index -> gain when chosen
        self.turns: dict[int, int] = {}  # turn -> chosen units in it
        self.redundant: set[int] = set()  # near-duplicates of what is chosen: left for fill_rest
        self.removed: set[int] = set()  # taken out to fit, or their turn went in verbatim: never again
        self._cost: dict[int, int] = {}
        self._markup = [_markup(u) for u in self.pool]
        self._at = {u.key: i for i, u in enumerate(self.pool)}  # corpus index -> pool index
        self._by_turn: dict[int, list[int]] = {}
        self._by_turn_size = -1

    def cost(self, k: int) -> int:
        """Exact tokens of unit k, plus the line that opens its turn when none of the turn is in yet."""
        if k not in self._cost:
            u = self.pool[k]
            self._cost[k] = self.meter.count_known(u.text, u.tokens) + LINE_OVERHEAD
        return self._cost[k] + (0 if self.pool[k].turn in self.turns else GROUP_OVERHEAD)

    def rank_cost(self, k: int) -> float:
        """What unit k's tokens weigh when units are compared: its cost without the table markup (the
        pipes say nothing, and a fact in a table should not pay for them twice against prose)."""
        return max(1.0, self.cost(k) - MARKUP_DISCOUNT * self._markup[k])

    def _estimate(self, k: int) -> int:
        if k in self._cost:
            return self.cost(k)
        return len(self.pool[k].text.encode()) // 4 + 1 + LINE_OVERHEAD + GROUP_OVERHEAD

    def gain(self, k: int) -> float:
        """The weight of the terms of unit k that no chosen unit covers yet, scaled like its base value."""
        weights = self.pool[k].weights
        if not self.base[k]:
            return 0.0
        if weights.keys().isdisjoint(self.covered):  # nothing of it covered yet (fsum is exact: the same sum)
            fresh = self._total[k]
        else:
            fresh = math.fsum(map(weights.__getitem__, weights.keys() - self.covered))
        return fresh * self.base[k] / self._total[k]

    def _take(self, k: int, gain: float) -> None:
        self.chosen[k] = gain
        u = self.pool[k]
        self.turns[u.turn] = self.turns.get(u.turn, 0) + 1
        self.covered.update(u.weights)

    def _candidates(self, room: int) -> list[int]:
        """The units worth looking at for `room` tokens: the densest few, so cost follows the budget."""
        estimate = self._estimate
        fits = [
            k
            for k in range(len(self.pool))
            if k not in self.chosen
            and k not in self.redundant
            and k not in self.removed
            and self.base[k] > 0
            and estimate(k) * ESTIMATE_LOW <= room
        ]
        limit = max(MIN_CANDIDATES, room // CANDIDATE_TOKENS)
        if len(fits) > limit:
            value = [self.base[k] / estimate(k) ** COST_POWER for k in fits]
            fits = [fits[i] for i in _densest(value, limit)]
        return fits

    def fill(self, room: int) -> int:
        """Greedy by gain per token while units fit; returns tokens used. Costs start as estimates and
        are counted exactly when a unit reaches the top (lazy greedy)."""
        used = 0
        heap = [
            (-self.base[k] / max(1.0, self._estimate(k) - MARKUP_DISCOUNT * self._markup[k]) ** COST_POWER, k)
            for k in self._candidates(room)
        ]
        heapq.heapify(heap)
        while heap and room - used > LINE_OVERHEAD:
            _, k = heapq.heappop(heap)
            gain = self.gain(k)
            if gain < REDUNDANT * self.base[k]:
                self.redundant.add(k)
                continue
            gain *= TURN_DECAY ** self.turns.get(self.pool[k].turn, 0)
            cost = self.cost(k)
            key = -gain / self.rank_cost(k) ** COST_POWER
            if heap and key > heap[0][0]:  # no longer the best: re-queue with its current value
                heapq.heappush(heap, (key, k))
                continue
            if used + cost > room:
                continue
            self._take(k, gain)
            used += cost
        return used

    def _of_turn(self, turn: int) -> list[int]:
        """Pool indices of the units of `turn` (the index is rebuilt when the pool grew)."""
        if self._by_turn_size != len(self.pool):
            self._by_turn = {}
            for k, u in enumerate(self.pool):
                self._by_turn.setdefault(u.turn, []).append(k)
            self._by_turn_size = len(self.pool)
        return self._by_turn.get(turn, [])

    def turn_tokens(self, turn: int) -> int:
        """Tokens the chosen units of `turn` take, with the line that opens the turn."""
        ks = [k for k in self._of_turn(turn) if k in self.chosen]
        return sum(self._cost[k] for k in ks) + (GROUP_OVERHEAD if ks else 0)

    def remove_turn(self, turn: int) -> None:
        """The turn goes in verbatim: its chosen units leave (their terms stay covered)."""
        for k in self._of_turn(turn):
            self.chosen.pop(k, None)
            self.removed.add(k)
        self.turns.pop(turn, None)

    def fill_rest(self, room: int) -> int:
        """Room the coverage left: the other units of the turns not in verbatim, most recent first,
        whatever their value, while they fit (never a repeat or a superseded statement). Units are made
        only when they can fit by their size."""
        if self.rest is None:
            return 0
        corpus, verbatim = self.rest
        chosen, removed, counted, pool, at = self.chosen, self.removed, self._cost, self.pool, self._at
        turn_of = corpus.turn_of
        used = 0
        for k in range(len(corpus) - 1, -1, -1):  # near-duplicates are better than empty room now
            left = room - used
            if left <= LINE_OVERHEAD:
                break
            if turn_of[k] in verbatim:
                continue
            i = at.get(k)
            if i is not None and (i in chosen or i in removed):
                continue
            if (i is None or i not in counted) and (
                corpus.size(k) // 4 + 1
            ) * ESTIMATE_LOW + LINE_OVERHEAD > left:
                continue  # cannot fit by the estimate: not worth an exact count
            u = pool[i] if i is not None else corpus.unit(k)
            if u.repeat or u.superseded:
                continue
            if i is None:
                i = at[k] = len(pool)
                pool.append(u)
                self.base.append(0.0)
                self._total.append(0.0)
                self._markup.append(_markup(u))
            cost = self.cost(i)
            if cost <= left:
                self._take(i, 0.0)
                used += cost
        return used

    def drop_least(self, tokens_needed: int) -> bool:
        """Take out the least valuable chosen units worth about `tokens_needed`; False when none are left."""
        if not self.chosen:
            return False
        freed = 0
        for k in sorted(self.chosen, key=lambda k: (self.chosen[k] / self.rank_cost(k) ** COST_POWER, -k)):
            if freed >= tokens_needed:
                break
            freed += self.cost(k)
            del self.chosen[k]
            self.removed.add(k)
            u = self.pool[k]
            self.turns[u.turn] -= 1
            if not self.turns[u.turn]:
                del self.turns[u.turn]
        self.covered = set(self.given).union(*(self.pool[k].weights for k in self.chosen))
        return True

    def index(self, u: Unit) -> int:
        """Unit u's index in the pool, added to it (valued nothing by the coverage) when not a candidate."""
        i = self._at.get(u.key)
        if i is None:
            i = self._at[u.key] = len(self.pool)
            self.pool.append(u)
            self.base.append(0.0)
            self._total.append(0.0)
            self._markup.append(_markup(u))
        return i

    def pin(self, ks: list[int], value: float, room: int, weigh: Callable[[Unit], dict[str, float]]) -> int:
        """Take the units `ks` (a retrieved passage) together, valued `value`, when they fit `room` (their
        terms, weighed by `weigh`, are covered then); returns the tokens they take (0: they do not fit, or
        are in already)."""
        ks = [k for k in ks if k not in self.chosen and k not in self.removed]
        opened = {self.pool[k].turn for k in ks} - self.turns.keys()  # turns whose line it opens
        cost = sum(self.cost(k) for k in ks) - GROUP_OVERHEAD * (
            sum(1 for k in ks if self.pool[k].turn in opened) - len(opened)
        )
        if not ks or cost > room:
            return 0
        for k in ks:
            u = self.pool[k]
            if not u.weights:
                u.weights = weigh(u)
            self._take(k, value)
        return cost

    def units(self) -> list[Unit]:
        """The chosen units in conversation order."""
        return sorted((self.pool[k] for k in self.chosen), key=lambda u: u.key)


@dataclass
class Plan:
    instructions: list[tuple[str, str]]
    verbatim: list[Turn]  # chronological
    coverage: Coverage | None
    truncated: list[str] = field(default_factory=list)  # ids of messages cut in the middle

    @property
    def chosen(self) -> list[Unit]:
        return self.coverage.units() if self.coverage else []


def densities(corpus: Corpus, focus_weight: float) -> tuple[array[float], list[bool]]:
    """Every unit's rough value per estimated token, with its prior and relevance, and whether it is in
    CJK script, by unit index (kept with the corpus: a warm host builds it again at other budgets)."""
    kept = corpus.densities.get(focus_weight)
    if kept is not None:
        return kept
    value = corpus.stats.rough_of.__getitem__
    rel = corpus.relevance
    density = array("d")  # (8 bytes a unit, not a float object and its slot: 2 MB of 5 MB of chat)
    cjk: list[bool] = []
    k = 0
    for turn, tu in enumerate(corpus.every_text_units()):  # (a slim corpus made them for its own weight)
        role = ROLE_WEIGHT.get(corpus.turns[turn].role, 1.0)
        for part, size, pipes, question in zip(tu.parts, tu.sizes, tu.pipes, tu.questions):
            prior = role * KIND_PRIOR[part[0]] * (QUESTION_WEIGHT if question else 1.0)
            if k in rel:
                prior *= 1.0 + focus_weight * rel[k]
            cost = max(1, size // 4 + 1 + LINE_OVERHEAD - MARKUP_DISCOUNT * pipes)
            density.append(sum(map(value, part[2])) * prior / cost**COST_POWER)
            k += 1
        cjk.extend(tu.cjk)
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
        best = _densest(density, limit)
    corpus.fetch(corpus.turn_of[keys[i]] for i in best)
    chosen = [corpus.unit(keys[i]) for i in best]
    for i, u in zip(best, chosen):
        u.script_scale = scale[cjk[i]]
    return chosen


SCRIPT_MIN_UNITS = 20  # a script with fewer units in the conversation is not rescaled
SCRIPT_SAMPLE = 20_000


def _script_scales(cjk: list[bool], density: list[float]) -> dict[bool, float]:
    """Value per token differs by script: a Chinese term (a character bigram) is about a token and
    bigrams are shared more than words, so an English or code passage in a Chinese conversation looks
    denser than the Chinese facts around it. Each script is scaled so that its median density is the
    median of all units: units compete on how informative they are for their script. A conversation in
    one script is unchanged."""
    step = max(1, len(density) // SCRIPT_SAMPLE)  # medians of an evenly spaced sample: cost stays flat
    by: dict[bool, list[float]] = {True: [], False: []}
    for c, d in zip(cjk[::step], density[::step]):
        if d > 0:
            by[c].append(d)
    if min(len(by[True]), len(by[False])) < SCRIPT_MIN_UNITS:
        return {True: 1.0, False: 1.0}
    middle = statistics.median(by[True] + by[False])
    return {c: middle / statistics.median(ds) for c, ds in by.items()}


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
) -> Plan:
    """Instructions and the last user message, the recent turns, the passages retrieved for
    `passage_query` (up to `passage_share` of the room left, as much as the query matched well) and the
    coverage digest."""
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
