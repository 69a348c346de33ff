"""A fact planted in a benchmark conversation, and the rule that says whether a context kept it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FILLER = Path(__file__).resolve().parents[1] / "fixtures" / "planted_filler"


@dataclass(frozen=True)
class Fact:
    key: str  # must appear verbatim in the context to count as kept
    kind: str
    stale: str | None = None  # a corrected earlier value: kept only when this is absent

    def kept(self, text: str) -> bool:
        return self.key in text and (self.stale is None or self.stale not in text)


def filler_parts(names: tuple[str, ...]) -> list[list[tuple[str, str]]]:
    """The (user, assistant) pairs of each ShareGPT file `names` of tests/fixtures/planted_filler, in file
    order, a list per file (the bench spreads the later ones through the first)."""
    parts = []
    for name in names:
        pairs: list[tuple[str, str]] = []
        for item in json.loads((FILLER / name).read_text(encoding="utf-8")):
            turns = [(t["from"], t["value"]) for t in item["conversations"]]
            for (r1, a), (r2, b) in zip(turns, turns[1:]):
                if r1 == "human" and r2 == "gpt" and a.strip() and b.strip():
                    pairs.append((a, b))
        parts.append(pairs)
    return parts
