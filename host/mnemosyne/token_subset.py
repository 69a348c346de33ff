"""An exact encoder built without the tokens the counted text cannot use.

Building tiktoken's o200k encoder takes a fresh process about 150 ms, per rank (200k of them), whatever
it then counts. Byte-pair encoding only ever looks up pieces of the text it encodes, so a token holding a
byte the text does not have is never looked up: an encoder without those tokens gives the same tokens.
About 70k of o200k's ranks hold non-ASCII bytes; an English chat's few accented letters, dashes and
emoji keep a few thousand of them, and the encoder builds in two thirds of the time.

The encoder covers the non-ASCII characters of the texts it was made for (and their capitals: a build
capitalises a sentence it cuts). A text with another character is covered by building it again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .rank_cache import Vocabulary


def as_tiktoken_sees(text: str) -> str:
    """The text tiktoken encodes: it turns what UTF-8 cannot hold (lone surrogates) into U+FFFD first."""
    try:
        text.encode()
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class SubsetEncoding:
    """Encodes like the whole encoding; `make` builds a tiktoken Encoding from keyword arguments."""

    def __init__(self, vocab: Vocabulary, make: Callable[..., Any], texts: Iterable[str] = ()):
        self._vocab = vocab
        self._make = make
        self._chars: set[str] = set()  # the non-ASCII characters covered
        self._enc: Any = None
        self.builds = 0
        self.size = 0
        self.cover(texts)

    def cover(self, texts: Iterable[str]) -> None:
        """Make the encoder exact for `texts` too."""
        new: set[str] = set()
        for text in texts:
            if not text.isascii():
                new.update(set(as_tiktoken_sees(text)) - self._chars)
        new = {c for ch in new for c in (ch + ch.upper()) if not c.isascii()} - self._chars
        if new or self._enc is None:
            self._chars |= new
            allowed = "".join(sorted(self._chars)).encode()
            ranks = self._vocab.ranks_within(allowed)
            self._enc = self._make(**self._vocab.kwargs(ranks))
            self.builds += 1
            self.size = len(ranks)

    def encode_ordinary(self, text: str) -> list[int]:
        if not text.isascii():
            self.cover((text,))
        return self._enc.encode_ordinary(text)

    def decode(self, ids: list[int]) -> str:
        """Tokens this encoder gave (it only grows, so it holds them all)."""
        return self._enc.decode(ids)
