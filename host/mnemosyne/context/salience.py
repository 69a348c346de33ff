"""How much specific information a piece of text carries, without cue words.

A unit's value comes from its terms: words (no stop words), numbers, identifiers
and Chinese character bigrams, each weighted by how rare it is in this
conversation (inverse document frequency over the units), with more weight for
names, numbers and identifiers and for terms later turns use again. Filler
(greetings, hedges, pleasantries; English and Chinese) is cut from a unit before
it is counted, so it neither costs tokens nor earns value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import chain

# Generic English function words and conversational filler: words that say nothing on their own.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let's",
        "me",
        "more",
        "most",
        "mustn't",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "will",
        "with",
        "won't",
        "would",
        "wouldn't",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "yes",
        "yeah",
        "yep",
        "okay",
        "ok",
        "oh",
        "wow",
        "hey",
        "hi",
        "hello",
        "thanks",
        "thank",
        "please",
        "sure",
        "really",
        "actually",
        "maybe",
        "much",
        "many",
        "lot",
        "lots",
        "thing",
        "things",
        "something",
        "anything",
        "everything",
        "stuff",
        "kind",
        "sort",
        "way",
        "like",
        "just",
        "get",
        "got",
        "gonna",
        "wanna",
        "also",
        "still",
        "even",
        "though",
        "well",
        "one",
        "ones",
        "let",
        "know",
        "think",
        "see",
        "look",
        "going",
        "go",
        "went",
        "come",
        "came",
        "make",
        "made",
        "take",
        "took",
        "give",
        "gave",
        "say",
        "said",
        "tell",
        "told",
        "want",
        "need",
        "feel",
        "felt",
        "glad",
        "great",
        "good",
        "nice",
        "awesome",
        "amazing",
        "cool",
        "love",
        "loved",
        "happy",
        "definitely",
        "totally",
        "absolutely",
        "certainly",
        "course",
        "here's",
        "yours",
    ]  # noqa: SIM905  (a word list reads better as text)
)

# Each kind of term has its own pattern: findall runs in C, and only the few special terms need Python.
_WORDS = re.compile(r"[a-z_][a-z0-9_']{2,}(?:[.\-][a-z0-9_]+)*")  # on the lower-cased text
_NUMBERS = re.compile(r"[$£€¥]?\d(?:[\d.,:/]*\d)?%?")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
# numbers written in Chinese with the measure word that makes them a quantity (三本, 九点, 两周)
_HAN_NUMBERS = re.compile(
    r"[零〇一二三四五六七八九十百千万亿两]+(?:点|本|元|块|毛|角|个|人|天|周|月|年|号|楼|层|次|分|岁|斤|米|公里|小时|分钟|倍|件|张|页|岁)"
)
_NAMES = re.compile(r"(?<=[^\s.!?:>\-*#] )[A-Z][A-Za-z]{2,}")  # capitalised, not opening a sentence
_IDENTS = re.compile(
    r"`([^`\n]{2,60})`|\b([A-Za-z]+_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{1,6}-\d[\w\-]*|[\w\-]+\.(?:py|js|ts|tsx|jsx|md|json|sql"
    r"|ya?ml|toml|sh|go|rs|java|rb|php|c|cpp|h|css|html|csv|txt))\b"
)


# The commonest Chinese function characters: a bigram with one of them is mostly grammar (的是, 好了).
HAN_FUNCTION = frozenset(
    "的了是我你他她它们在有和就不也很都到说要去会着没这那吗呢吧啊个一上下来么什为与及或而且但被把让给对从于之其所以可能得地过还再又太好"
)


def terms(text: str) -> dict[str, str]:
    """Content terms of `text`: key -> kind ("word", "name", "number", "ident", "han")."""
    low = text.lower()
    out = dict.fromkeys(_WORDS.findall(low), "word")  # in order of appearance: the same on every run
    for stop in STOPWORDS.intersection(out):
        del out[stop]
    for run in _HAN.findall(text):
        grams = [run[i : i + 2] for i in range(len(run) - 1)] or [run]
        out.update((g, "grammar" if HAN_FUNCTION.intersection(g) else "han") for g in grams)
    out.update(dict.fromkeys(_NUMBERS.findall(text), "number"))
    if not text.isascii():
        out.update(dict.fromkeys(_HAN_NUMBERS.findall(text), "number"))
    for name in _NAMES.findall(text):
        key = name.lower()
        if out.get(key) == "word":
            out[key] = "name"
    for quoted, bare in _IDENTS.findall(text):
        out[(quoted or bare).lower()] = "ident"
    return out


# ---------------------------------------------------------------- filler

# A unit that opens with greetings, interjections or hedges loses them; the rest stays word for word.
_LEAD_EN = re.compile(
    r"^(?:(?:hey|hi|hello|wow|whoa|oh|ah|aw|um|uh|hmm|well|so|yeah|yes|yep|ok|okay|sure|great|awesome|cool|nice"
    r"|haha|lol|thanks|thank you|of course|absolutely|certainly|definitely|honestly|to be honest|basically"
    r"|i think|i guess|i mean|you know|i have to say|i must say|that's (?:great|awesome|amazing|cool|so cool|wonderful)"
    r"|sounds (?:great|good|awesome)|good question|great question)\b[\s,!.…—–-]*)+",
    re.IGNORECASE,
)
_LEAD_ZH = re.compile(
    r"^(?:(?:好的|好吧|嗯+|哈哈+|哇|当然|没问题|谢谢|其实|说实话|我觉得|那个|对了|是的|对)[，,！!。、\s]*)+"
)


def compress(text: str) -> str:
    """`text` without leading filler; unchanged when nothing but filler would be left."""
    if not text:
        return text
    cut = _LEAD_ZH.sub("", text) if text[0] >= "\u3400" else _LEAD_EN.sub("", text)
    cut = cut.strip()
    if len(cut) < 4 or cut == text:
        return text
    return cut[0].upper() + cut[1:] if cut[0].islower() and text[0].isupper() else cut


# ---------------------------------------------------------------- weights

KIND_WEIGHT = {"word": 1.0, "han": 0.4, "grammar": 0.15, "name": 1.6, "number": 1.5, "ident": 1.8}
LATER_BONUS = 0.5  # a term later turns use again (a definition the rest relies on)
DEFINITION_BONUS = 3.0  # a name a code block defines and later turns use
FIRST_BONUS = 0.3  # the first statement of a term, over its restatements
LATER_GAP = 2  # turns: nearer than this is the same exchange, not a reference back


@dataclass
class TermStats:
    """Over the units of a conversation: how many use each term, the first unit and last turn that do."""

    df: dict[str, int]
    first_unit: dict[str, int]
    last_turn: dict[str, int]
    units: int

    @classmethod
    def build(cls, unit_terms: list[dict[str, str]], unit_turns: list[int]) -> TermStats:
        df = Counter(chain.from_iterable(unit_terms))
        last = {t: turn for found, turn in zip(unit_terms, unit_turns) for t in found}
        first = {t: k for k in range(len(unit_terms) - 1, -1, -1) for t in unit_terms[k]}
        return cls(df, first, last, len(unit_terms))

    def __post_init__(self) -> None:
        n = self.units
        self.idf_of = {t: max(0.0, math.log((n - c + 0.5) / (c + 0.5))) for t, c in self.df.items()}

    def idf(self, term: str) -> float:
        """BM25's idf: zero for a term in half the units or more."""
        n = self.df.get(term, 0)
        return max(0.0, math.log((self.units - n + 0.5) / (n + 0.5)))

    def rough_value(self, found: dict[str, str]) -> float:
        """The sum of the idf of the terms: a unit's value before kinds and bonuses, cheap to get."""
        return math.fsum(map(self.idf_of.__getitem__, found))

    def weigh(
        self, found: dict[str, str], turn: int, k: int, defines: tuple[str, ...] = ()
    ) -> dict[str, float]:
        """The terms of unit `k` (at `turn`) with their weights; terms that weigh nothing are left out."""
        idf, last, first, kind_weight = self.idf_of, self.last_turn, self.first_unit, KIND_WEIGHT
        later = turn + LATER_GAP
        out = {
            t: idf[t]
            * kind_weight[kind]
            * (1.0 + LATER_BONUS if last[t] >= later else 1.0)
            * (1.0 + FIRST_BONUS if first[t] == k else 1.0)
            for t, kind in found.items()
            if idf[t] > 0
        }
        for name in defines:  # a definition the rest of the conversation uses
            key = name.lower()
            if key in out and last[key] >= later:
                out[key] *= 1.0 + DEFINITION_BONUS
        return out
