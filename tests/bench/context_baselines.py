"""The naive contexts every context-quality benchmark compares against, measured with one ruler.

Each baseline renders messages as "role: text" blocks and counts them with o200k_base, the exact
tokenizer of the `chatgpt` target, so the engine and the baselines share the budget as sent.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from mnemosyne import tokens
from mnemosyne.context.stopwords import STOPWORDS
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


BM25_K1 = 1.2
BM25_B = 0.75
_WORD = re.compile(r"\w+")


def _bm25_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def bm25_messages(conv: Conversation, budget: int, query: str) -> str:
    """BM25 over whole messages (k1 1.2, b 0.75, lower-cased words, English stop words out): the last user
    message first, then the messages scoring above 0 against `query`, best first, each while it fits;
    printed in conversation order as "role: text" paragraphs."""
    all_lines = lines(conv)
    docs = [_bm25_words(line.split(": ", 1)[1]) for line in all_lines]
    n = len(docs)
    avg = sum(map(len, docs)) / max(1, n)
    df = Counter(w for doc in docs for w in set(doc))
    q = set(_bm25_words(query))
    idf = {w: math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in q if df[w]}

    def score(doc: list[str]) -> float:
        tf = Counter(w for w in doc if w in idf)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / avg)
        return sum(idf[w] * c * (BM25_K1 + 1) / (c + norm) for w, c in tf.items())

    scores = [score(doc) for doc in docs]
    last = max(i for i, line in enumerate(all_lines) if line.startswith("user: "))
    order = [last] + sorted(
        (i for i in range(n) if scores[i] > 0 and i != last), key=lambda i: (-scores[i], i)
    )
    costs = [tokens.count(line, ENCODING) + 2 for line in all_lines]
    chosen, used = [], 0
    for i in order:
        if used + costs[i] <= budget:
            chosen.append(i)
            used += costs[i]
    picked = sorted(chosen)
    while picked and not _fits([all_lines[i] for i in picked], budget):
        picked.remove(min((i for i in picked if i != last), default=last))
    return JOIN.join(all_lines[i] for i in picked)


FOCUS_BASELINES = {"bm25-messages": bm25_messages}
