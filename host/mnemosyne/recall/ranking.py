"""Ranking passages against a query: terms, BM25 over the turns of the candidate conversations, and the
best paragraphs of a long turn. Pure functions over text: no archive, no tokenizer."""

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
# A passage is scored on its matching turn, plus this share of its best neighbour's score: a question
# and its answer score together, the answer turn ranked first.
NEIGHBOUR_WEIGHT = 0.35
TITLE_WEIGHT = 0.5  # a query word in the conversation's title: the whole conversation is about it


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
    folded = text.casefold()
    if folded.isascii():  # most text: no CJK run to look for
        return [stem(w) for w in _WORD.findall(folded) if _keep(w)]
    out: list[str] = []
    for word in _WORD.findall(folded):
        if CJK_RUN.search(word):
            for run in CJK_RUN.findall(word):
                out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
            out.extend(stem(w) for w in CJK_RUN.sub(" ", word).split() if _keep(w))
        elif _keep(word):
            out.append(stem(word))
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


@dataclass
class Ranked:
    conversation: int
    turn: int
    score: float


def rank_turns(
    query: Sequence[str],
    turns: Sequence[Sequence[list[str]]],
    titles: Sequence[list[str]],
    neighbour_weight: float = NEIGHBOUR_WEIGHT,
) -> list[Ranked]:
    """Every turn that holds a query term, best first: its BM25 over all the candidates' turns, plus
    `neighbour_weight` of its best neighbour's and TITLE_WEIGHT of its title's. Ties keep archive order
    (conversation rank, then turn order), so the same archive gives the same passages."""
    corpus = Corpus()
    for conv_turns in turns:
        for doc in conv_turns:
            corpus.add(doc)
    wanted = set(query)
    found: list[Ranked] = []
    for c, conv_turns in enumerate(turns):
        scores = [corpus.score(query, doc) if wanted.intersection(doc) else 0.0 for doc in conv_turns]
        title = corpus.score(query, titles[c]) if wanted.intersection(titles[c]) else 0.0
        for t, own in enumerate(scores):
            if own <= 0:
                continue
            around = max(scores[max(0, t - 1) : t] + scores[t + 1 : t + 2], default=0.0)
            found.append(Ranked(c, t, own + neighbour_weight * around + TITLE_WEIGHT * title))
    found.sort(key=lambda r: (-r.score, r.conversation, r.turn))
    return found


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


def best_paragraph(query: Sequence[str], pieces: Sequence[str]) -> int:
    """The index of the piece that matches the query best (BM25 among the pieces; the first when none
    matches)."""
    wanted = set(query)
    piece_terms = [terms(piece) for piece in pieces]
    scorer = Corpus()
    for found in piece_terms:
        scorer.add(found)
    scores = [scorer.score(query, found) if wanted.intersection(found) else 0.0 for found in piece_terms]
    return max(range(len(pieces)), key=lambda i: (scores[i], -i)) if pieces else 0
