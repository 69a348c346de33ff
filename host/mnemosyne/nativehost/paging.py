"""Paging long text (a conversation or a context) under the 1 MiB reply limit.

The cursor is stateless: an offset plus a digest of the whole text. Rendering
is deterministic, so the one-shot sendNativeMessage host (a new process per
message) can rebuild the text and serve the next page; a changed conversation
gives BAD_CURSOR instead of a spliced result.

A long-lived host (the extension's port) renders once per request: the first
page's text is kept in a RenderCache (a few entries, bounded in characters,
expiring), and the following pages slice it instead of rendering the whole
document again for every page. A page whose text is no longer kept falls back
to the stateless path above.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ..errors import InputError

CHUNK_BYTES = 900 * 1024  # leaves room for the envelope and the report inside 1 MiB


def encoded_len(value: Any) -> int:
    """Bytes of `value` as the reply frame encodes it (UTF-8 JSON)."""
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


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


def page(
    text: str, cursor: str | None, budget: int = CHUNK_BYTES, digest: str | None = None
) -> dict[str, Any]:
    """{chunk, next_cursor, total_chars} for the page that starts at the cursor (`digest`: the text's, if known)."""
    digest = digest or _digest(text)
    offset = 0
    if cursor:
        offset, wanted = _parse_cursor(cursor)
        if wanted != digest or not 0 <= offset <= len(text):
            raise InputError("the conversation changed since the first page; start again", code="BAD_CURSOR")
    rest = text[offset:]
    if len(rest) <= budget and encoded_len(rest) <= budget:
        end = len(text)
    else:
        # largest prefix whose JSON encoding fits the budget; every character takes 1+ bytes, so no more
        # than `budget` characters (no page encodes the whole rest of a long text)
        lo, hi = 1, min(len(rest), budget)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if encoded_len(rest[:mid]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        end = offset + lo
    return {
        "chunk": text[offset:end],
        "next_cursor": _cursor(end, digest) if end < len(text) else None,
        "total_chars": len(text),
    }


@dataclass
class Rendered:
    text: str
    meta: dict[str, Any]  # the reply's fields besides the page (ids, media type, report, redactions)
    expires: float = 0.0
    digest: str = ""

    def page(self, cursor: str | None, budget: int = CHUNK_BYTES) -> dict[str, Any]:
        return {**self.meta, **page(self.text, cursor, budget, digest=self.digest)}


class RenderCache:
    """Rendered texts of paged replies, by request (the parameters without the cursor).

    A request without a cursor always renders (a new document, fresh from the archive) and keeps the result;
    a request with a cursor takes the kept text when there is one, else renders again. Bounded: at most
    `max_entries` texts and `max_chars` characters in all, each kept `ttl` seconds; a text over the whole
    bound is not kept. Writes to the archive clear it (`clear`), so a deleted conversation is not served."""

    def __init__(
        self,
        max_entries: int = 4,
        max_chars: int = 64 * 1024 * 1024,
        ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_entries, self.max_chars, self.ttl, self.clock = max_entries, max_chars, ttl, clock
        self._entries: OrderedDict[Hashable, Rendered] = OrderedDict()
        self.renders = 0  # how many times a text was rendered (the tests and the bench read it)

    def text(
        self, key: Hashable, cursor: str | None, render: Callable[[], tuple[str, dict[str, Any]]]
    ) -> Rendered:
        now = self.clock()
        for old in [k for k, entry in self._entries.items() if entry.expires <= now]:
            del self._entries[old]
        kept = self._entries.get(key) if cursor else None
        if kept is not None:
            self._entries.move_to_end(key)
            return kept
        self.renders += 1
        text, meta = render()
        entry = Rendered(text, meta, now + self.ttl, _digest(text))
        self._entries.pop(key, None)
        if len(text) <= self.max_chars:
            self._entries[key] = entry
            while len(self._entries) > self.max_entries or self._size() > self.max_chars:
                self._entries.popitem(last=False)
        return entry

    def _size(self) -> int:
        return sum(len(entry.text) for entry in self._entries.values())

    def clear(self) -> None:
        self._entries.clear()


def request_key(action: str, params: dict[str, Any]) -> str:
    """The cache key of a paged request: its action and parameters, the cursor and the frame id left out."""
    kept = {k: v for k, v in params.items() if k not in ("cursor", "id", "action")}
    return action + " " + json.dumps(kept, sort_keys=True, ensure_ascii=False, default=str)
