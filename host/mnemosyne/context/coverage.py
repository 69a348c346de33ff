"""The coverage digest: the units of the older turns that cover the most information per token.

The budgeted greedy of submodular summarisation (Lin and Bilmes): a unit's gain is
the weight of its terms, each term worth less every time a chosen unit already
covers it, divided by the unit's token cost. Restatements gain little once their
facts are in, so they are not chosen twice; a unit whose gain has fallen under
REDUNDANT of its own value is a near-duplicate and is left out. Lazy evaluation
keeps the cost near one pass over the units.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from .counting import Meter

if TYPE_CHECKING:  # units exist only when a conversation does not fit: their modules load then
    from .corpus import Corpus
    from .digest import Unit
    from .turns import Turn

LINE_OVERHEAD = 2  # the space, "… " or newline that joins a unit to its neighbours
GROUP_OVERHEAD = 7  # the [role #n] line that opens a compressed turn

# the coverage objective (a term counts once: covering it again adds nothing); tuned on the tuning
# halves of the benchmarks only
COST_POWER = 1.0  # gain / cost^p: below 1 leans towards fuller units over scraps
MIN_CANDIDATES = 600  # the selector looks at the densest max(this, room / CANDIDATE_TOKENS) units
# one candidate per 8 tokens of room, 4-5x what fits (4 gives the same picks on the tuning halves at
# half the work only at large budgets)
CANDIDATE_TOKENS = 8
ESTIMATE_LOW = 0.6  # a byte/4 estimate can be this much over the real count
REDUNDANT = 0.3  # a unit whose fresh gain is under this share of its value repeats what is in
# what only the user could have said weighs more; tool output is the noise a continuation needs least
ROLE_WEIGHT = {"user": 1.5, "assistant": 1.0, "tool": 0.5}
# A long user message is mostly what the user pasted in (an article, a document, an exercise to solve), not
# what only they could have said: past this many bytes of UTF-8 (about 200 words, or 270 Chinese characters)
# its units weigh as the assistant's.
OWN_WORDS_BYTES = 800


# A sentence in the first person ("we decided", "my partner handles", 我们决定) tells the speakers' own
# situation, which the next tool cannot know otherwise; general knowledge it can say again.
SELF_WEIGHT = 1.3
# I, we, our(s), my, me as words, or 我, 咱: it opens with a character class and looks behind, so the regex
# engine skips to those letters in C (a word boundary first was tried at every position: 3x the time)
_FIRST_PERSON = re.compile(
    r"[IWwOoMm我咱](?:(?<=[我咱])|(?<![\w'][IWwOoMm])(?:(?<=I)|(?<=[Ww])e|(?<=[Oo])urs?|(?<=[Mm])[ey])(?!\w))"
)


def self_weight(kind: str, text: str) -> float:
    """SELF_WEIGHT for a sentence or list item in the first person, else 1."""
    return SELF_WEIGHT if kind in ("sentence", "item") and _FIRST_PERSON.search(text) else 1.0


def role_weight(role: str, text: str) -> float:
    """ROLE_WEIGHT of a unit in a turn whose text is `text`."""
    if role == "user" and len(text) * 3 > OWN_WORDS_BYTES and len(text.encode()) > OWN_WORDS_BYTES:
        return ROLE_WEIGHT["assistant"]
    return ROLE_WEIGHT.get(role, 1.0)


# no prior for tables and lists: 1.5 won on the tuning half, whose filler (tool-call demos) has few lists,
# and lost on real assistant answers, which are lists throughout
KIND_PRIOR = {"sentence": 1.0, "item": 1.0, "row": 1.0, "code": 1.0, "table": 1.0, "list": 1.0}
MARKUP_DISCOUNT = 1.0  # tokens per table pipe left out of a unit's cost when units are compared
QUESTION_WEIGHT = 0.5  # a question asks for information rather than stating it
# A sentence whose terms are all plain words ("That's amazing, I'm so happy for you") carries less for a
# continuation than one with a name, a number, an identifier or Chinese terms (which have no capitals to mark
# a name): the selection weighs it at this share of its value. (Not in the rough densities the candidates
# are picked by: each script's scale is the median of its densities, which this would lower for English
# alone, so English passages would crowd out a Chinese conversation's facts.)
GENERIC_WEIGHT = 0.5
# Diminishing returns per turn (the diversity reward of budgeted submodular summarisation): each unit
# already chosen from a turn scales the next one's gain by this, so a long answer does not fill the
# digest while other turns' facts go; a turn's first unit is not discounted.
TURN_DECAY = 0.8


def densest(values: list[float], limit: int) -> list[int]:
    """The indices of the `limit` largest values, ties to the earlier index, in index order. A stable sort
    on a C-level key: a key function called per element cost more than the whole sort."""
    top = sorted(range(len(values)), key=values.__getitem__, reverse=True)[:limit]
    top.sort()
    return top


def _markup(u: Unit) -> int:
    return u.text.count("|") if u.kind in ("table", "row") else 0


def _prior(u: Unit, role: float) -> float:
    from .digest import QUESTION_END  # (loaded with the units: see the imports)

    question = u.kind == "sentence" and u.text.rstrip().endswith(QUESTION_END)
    generic = u.kind == "sentence" and not u.kinds.strip("wW")  # (salience.KIND_CODE: w is a plain word)
    prior = role * self_weight(u.kind, u.text) * KIND_PRIOR[u.kind] * (QUESTION_WEIGHT if question else 1.0)
    return prior * (GENERIC_WEIGHT if generic else 1.0)


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
        roles: dict[int, float] = {}  # turn -> its role_weight (a long turn's text is measured once)

        def role(u: Unit) -> float:
            if u.turn not in roles:
                roles[u.turn] = role_weight(u.role, rest[0].turns[u.turn].text if rest else "")
            return roles[u.turn]

        self.base = [
            total * (1.0 + focus_weight * u.relevance) * _prior(u, role(u)) * u.script_scale
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

    def _candidates(self, room: int, turns: range | None = None) -> list[int]:
        """The units worth looking at for `room` tokens: the densest few, so cost follows the budget."""
        estimate = self._estimate
        fits = [
            k
            for k in range(len(self.pool))
            if (turns is None or self.pool[k].turn in turns)
            and k not in self.chosen
            and k not in self.redundant
            and k not in self.removed
            and self.base[k] > 0
            and estimate(k) * ESTIMATE_LOW <= room
        ]
        limit = max(MIN_CANDIDATES, room // CANDIDATE_TOKENS)
        if len(fits) > limit:
            value = [self.base[k] / estimate(k) ** COST_POWER for k in fits]
            fits = [fits[i] for i in densest(value, limit)]
        return fits

    def fill(self, room: int, turns: range | None = None) -> int:
        """Greedy by gain per token while units fit (units of `turns` only, when given); returns tokens
        used. Costs start as estimates and are counted exactly when a unit reaches the top (lazy greedy)."""
        used = 0
        heap = [
            (-self.base[k] / max(1.0, self._estimate(k) - MARKUP_DISCOUNT * self._markup[k]) ** COST_POWER, k)
            for k in self._candidates(room, turns)
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
