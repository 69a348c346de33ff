"""Query terms, and the best paragraphs of a long turn for a query (BM25 among its paragraphs). The turns
themselves are ranked by passages.py. Pure functions over text: no archive, no tokenizer."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..cjk import CJK_RUN
from ..context.stopwords import STOPWORDS

_WORD = re.compile(r"\w+", re.UNICODE)
# BM25's usual constants (Robertson & Zaragoza): k1 saturates a term's repeats, b normalises for length
K1 = 1.2
B = 0.75


@lru_cache(maxsize=50_000)  # (words repeat: a conversation's vocabulary is a few thousand)
def stem(word: str) -> str:
    """A light English stem: plurals and the commonest verb endings, so "retries" finds "retry"."""
    if len(word) <= 4 or not word.isascii():
        return word
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


def _keep(word: str) -> bool:
    return len(word) > 1 and word not in STOPWORDS


def terms(text: str) -> list[str]:
    """The words of `text` that carry meaning, folded and stemmed; a CJK run as its bigrams."""
    return [stem(w) for w in words(text)]


def words(text: str) -> list[str]:
    """The words of `text` that carry meaning, folded; a CJK run as its bigrams."""
    folded = text.casefold()
    if folded.isascii():  # most text: no CJK run to look for
        return [w for w in _WORD.findall(folded) if _keep(w)]
    out: list[str] = []
    for word in _WORD.findall(folded):
        if CJK_RUN.search(word):
            for run in CJK_RUN.findall(word):
                out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
            out.extend(w for w in CJK_RUN.sub(" ", word).split() if _keep(w))
        elif _keep(word):
            out.append(word)
    return out


@dataclass
class Corpus:
    """Document frequencies of terms over a set of texts (the candidate conversations' turns)."""

    docs: int = 0
    total_length: int = 0
    df: Counter[str] = field(default_factory=Counter)

    def add(self, doc_terms: Sequence[str]) -> None:
        self.docs += 1
        self.total_length += len(doc_terms)
        self.df.update(set(doc_terms))

    @property
    def average_length(self) -> float:
        return self.total_length / self.docs if self.docs else 1.0

    def idf(self, term: str) -> float:
        n = self.df.get(term, 0)
        return math.log(1 + (self.docs - n + 0.5) / (n + 0.5))

    def score(self, query: Sequence[str], doc_terms: Sequence[str]) -> float:
        """BM25 of a document (its terms) for the query terms."""
        if not doc_terms:
            return 0.0
        tf = Counter(doc_terms)
        norm = K1 * (1 - B + B * len(doc_terms) / self.average_length)
        total = 0.0
        for term in set(query):
            f = tf.get(term, 0)
            if f:
                total += self.idf(term) * f * (K1 + 1) / (f + norm)
        return total


_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
MAX_PIECE_CHARS = 700  # a paragraph longer than this is cut at sentence ends


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs; a long one cut at sentence ends into pieces of at most MAX_PIECE_CHARS
    (a sentence longer than that stays whole). Joined with blank lines they give back the text's words."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = para.strip("\n")
        if not para.strip():
            continue
        if len(para) <= MAX_PIECE_CHARS:
            out.append(para)
            continue
        piece = ""
        for sentence in _SENTENCE_END.split(para):
            if piece and len(piece) + 1 + len(sentence) > MAX_PIECE_CHARS:
                out.append(piece)
                piece = sentence
            else:
                piece = f"{piece} {sentence}" if piece else sentence
        if piece:
            out.append(piece)
    return out


def rank_paragraphs(query: Sequence[str], pieces: Sequence[str]) -> list[int]:
    """The indexes of the pieces that hold query terms, best first: by how many of the query's terms each
    holds, then BM25 among the pieces; [0] when none does."""
    wanted = set(query)
    piece_terms = [terms(piece) for piece in pieces]
    scorer = Corpus()
    for found in piece_terms:
        scorer.add(found)
    ranked = sorted(
        (
            (-len(wanted.intersection(found)), -scorer.score(query, found), i)
            for i, found in enumerate(piece_terms)
            if wanted.intersection(found)
        )
    )
    return [i for _, _, i in ranked] or [0]
