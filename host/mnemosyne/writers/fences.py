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


def has_fence_run(text: str) -> bool:
    """Whether `text` holds ``` or ~~~ (where a fence can open): a backtick or a tilde looked for first, each
    a memchr, as most text holds neither."""
    return ("`" in text and "```" in text) or ("~" in text and "~~~" in text)


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def close_open_fence(text: str) -> str:
    """Close a fence the message left open, so it cannot swallow the sections after it."""
    if not has_fence_run(text):  # most text: no fence line at all
        return text
    open_fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE_LINE.match(line)
        if not match:
            continue
        run, rest = match.groups()
        if open_fence is None:
            if not (run[0] == "`" and "`" in rest):  # a backtick info string cannot hold backticks
                open_fence = run
        elif run[0] == open_fence[0] and len(run) >= len(open_fence) and not rest.strip():
            open_fence = None
    return text if open_fence is None else f"{text}\n{open_fence}"
