"""save: convert a raw site JSON or page capture and store it (idempotent).

Token counts for the saved messages are computed after the reply, on the
deferred worker, so a save never waits for the tokenizer to load."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

from ...errors import InputError
from . import params as p

log = logging.getLogger("mnemosyne.host")
KINDS = {
    "chatgpt_api": ("chatgpt", "site_api"),
    "claude_api": ("claude", "site_api"),
    "capture": ("capture", "page_dom"),
    "auto": (None, None),
}
# what a page may send: never a Mnemosyne document or another tool's file, whose ids a page could choose
PAGE_READERS = ("chatgpt", "claude", "capture")
COUNTED_ENCODING = "o200k_base"


def run(params: dict, ctx) -> dict:
    from ...readers import RawInput, ReadContext, ReadFailure, detect, read_raw

    kind = p.choice(params, "kind", tuple(KINDS), default="auto")
    url = p.string(params, "source_url", default=None, max_len=4096)
    if url is not None and not url.startswith(("https://", "http://")):
        raise p.BadRequest("source_url must be an http(s) URL")
    payload = params.get("payload")
    if not isinstance(payload, (dict, list)):
        raise p.BadRequest("payload must be a JSON object")
    fmt, method = KINDS[kind]
    raw_bytes = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raw = RawInput(name="payload", data=payload, raw=raw_bytes)
    read_ctx = ReadContext(source_url=url, captured_at=datetime.now(timezone.utc), method=method)
    if fmt is None:
        fmt = detect(raw).NAME
        if fmt not in PAGE_READERS:
            raise InputError(
                f"save takes the ChatGPT or Claude conversation JSON or a page capture, not {fmt} input"
            )
    conversations = list(read_raw(raw, read_ctx, fmt))
    if not conversations:
        raise InputError("the payload holds no conversation")
    first = conversations[0]
    if isinstance(first, ReadFailure):
        raise InputError(first.error.message, code=first.error.code)
    arc = ctx.archive()
    result = arc.save(first)
    if result.status != "unchanged":
        ctx.defer(lambda: _count_tokens(first))
    return result.as_dict()


def _count_tokens(conv) -> None:
    """Store per-message token counts with a connection of the worker's own."""
    from ...archive import open_archive
    from ...context import count_messages

    counts = count_messages(conv, COUNTED_ENCODING)
    with open_archive() as arc:
        arc.store_token_counts(conv.id, COUNTED_ENCODING, counts)
