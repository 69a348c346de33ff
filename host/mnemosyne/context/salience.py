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
import operator
import re
from dataclasses import dataclass, field
from functools import cache
from itertools import filterfalse
from sys import intern

from .stopwords import STOPWORDS

# Each kind of term has its own pattern: findall runs in C, and only the few special terms need Python.
_WORDS_AND_NUMBERS = re.compile(  # on the lower-cased text
    r"[a-z_][a-z0-9_']{2,}(?:[.\-][a-z0-9_]+)*|[$£€¥]?\d(?:[\d.,:/]*\d)?%?"
)
_NUMBER_START = frozenset("0123456789$£€¥")
_DIGIT = re.compile(r"\d")  # a number needs one
_NUMBERS = re.compile(r"[$£€¥]?\d(?:[\d.,:/]*\d)?%?")
_CODE_EXTENSIONS = "py|js|ts|tsx|jsx|md|json|sql|ya?ml|toml|sh|go|rs|java|rb|php|c|cpp|h|css|html|csv|txt"
_SPECIALS = re.compile(
    r"`([^`\n]{2,60})`"  # inline code
    # identifiers (snake_case, camelCase, PascalCase, ticket ids, file names); possessive (++, *+) where
    # giving characters back cannot make a match (a run of letters never holds the "_" or "." after it)
    r"|\b([A-Za-z]++_[A-Za-z0-9_]++|[a-z]++[A-Z][A-Za-z0-9]*+|[A-Z][a-z0-9]++[A-Z][A-Za-z0-9]*+|[A-Z]{1,6}-\d[\w\-]*"
    rf"|[\w\-]++\.(?:{_CODE_EXTENSIONS}))\b"
    r"|(?<=[^\s.!?:>\-*#] )([A-Z][A-Za-z]{2,})"  # a capitalised word not opening a sentence: a name
)
# Most texts can hold no identifier (no backtick, underscore, capital inside a word, ticket id or file
# name): their _SPECIALS matches are its names alone. _NAMES finds them as _SPECIALS does, but opens with
# a capital, so the regex engine skips to capitals in C; _SPECIALS tries each alternative at every position
# (a fifth of terming an English conversation).
_NAMES = re.compile(r"[A-Z](?<=[^\s.!?:>\-*#] [A-Z])[A-Za-z]{2,}")
_IDENTIFIER_SIGNS = re.compile(rf"[a-z0-9][A-Z]|[A-Z]-\d|\.(?:{_CODE_EXTENSIONS})")


def specials(text: str) -> list[tuple[str, str, str]]:
    """_SPECIALS.findall(text): (inline code, identifier, name) of each match."""
    if "`" in text or "_" in text or _IDENTIFIER_SIGNS.search(text):
        return _SPECIALS.findall(text)
    return [("", "", name) for name in _NAMES.findall(text)]


# What every _SPECIALS match holds past the text's first character: a capital, an underscore, a backtick
# (inline code's closing one) or a dot before a file extension; only a ticket id can hold none of them
# there (BT-1). Most sentences open with a capital and hold no other: they skip _SPECIALS. (Written to open
# with one character class, "[A-Z_`]|\.[a-z]" as the regex engine skips to its characters in C.)
_MAYBE_SPECIAL = re.compile(r"[A-Z_`.](?:(?<!\.)|(?=[a-z]))")
_TICKET = re.compile(r"[A-Z]{1,6}-\d")


def _maybe_special(text: str) -> bool:
    return _MAYBE_SPECIAL.search(text, 1) is not None or _TICKET.match(text) is not None


# The commonest Chinese function characters: a bigram with one of them is mostly grammar (的是, 好了). Not 地:
# it opens more words that carry a fact (地址, 地暖, 当地) than it marks an adverb.
HAN_FUNCTION = "的了是我你他她它们在有和就不也很都到说要去会着没这那吗呢吧啊个一上下来么什为与及或而且但被把让给对从于之其所以可能得过还再又太好"
_HAN_FUNCTION = frozenset(HAN_FUNCTION)
_HAN_RANGES = ((0x3400, 0x9FFF), (0xF900, 0xFAFF))  # CJK Extension A and Unified, Compatibility
_H = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _HAN_RANGES)
_HAN_CHAR = re.compile(f"[{_H}]")  # two short ranges: cheap to compile, unlike the patterns below


