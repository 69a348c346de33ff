"""YAML front matter that Obsidian (and any YAML parser) reads back exactly.

Every string is written double-quoted with YAML escapes, so titles holding
`:`, `"`, `#`, newlines or control characters stay one scalar.
"""

from __future__ import annotations

import re

# ISO 8601 UTC instants as model.format_time spells them: safe unquoted, and
# YAML (and Obsidian) read them as timestamps rather than text.
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")
TIME_KEYS = ("created", "updated")

# "<" as \x3C: YAML reads it back as "<", and a viewer that shows front matter as Markdown sees no HTML tag
_SIMPLE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "<": "\\x3C"}


def _printable(code: int) -> bool:
    """YAML's c-printable set, minus the byte order mark."""
    return (
        0x20 <= code <= 0x7E
        or code == 0x85
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )


# any character quote() must escape: the simple escapes and everything outside YAML's c-printable set
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\<\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\ufffe\uffff]')


def quote(value: str) -> str:
    if not _NEEDS_ESCAPE.search(value):  # most values: nothing to escape
        return f'"{value}"'
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[ch])
        elif _printable(code):
            out.append(ch)
        elif code <= 0xFF:
            out.append(f"\\x{code:02X}")
        else:
            out.append(f"\\u{code:04X}")
    out.append('"')
    return "".join(out)


def render(fields: list[tuple[str, str | list[str] | None]]) -> str:
    """`---`-fenced block; None values are left out, lists become flow sequences."""
    lines = ["---"]
    for key, value in fields:
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key}: [{', '.join(quote(v) for v in value)}]")
        elif key in TIME_KEYS and _TIMESTAMP.fullmatch(value):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {quote(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"
