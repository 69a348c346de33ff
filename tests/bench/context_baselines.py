"""The naive contexts every context-quality benchmark compares against, measured with one ruler.

Each baseline renders messages as "role: text" blocks and counts them with o200k_base, the exact
tokenizer of the `chatgpt` target, so the engine and the baselines share the budget as sent.
"""

from __future__ import annotations

from mnemosyne import tokens
from mnemosyne.context.turns import render_message
from mnemosyne.model import Conversation

ENCODING = "o200k_base"
JOIN = "\n\n"


def lines(conv: Conversation) -> list[str]:
    return [f"{m.role}: {render_message(m)}" for m in conv.messages if render_message(m)]


def _fits(chosen: list[str], budget: int) -> bool:
    return tokens.count(JOIN.join(chosen), ENCODING) <= budget


def keep_last_messages(conv: Conversation, budget: int) -> str:
    """The most recent whole messages that fit."""
    all_lines = lines(conv)
    costs = [tokens.count(line, ENCODING) + 2 for line in all_lines]
    kept, used = 0, 0
    for cost in reversed(costs):
        if used + cost > budget:
            break
        kept, used = kept + 1, used + cost
    chosen = all_lines[len(all_lines) - kept :]
    while chosen and not _fits(chosen, budget):
        chosen = chosen[1:]
    return JOIN.join(chosen)


def drop_oldest(conv: Conversation, budget: int) -> str:
    """The whole transcript, cut from the start to its last `budget` tokens."""
    enc = tokens.encoding(ENCODING)
    ids = enc.encode_ordinary(JOIN.join(lines(conv)))
    text = enc.decode(ids[-budget:])
    while tokens.count(text, ENCODING) > budget:  # a cut inside a character can re-tokenise longer
        text = text[1:]
    return text


def evenly_spaced(conv: Conversation, budget: int) -> str:
    """The largest number of messages, spread evenly over the conversation and ending on the last, that fits."""
    all_lines = lines(conv)
    costs = [tokens.count(line, ENCODING) + 2 for line in all_lines]
    n = len(all_lines)

    def pick(k: int) -> list[int]:
        if k <= 1:
            return [n - 1]
        return sorted({round(n - 1 - i * (n - 1) / (k - 1)) for i in range(k)})

    lo, hi = 1, n
    while lo < hi:  # the largest k whose picks fit by the summed counts
        mid = (lo + hi + 1) // 2
        if sum(costs[i] for i in pick(mid)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    for k in range(lo, 0, -1):
        chosen = [all_lines[i] for i in pick(k)]
        if _fits(chosen, budget):
            return JOIN.join(chosen)
    return ""


BASELINES = {
    "last-messages": keep_last_messages,
    "drop-oldest": drop_oldest,
    "evenly-spaced": evenly_spaced,
}
