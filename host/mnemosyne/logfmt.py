"""Log lines that a logged value cannot forge.

Values in log messages can come from a page (an action name, a caller id, an
exception's text). A newline or other control character in them would start a
fake log line, or hide one with a carriage return or terminal escape. Every
message is escaped to one line; a traceback keeps its lines, each marked as a
continuation (`  | `), so no line of it can pass for a record of its own.

This module does not import logging: the host's start-up log (nativehost/hostlog.py) writes its first
lines without it."""

from __future__ import annotations

import re
import time

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

LINE_FORMAT = "%(asctime)s %(levelname)s %(message)s"

# C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi controls
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or f"\\u{ord(ch):04x}"


def escape_control(text: str) -> str:
    """`text` on one line: control characters spelled as escapes (\\n, \\r, \\t, \\uXXXX)."""
    return _CONTROL.sub(_escape_char, text)


def plain_line(level: str, message: str, created: float | None = None) -> str:
    """One record as LINE_FORMAT spells it through logging's default asctime ("2026-12-02 01:18:28,123"),
    escaped: the start-up log's lines read like the ones logging writes later."""
    created = time.time() if created is None else created
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created))
    return escape_control(f"{stamp},{int((created - int(created)) * 1000):03d} {level} {message}")


def escaping_formatter() -> Any:
    """A logging.Formatter for LINE_FORMAT that escapes every message (logging is imported here, on use)."""
    import logging  # (see the module)

    class EscapingFormatter(logging.Formatter):
        def formatMessage(self, record: logging.LogRecord) -> str:
            return escape_control(super().formatMessage(record))

        def formatException(self, ei: Any) -> str:
            lines = super().formatException(ei).split("\n")
            return "\n".join("  | " + escape_control(line) for line in lines)

        def formatStack(self, stack_info: str) -> str:
            return "\n".join("  | " + escape_control(line) for line in stack_info.split("\n"))

    return EscapingFormatter(LINE_FORMAT)
