"""Saving one payload the extension sent: a site's conversation JSON or a page capture."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from ..archive import Archive, SaveResult
    from ..model import CaptureMethod

# kind -> (reader, capture method); "auto" detects, but only among PAGE_READERS
PAGE_KINDS: dict[str, tuple[str | None, CaptureMethod | None]] = {
    "chatgpt_api": ("chatgpt", "site_api"),
    "claude_api": ("claude", "site_api"),
    "capture": ("capture", "page_dom"),
    "auto": (None, None),
}
# what a page may send: never a Mnemosyne document or another tool's file, whose ids a page could choose
PAGE_READERS = ("chatgpt", "claude", "capture")


def save_payload(
    arc: Archive, payload: dict[str, Any] | list[Any], kind: str = "auto", source_url: str | None = None
) -> SaveResult:
    """Convert `payload` with the reader `kind` names and store it (idempotent: a re-save merges).

    No token counts are stored here: the extension's default context is redacted, which counts the text
    it builds (see token_policy), so counting at save time would be thrown away."""
    from ..readers import RawInput, ReadContext, ReadFailure, detect, read_raw

    fmt, method = PAGE_KINDS[kind]
    raw_bytes = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raw = RawInput(name="payload", data=payload, raw=raw_bytes)
    read_ctx = ReadContext(source_url=source_url, captured_at=datetime.now(timezone.utc), method=method)
    if fmt is None:
        fmt = detect(raw).NAME
        if fmt not in PAGE_READERS:
            raise InputError(
                f"save takes the ChatGPT or Claude conversation JSON or a page capture, not {fmt} input"
            )
    first = next(iter(read_raw(raw, read_ctx, fmt)), None)
    if first is None:
        raise InputError("the payload holds no conversation")
    if isinstance(first, ReadFailure):
        raise InputError(first.error.message, code=first.error.code)
    del raw, raw_bytes  # only hashed by the reader; a 64 MiB save does not hold them while it is stored
    return arc.save(first)