class _HanPatterns:
    """The patterns for Chinese text, compiled on first use: their character ranges cost a fresh process
    about 10 ms to compile, and most conversations have no Han character (_HAN_CHAR)."""

    def __init__(self) -> None:
        self.han = re.compile(f"[{_H}]+")
        # every overlapping pair of Han characters without a function character, in order (a lookahead
        # matches at each position without taking a character): found in C, where slicing every pair of
        # each run and leaving out those with a function character took twice as long
        content = _han_without(HAN_FUNCTION)
        self.content_pairs = re.compile(f"(?=([{content}]{{2}}))")
        # numbers with the measure word that makes them a quantity (三本, 九点, 两周, 4.2元, 320本): a
        # quantity is rarer than its bare number (the 18 of 18元 is in every other table). It opens with
        # a character class (not a group) so that the regex engine skips to a digit or numeral in C.
        numeral = "零〇一二三四五六七八九十百千万亿两"
        self.numbers = re.compile(
            f"[{numeral}\\d](?:(?<=[{numeral}])[{numeral}]*|(?<=\\d)\\d*(?:\\.\\d+)?)"
            r"(?:点|本|元|块|毛|角|个|人|天|周|月|年|号|楼|层|次|分|岁|斤|米|公里|小时|分钟|倍|件|张|页|杯|份|瓶|箱)"
        )


_han_patterns = cache(_HanPatterns)


def _han_without(chars: str) -> str:
    """The Han characters but `chars`, as the inside of a regex character class."""
    out = []
    for lo, hi in _HAN_RANGES:
        for code in sorted({ord(ch) for ch in chars if lo <= ord(ch) <= hi}):
            if lo < code:
                out.append(f"{chr(lo)}-{chr(code - 1)}")
            lo = code + 1
        if lo <= hi:
            out.append(f"{chr(lo)}-{chr(hi)}")
    return "".join(out)


_LATIN = re.compile(r"[A-Za-z]")


GRAMMAR = "grammar"  # the kind of a Chinese pair with a function character, in a focus only (terms)


def terms(text: str, grammar: bool = False) -> dict[str, str]:
    """Content terms of `text`: key -> kind ("word", "name", "number", "ident", "han", "hanword"). A pair of
    Chinese characters with a function character (的是, 好了, but also 上海) is left out as English stop words
    are, unless `grammar` (a focus: such a pair is looked for in the units' text, see relevance.py): kind
    "grammar"."""
    out: dict[str, str] = {}
    ascii_only = text.isascii()
    if ascii_only or _LATIN.search(text):
        found = _WORDS_AND_NUMBERS.findall(text.lower())  # in order of appearance: the same every run
        out = dict.fromkeys(map(intern, found), "word")
        for stop in STOPWORDS.intersection(out):
            del out[stop]
        if _DIGIT.search(text):  # (numbers are never stop words: only their kind changes)
            out.update(dict.fromkeys([t for t in out if t[0] in _NUMBER_START], "number"))
        if _maybe_special(text):
            for quoted, bare, name in specials(text):
                if name:
                    key = name.lower()
                    if out.get(key) == "word":
                        out[key] = "name"
                else:
                    out[(quoted or bare).lower()] = "ident"
    else:
        out.update(dict.fromkeys(_NUMBERS.findall(text), "number"))
    if not ascii_only and _HAN_CHAR.search(text):
        p = _han_patterns()
        runs = p.han.findall(text)
        if any(len(run) > 1 for run in runs):
            # every overlapping pair of each run, in order; a pair with a function character is grammar
            # whatever its place: 43 % of a Chinese text's pairs, which weighed little and cost as much as
            # the others in every step of a build
            if grammar:
                pairs = [r[i : i + 2] for r in runs for i in range(len(r) - 1)]
            else:
                pairs = p.content_pairs.findall(text)
            # (interned, as words are: a pair repeats across a conversation's units, and each slice is a new
            # string of about 80 bytes; 60 MB of copies for 5 MB of Chinese)
            han = dict.fromkeys(map(intern, pairs), "han")
            # a run of two or three characters between punctuation or spaces is mostly one word (a name, a
            # table cell, a list entry); a longer run's pairs are half seams between words (an existing key:
            # its kind changes, its place in the order does not)
            for run in runs:
                if len(run) == 2:
                    if run in han:
                        han[run] = "hanword"
                elif len(run) == 3:
                    han.update(dict.fromkeys([p for p in (run[:2], run[1:]) if p in han], "hanword"))
            if grammar:
                han.update(dict.fromkeys(filterfalse(_HAN_FUNCTION.isdisjoint, han), GRAMMAR))
            out.update(han)
        else:
            out.update(dict.fromkeys(runs, "han"))  # single characters
        out.update(dict.fromkeys(p.numbers.findall(text), "number"))
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


