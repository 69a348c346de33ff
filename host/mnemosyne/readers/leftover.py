"""Text a site sent at a place its reader does not know: found, kept and counted, never dropped.

Readers of positional or loosely documented JSON (Gemini's batchexecute arrays, DeepSeek's fragments)
note the words of every part they build; afterwards every prose string of the record whose words are not
all among them is returned, so the reader keeps it (an `unknown` part, counted in warnings). Site copies of
a text in another shape (Gemini's per-paragraph segments of the same answer) are covered and not kept twice.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

_WORD = re.compile(r"\w+")
_URL = re.compile(r"^https?://\S+$")


def words(text: str) -> Counter[str]:
    return Counter(w.casefold() for w in _WORD.findall(text))


def strings(value: Any, depth: int = 0) -> Iterator[str]:
    """Every string in a JSON value (dict keys aside), depth first, in order."""
    if isinstance(value, str):
        yield value
    elif depth < 200 and isinstance(value, list):
        for item in value:
            yield from strings(item, depth + 1)
    elif depth < 200 and isinstance(value, dict):
        for item in value.values():
            yield from strings(item, depth + 1)


def is_prose(text: str) -> bool:
    """Words a person would miss: two or more words with space between (ids, codes and URLs are not)."""
    stripped = text.strip()
    if _URL.match(stripped):
        return False
    return len(_WORD.findall(stripped)) >= 2 and any(c.isspace() for c in stripped)


class TextLedger:
    """The words a reader has put into parts."""

    def __init__(self) -> None:
        self._bag: Counter[str] = Counter()

    def note(self, text: str | None) -> None:
        if text:
            self._bag.update(words(text))

    def covers(self, text: str) -> bool:
        return not (words(text) - self._bag)

    def missing(self, value: Any) -> list[str]:
        """The prose strings of `value` the parts do not hold yet, each once, noted as they are returned."""
        out: list[str] = []
        for text in strings(value):
            if is_prose(text) and not self.covers(text):
                out.append(text)
                self.note(text)
        return out
