"""JSON bodies cut short: a network capture (HAR) may keep only the head of a long response and mark the
cut ("...[TRUNCATED]"). What is there is read: the open string and the open objects and arrays are closed
at the cut, and the caller marks the conversation partial and counts a warning, so nothing passes as whole
that is not."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError

CUT_MARKERS = ("...[TRUNCATED]", "[TRUNCATED]")


def cut_marker(text: str) -> str | None:
    """The marker a capture tool put where it cut the body, else None."""
    tail = text.rstrip()
    return next((m for m in CUT_MARKERS if tail.endswith(m)), None)


def _closers(text: str) -> tuple[bool, list[str]]:
    """Whether `text` ends inside a string, and the brackets still open (innermost last)."""
    in_string = escaped = False
    stack: list[str] = []
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    return in_string, stack


def _drop_broken_escape(text: str) -> str:
    """A cut inside an escape (`\\`, `\\u00`) leaves bytes no JSON string may end with."""
    backslash = text.rfind("\\")
    if backslash < 0:
        return text
    run = len(text[:backslash]) - len(text[:backslash].rstrip("\\"))
    if run % 2:  # this backslash is itself escaped: no escape is open
        return text
    tail = text[backslash + 1 :]
    if tail == "" or (tail.startswith("u") and len(tail) < 5):
        return text[:backslash]
    return text


def parse_cut(text: str, name: str) -> Any:
    """The value of a JSON text whose end was cut: closed where it stops. InputError when even that does
    not parse (the cut fell somewhere no closing can mend, e.g. after a key)."""
    body = text.rstrip()
    marker = cut_marker(body)
    if marker:
        body = body[: -len(marker)]
    attempts = [body]
    for stop in (",", ":"):  # a cut after a key or between members: drop the dangling piece
        at = body.rfind(stop)
        if at > 0:
            attempts.append(body[:at])
    for attempt in attempts:
        in_string, stack = _closers(attempt)
        head = _drop_broken_escape(attempt) + '"' if in_string else attempt
        try:
            return json.loads(head + "".join(reversed(stack)))
        except ValueError:
            continue
    raise InputError(f"{name}: a body cut short that cannot be read even in part", code="BAD_INPUT")


def parse_body(text: str, name: str) -> tuple[Any, bool]:
    """(value, cut): the JSON of a captured body, read in part (cut True) when its end was cut."""
    try:
        return json.loads(text), False
    except ValueError:
        pass
    if cut_marker(text) is None:
        raise InputError(f"{name}: not valid JSON and not marked as cut short")
    return parse_cut(text, name), True


def parse_lines(text: str, name: str) -> tuple[list[Any], bool]:
    """The records of a JSON-per-line body (Grok's answer stream); the last one read in part when the body
    was cut. A broken line that is not the cut one is an error: it would be lost silently otherwise."""
    lines = [line for line in text.splitlines() if line.strip()]
    records: list[Any] = []
    cut = False
    for n, line in enumerate(lines):
        try:
            records.append(json.loads(line))
        except ValueError:
            if n != len(lines) - 1 or cut_marker(line) is None:
                raise InputError(f"{name}: line {n + 1} is not valid JSON") from None
            records.append(parse_cut(line, f"{name} line {n + 1}"))
            cut = True
    return records, cut