_LEAD_CHARS = frozenset("hwoauskgclnbitdyHWOAUSKGCLNBITDY好嗯哈哇当没谢其说我那对是")


def compress(text: str) -> str:
    """`text` without leading filler; unchanged when nothing but filler would be left."""
    if not text or text[0] not in _LEAD_CHARS:
        return text
    cut = _LEAD_ZH.sub("", text) if text[0] >= "\u3400" else _LEAD_EN.sub("", text)
    cut = cut.strip()
    if len(cut) < 4 or cut == text:
        return text
    return cut[0].upper() + cut[1:] if cut[0].islower() and text[0].isupper() else cut


# ---------------------------------------------------------------- weights

KIND_WEIGHT = {
    "word": 1.0,
    "han": 0.4,
    "hanword": 0.8,
    "name": 1.6,
    "number": 1.5,
    "ident": 3.0,  # a name the continuation must use verbatim (price_book, BT-101)
}
# A unit's terms are kept as a tuple of keys and one string of their kinds, a letter each (units.py:
# a dict per unit took 19 MB for 5 MB of English, the tuples and strings 7 MB); the letter is in upper case
# when the unit is the first of its text to use the term (FIRST_BONUS).
KIND_CODE = {"word": "w", "name": "m", "number": "n", "ident": "i", "han": "h", "hanword": "k"}
FIRST_CODE = {kind: code.upper() for kind, code in KIND_CODE.items()}
KIND_OF_CODE = {code: kind for table in (KIND_CODE, FIRST_CODE) for kind, code in table.items()}
CODE_WEIGHT = {code: KIND_WEIGHT[kind] for code, kind in KIND_OF_CODE.items()}
FIRST_CODES = frozenset(FIRST_CODE.values())
LATER_BONUS = 0.5  # a term later turns use again (a definition the rest relies on)
DEFINITION_BONUS = 3.0  # a name a code block defines and later turns use
FIRST_BONUS = 2.0  # the first statement of a term, over its restatements
LATER_GAP = 2  # turns: nearer than this is the same exchange, not a reference back


@dataclass
class TermStats:
    """Over the units of a conversation: how many use each term, the first and last turn that do."""

    df: dict[str, int]
    first_turn: dict[str, int]
    last_turn: dict[str, int]
    units: int
    kind_of: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = self.units
        # most terms share a handful of document frequencies: one logarithm per frequency
        by_df = {c: max(0.0, math.log((n - c + 0.5) / (c + 0.5))) for c in set(self.df.values())}
        keys = list(self.df)
        idfs = list(map(by_df.__getitem__, self.df.values()))
        # a term's idf, last and first turn in one lookup: weigh reads all three for each term of a unit
        self.facts_of = dict(
            zip(
                keys, zip(idfs, map(self.last_turn.__getitem__, keys), map(self.first_turn.__getitem__, keys))
            )
        )
        kinds = map(KIND_WEIGHT.__getitem__, map(self.kind_of.__getitem__, keys))
        self.rough_of = dict(zip(keys, map(operator.mul, idfs, kinds)))

    def idf(self, term: str) -> float:
        """BM25's idf: zero for a term in half the units or more."""
        n = self.df.get(term, 0)
        return max(0.0, math.log((self.units - n + 0.5) / (n + 0.5)))

    def weigh(
        self, keys: tuple[str, ...], kinds: str, turn: int, defines: tuple[str, ...] = ()
    ) -> dict[str, float]:
        """The terms of a unit of `turn` (its `keys` and their coded `kinds`, see KIND_CODE) with their
        weights; terms that weigh nothing are left out."""
        facts, last, code_weight, first_codes = self.facts_of, self.last_turn, CODE_WEIGHT, FIRST_CODES
        later, later_bonus, first_bonus = turn + LATER_GAP, 1.0 + LATER_BONUS, 1.0 + FIRST_BONUS
        out = {}
        for t, code in zip(keys, kinds):
            w, last_use, first_use = facts[t]
            if w > 0:
                w *= code_weight[code]
                if last_use >= later:
                    w *= later_bonus
                if first_use == turn and code in first_codes:  # the first unit of its text to use it
                    w *= first_bonus
                out[t] = w
        for name in defines:  # a definition the rest of the conversation uses
            key = name.lower()
            if key in out and last[key] >= later:
                out[key] *= 1.0 + DEFINITION_BONUS
        return out
