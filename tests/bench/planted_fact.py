"""A fact planted in a benchmark conversation, and the rule that says whether a context kept it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    key: str  # must appear verbatim in the context to count as kept
    kind: str
    stale: str | None = None  # a corrected earlier value: kept only when this is absent

    def kept(self, text: str) -> bool:
        return self.key in text and (self.stale is None or self.stale not in text)
