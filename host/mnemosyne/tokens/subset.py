"""An exact encoder built without the tokens the counted text cannot use.

Building tiktoken's encoder costs a fresh process about 0.5 us per rank (o200k: 200k of them), whatever
it then counts. Byte-pair encoding only ever looks up pieces of the text it encodes, so a token that is no
substring of the text is never looked up: an encoder without it gives the same tokens. Two tests a token
must pass to be a substring of a text, both run in C over the cache's groups (rank_cache):
- bytes: every non-ASCII byte of the token is one of the text's (about 70k of o200k's ranks hold non-ASCII
  bytes; an English chat's accented letters, dashes and emoji keep a few thousand);
- letters: the token's longest run of ASCII letters lies inside one of the text's words (maximal runs of
  ASCII letters), so its letter keys (rank_cache.letter_keys) are among the words': a run that begins a
  word in the token begins one in the text. An English chat of 100 KB keeps about a quarter of o200k's
  129k ASCII ranks.

The encoder covers the non-ASCII characters and the words of the texts it was made for (and their
capitalised forms: a build capitalises a sentence it cuts). Only a text with a word or character outside
those can hold a token it left out, and such a text is covered by building again before it is encoded:
the tokens are those of the whole encoding, always.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Callable, Iterable
from itertools import compress
from operator import and_, methodcaller, not_
from typing import Any

from .rank_cache import GRAM, START, Group, Vocabulary, letter_key

_WORDS = re.compile(r"[A-Za-z]+")  # rank_cache.letter_span's letters: the words the tokens are checked with
_ASCII = bytes(range(128))


def as_tiktoken_sees(text: str) -> str:
    """The text tiktoken encodes: it turns what UTF-8 cannot hold (lone surrogates) into U+FFFD first."""
    try:
        text.encode()
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class Words:
    """The words an encoder covers and the letter keys they hold: `starts`, of their first 1 to START
    letters; `grams`, of every substring of 1 to GRAM letters."""

    def __init__(self) -> None:
        self.words: set[str] = set()
        self.starts: set[int] = set()
        self.grams: set[int] = set()

    def add(self, words: Iterable[str]) -> bool:
        """Cover `words` (and their capitalised forms) too; False when they were all covered."""
        new = set(words) - self.words
        capitalised = {w[0].upper() + w[1:] for w in new} - self.words - new
        if not new and not capitalised:
            return False
        self.words |= new | capitalised
        starts = {letter_key(w[:START].encode()) for w in new | capitalised}
        for size in range(START, 0, -1):  # a key cut to its first `size` bytes
            starts = set(map(((1 << 8 * size) - 1).__and__, starts))
            self.starts |= starts
            if size <= GRAM:
                self.grams |= starts  # (a capitalised form adds only the substrings it begins with)
        # every GRAM-byte window of the words, spaced, as a number: those that start in a word are its
        # substrings of GRAM letters, or, cut short, of fewer; the others hold a space, which no key does
        spaced = " ".join(new).encode() + b" " * GRAM
        grams: set[int] = set()
        for offset in range(GRAM):
            grams.update(_uint32s(spaced[offset : offset + (len(spaced) - offset) // GRAM * GRAM]))
        for size in range(GRAM, 0, -1):
            grams = set(map(((1 << 8 * size) - 1).__and__, grams))
            self.grams |= grams
        return True

    def hold(self, runs: Iterable[str]) -> bool:
        """Whether the keys of these runs of letters are covered, though the runs are not covered words:
        what is cut from a covered word at its end (a text cut at a token boundary) is. Such runs count
        as covered words from now on."""
        for run in runs:
            b = run.encode()
            if letter_key(b[:START]) not in self.starts or not all(
                letter_key(b[i : i + GRAM]) in self.grams for i in range(max(1, len(b) - GRAM + 1))
            ):
                return False
        self.words.update(runs)
        return True


def _uint32s(data: bytes) -> array[int]:
    numbers = array("I")
    assert numbers.itemsize == GRAM
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


def select(vocab: Vocabulary, allowed: bytes, words: Words) -> dict[bytes, int]:
    """The ranks of the tokens that pass both tests: non-ASCII bytes among `allowed`, letters in `words`."""
    allowed_bytes = frozenset(allowed)
    keep_bytes = methodcaller("translate", None, _ASCII + bytes(sorted(allowed_bytes)))  # (each byte once)
    allowed_leads = frozenset(b for b in allowed_bytes if b >= 0xC0)
    ranks: dict[bytes, int] = {}
    for g in vocab.groups:
        if g.leads is not None and not g.leads <= allowed_leads:
            continue
        tokens = g.tokens()
        masks = _letter_masks(g, words)
        if g.leads is not None:
            masks.append(map(not_, map(keep_bytes, tokens)))  # nothing left once the allowed bytes go
        if not masks:
            ranks.update(zip(tokens, g.ranks()))
            continue
        mask = masks[0]
        for more in masks[1:]:
            mask = map(and_, mask, more)
        kept = list(mask)
        ranks.update(zip(compress(tokens, kept), compress(g.ranks(), kept)))
    return ranks


def _letter_masks(g: Group, words: Words) -> list[Iterable[bool]]:
    if g.span is None:
        return []
    if g.span[0] > 0:  # a non-letter before the run: it begins a word
        return [map(words.starts.__contains__, g.letter_keys(0))]
    return [map(words.grams.__contains__, g.letter_keys(i)) for i in range(g.keys)]


class SubsetEncoding:
    """Encodes like the whole encoding; `make` builds a tiktoken Encoding from keyword arguments."""

    def __init__(self, vocab: Vocabulary, make: Callable[..., Any], texts: Iterable[str] = ()):
        self._vocab = vocab
        self._make = make
        self._chars: set[str] = set(map(chr, range(128)))  # the characters covered
        self._words = Words()
        self._enc: Any = None
        self.builds = 0
        self.size = 0
        self.cover(texts)

    def cover(self, texts: Iterable[str]) -> None:
        """Make the encoder exact for `texts` too."""
        texts = list(texts)
        joined = "\n".join(texts)  # (no letter run crosses the line breaks)
        new: set[str] = set()
        if not joined.isascii():
            new = set(as_tiktoken_sees(joined)) - self._chars
            new = {c for ch in new for c in (ch + ch.upper()) if not c.isascii()} - self._chars
        new_words = self._words.add(_WORDS.findall(joined))
        if new or new_words or self._enc is None:
            self._chars |= new
            allowed = "".join(sorted(c for c in self._chars if not c.isascii())).encode()
            ranks = select(self._vocab, allowed, self._words)
            self._enc = self._make(**self._vocab.kwargs(ranks))
            self.builds += 1
            self.size = len(ranks)

    def encode_ordinary(self, text: str) -> list[int]:
        runs = _WORDS.findall(text)
        if not (text.isascii() or self._chars.issuperset(as_tiktoken_sees(text))) or not (
            self._words.words.issuperset(runs) or self._words.hold(set(runs) - self._words.words)
        ):
            self.cover((text,))
        ids: list[int] = self._enc.encode_ordinary(text)
        return ids

    def decode(self, ids: list[int]) -> str:
        """Tokens this encoder gave (it only grows, so it holds them all)."""
        text: str = self._enc.decode(ids)
        return text
