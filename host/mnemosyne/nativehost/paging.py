"""Paging long text (a conversation or a context) under the 1 MiB reply limit.

The cursor is stateless: an offset plus a digest of the whole text. Rendering
is deterministic, so the one-shot sendNativeMessage host (a new process per
message) can rebuild the text and serve the next page; a changed conversation
gives BAD_CURSOR instead of a spliced result.
"""

from __future__ import annotations

import base64
import hashlib
import json

from ..errors import InputError

CHUNK_BYTES = 900 * 1024  # leaves room for the envelope and the report inside 1 MiB


def _encoded_len(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _cursor(offset: int, digest: str) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{digest}".encode()).decode().rstrip("=")


def _parse_cursor(cursor: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        offset, digest = raw.split(":", 1)
        return int(offset), digest
    except (ValueError, UnicodeDecodeError):
        raise InputError("cursor is not one this host issued", code="BAD_CURSOR") from None


def page(text: str, cursor: str | None, budget: int = CHUNK_BYTES) -> dict:
    """{chunk, next_cursor, total_chars} for the page that starts at the cursor."""
    digest = _digest(text)
    offset = 0
    if cursor:
        offset, wanted = _parse_cursor(cursor)
        if wanted != digest or not 0 <= offset <= len(text):
            raise InputError("the conversation changed since the first page; start again", code="BAD_CURSOR")
    rest = text[offset:]
    if _encoded_len(rest) <= budget:
        end = len(text)
    else:
        lo, hi = 1, len(rest)  # largest prefix whose JSON encoding fits the budget
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _encoded_len(rest[:mid]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        end = offset + lo
    return {
        "chunk": text[offset:end],
        "next_cursor": _cursor(end, digest) if end < len(text) else None,
        "total_chars": len(text),
    }
