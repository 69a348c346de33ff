"""Log lines that a logged value cannot forge.

Values in log messages can come from a page (an action name, a caller id, an
exception's text). A newline or other control character in them would start a
fake log line, or hide one with a carriage return or terminal escape. Every
message is escaped to one line; a traceback keeps its lines, each marked as a
continuation (`  | `), so no line of it can pass for a record of its own."""

from __future__ import annotations

import logging
import re

# C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi controls
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or f"\\u{ord(ch):04x}"


def escape_control(text: str) -> str:
    """`text` on one line: control characters spelled as escapes (\\n, \\r, \\t, \\uXXXX)."""
    return _CONTROL.sub(_escape_char, text)


class EscapingFormatter(logging.Formatter):
    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_control(super().formatMessage(record))

    def formatException(self, ei) -> str:
        lines = super().formatException(ei).split("\n")
        return "\n".join("  | " + escape_control(line) for line in lines)

    def formatStack(self, stack_info: str) -> str:
        return "\n".join("  | " + escape_control(line) for line in stack_info.split("\n"))
