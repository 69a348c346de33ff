"""Counting text with a target's tokenizer, exactly or as an upper bound, and cutting a text's middle to fit.

The counts of the texts a build measured are kept in a memo by base encoding that the build's caller may
keep (prepare/caches.py), so a warm host building the same conversation again (or a top-up pass recounting
a payload) counts each text once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from .. import tokens
from ..tokens.policy import COUNTED_ENCODING

OMITTED = "\n[… {} tokens omitted …]\n"  # where truncate_middle cut a text
_LINE_STARTS = re.compile(r"(?<=\n)(?=[^\s/])")  # where count_lines cuts (Python's \s holds all of Unicode's)

# Token counts of the texts a build measured (units, turns), by base encoding: a warm host building the
# same conversation again counts each once. Emptied when it holds MAX_COUNTS texts (and by its keeper when a
# host turns to another conversation: another's counts only kept a long-lived host 10-20 MB larger).
MAX_COUNTS = 50_000  # about the units of a 1 MB conversation; a few MB
CountMemo = dict[str, dict[str, int]]  # base encoding -> text -> its count


class Meter:
    """Counts text with a target's tokenizer (exact, or the estimate). With `bound`, counts UTF-8 bytes
    instead: o200k_base and cl100k_base never yield more tokens than bytes, so every count is an upper
    bound, and no tokenizer is loaded. `texts`: what the counted texts are made of (a build's turns), for
    the encoder (tokens.encoder_for). `memo`: the counts kept across builds (CountMemo), else this meter's
    own."""

    def __init__(
        self, tokenizer: str, bound: bool = False, texts: Iterable[str] = (), memo: CountMemo | None = None
    ):
        self.tokenizer = tokenizer
        self._memo: CountMemo = {} if memo is None else memo
        self.base = tokens.base_encoding(tokenizer)
        self.bound = bound
        self._texts = texts
        self._encoder: Any = None

    def _enc(self, text: str) -> Any:
        """The encoder, made on the first exact count, for `texts`, the text counted and the marker
        truncate_middle writes."""
        if self._encoder is None:
            self._encoder = tokens.encoder_for(self.base, [*self._texts, text, OMITTED])
        return self._encoder

    def base_count(self, text: str, keep: bool = True) -> int:
        """The count in the base encoding; `keep`: remember it (a build's texts), else only look it up
        (counting a whole conversation to store it should not push a build's counts out)."""
        if not text:
            return 0
        if self.bound:
            return len(text.encode())
        counts = self._memo.setdefault(self.base, {})
        n = counts.get(text)
        if n is None:
            n = len(self._enc(text).encode_ordinary(text))
            if keep:
                if len(counts) >= MAX_COUNTS:
                    counts.clear()
                counts[text] = n
        return n

    def count(self, text: str) -> int:
        return tokens.scale(self.base_count(text), self.tokenizer)

    def count_known(self, text: str, counted: int) -> int:
        """count(text), where `counted` is its count in tokens.policy.COUNTED_ENCODING when known (>= 0):
        taken as it is when this meter counts in that encoding."""
        if counted >= 0 and not self.bound and self.base == COUNTED_ENCODING:
            return tokens.scale(counted, self.tokenizer)
        return self.count(text)

    def count_lines(self, text: str) -> int:
        """count(text), as the sum of its lines' counts (kept per line: a payload that grew by a few units
        recounts only the lines that changed). Exact: o200k_base's and cl100k_base's patterns end a piece
        at a line break followed by a non-space other than "/", and neither looks behind."""
        if self.bound:
            return self.count(text)
        return tokens.scale(sum(map(self.base_count, _LINE_STARTS.split(text))), self.tokenizer)

    def scale(self, base: int) -> int:
        return tokens.scale(base, self.tokenizer)

    def truncate_middle(self, text: str, limit: int) -> str:
        """Keep the head and tail of `text` so it counts at most `limit` tokens."""
        if self.count(text) <= limit:
            return text
        enc = self._enc(text)
        ids = enc.encode_ordinary(text)
        # tokens of the base encoding we may keep, minus the marker
        keep = max(0, math.floor(limit / tokens.scale(1000, self.tokenizer) * 1000) - 16)
        while True:
            head, tail = keep - keep // 3, keep // 3
            omitted = len(ids) - head - tail
            out = (
                enc.decode(ids[:head]).rstrip("\ufffd")
                + OMITTED.format(omitted)
                + (enc.decode(ids[len(ids) - tail :]).lstrip("\ufffd") if tail else "")
            )
            if self.count(out) <= limit or keep == 0:
                return out if self.count(out) <= limit else ""
            keep = max(0, keep - max(4, keep // 10))
