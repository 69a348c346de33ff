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
from dataclasses import dataclass

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
    ]
)

_WORD = re.compile(
    r"`[^`\n]{2,60}`"  # inline code
    r"|[A-Za-z_][A-Za-z0-9_]*(?:[.'\-][A-Za-z0-9_]+)*"  # words, snake_case, file.ext, don't
    r"|[$£€¥]?\d[\d.,:/]*\d%?|[$£€¥]?\d%?"  # numbers, money, dates, times
    r"|[\u3400-\u9fff\uf900-\ufaff]+"  # Han runs
)
_IDENT = re.compile(r"_|[a-z][A-Z]|\.[a-z]{1,5}$")


@dataclass(frozen=True)
class Term:
    key: str
    kind: str  # "word", "name", "number", "ident", "han"


def terms(text: str) -> dict[str, str]:
    """Content terms of `text`: key -> kind ("word", "name", "number", "ident", "han")."""
    out: dict[str, str] = {}
    first = True
    for m in _WORD.finditer(text):
        tok = m.group()
        c = tok[0]
        if c >= "\u3400":
            if len(tok) == 1:
                out.setdefault(tok, "han")
            for i in range(len(tok) - 1):
                out.setdefault(tok[i : i + 2], "han")
        elif c == "`":
            out[tok.strip("`").lower()] = "ident"
        elif c.isdigit() or c in "$£€¥":
            out[tok.rstrip(".,:/")] = "number"
        else:
            low = tok.lower()
            if len(low) < 3 or low in STOPWORDS:
                first = False
                continue
            if _IDENT.search(tok):
                out[low] = "ident"
            elif c.isupper() and not first and low not in out:
                out[low] = "name"
            else:
                out.setdefault(low, "word")
        first = False
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

KIND_WEIGHT = {"word": 1.0, "han": 0.4, "name": 1.6, "number": 1.5, "ident": 1.8}
LATER_BONUS = 0.5  # a term later turns use again (a definition the rest relies on)
DEFINITION_BONUS = 3.0  # a name a code block defines and later turns use
FIRST_BONUS = 0.3  # the first statement of a term, over its restatements
LATER_GAP = 2  # turns: nearer than this is the same exchange, not a reference back


@dataclass
class TermStats:
    """Document frequency over units, and the last turn that uses each term."""

    df: dict[str, int]
    last_turn: dict[str, int]
    units: int

    @classmethod
    def build(cls, unit_terms: list[dict[str, str]], unit_turns: list[int]) -> TermStats:
        df: dict[str, int] = {}
        last: dict[str, int] = {}
        for found, turn in zip(unit_terms, unit_turns):
            for t in found:
                df[t] = df.get(t, 0) + 1
                last[t] = turn
        return cls(df, last, len(unit_terms))

    def idf(self, term: str) -> float:
        """BM25's idf: zero for a term in half the units or more."""
        n = self.df.get(term, 0)
        return max(0.0, math.log((self.units - n + 0.5) / (n + 0.5)))

    def weight(self, term: str, kind: str, turn: int) -> float:
        w = self.idf(term) * KIND_WEIGHT[kind]
        if self.last_turn.get(term, -1) >= turn + LATER_GAP:
            w *= 1.0 + LATER_BONUS
        return w
