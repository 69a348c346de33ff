"""Markdown code fences and spans that the content inside can never close early."""

from __future__ import annotations

import re

_BACKTICK_RUNS = re.compile(r"`+")
_LANGUAGE = re.compile(r"[^A-Za-z0-9_+#.\-]")


def longest_run(text: str) -> int:
    return max((len(m) for m in _BACKTICK_RUNS.findall(text)), default=0)


def info_string(language: str | None) -> str:
    """A language tag safe on the fence line (no spaces, backticks or newlines)."""
    return _LANGUAGE.sub("", language or "")[:40]


def fenced(body: str, language: str | None = None) -> str:
    """A fenced block one backtick longer than any backtick run inside (at least three)."""
    fence = "`" * max(3, longest_run(body) + 1)
    body = body if body.endswith("\n") or not body else body + "\n"
    return f"{fence}{info_string(language)}\n{body}{fence}"


def inline_code(text: str) -> str:
    """A code span that holds any text on one line, backticks included."""
    text = " ".join(text.split())
    ticks = "`" * (longest_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
