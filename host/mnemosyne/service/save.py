"""Saving what the extension sent: a site's conversation JSON or a page capture."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..archive.sync import SyncMark
from ..errors import InputError, MnemosyneError
from ..runtime.utf8 import without_utf8_copy

if TYPE_CHECKING:
    from ..archive import Archive, SaveResult
    from ..archive.writes import Prepared
    from ..model import CaptureMethod, Conversation
    from .preparation import Preparation

# kind -> (reader, capture method); "auto" detects, but only among PAGE_READERS
PAGE_KINDS: dict[str, tuple[str | None, CaptureMethod | None]] = {
    "chatgpt_api": ("chatgpt", "site_api"),
    "claude_api": ("claude", "site_api"),
    "capture": ("capture", "page_dom"),
    "auto": (None, None),
    "grok_api": ("grok", "site_api"),
    "perplexity_api": ("perplexity", "site_api"),
    "gemini_api": ("gemini", "site_api"),
    "deepseek_api": ("deepseek", "site_api"),
}
# what a page may send: never a Mnemosyne document or another tool's file, whose ids a page could choose
PAGE_READERS = ("chatgpt", "claude", "capture", "grok", "perplexity", "gemini", "deepseek")


@dataclass
class SaveItem:
    """One conversation to save, as the extension sent it (`save`)."""

    payload: dict[str, Any] | list[Any]
    kind: str = "auto"
    source_url: str | None = None
    mark: SyncMark = SyncMark()


def save_payload(
    arc: Archive,
    payload: dict[str, Any] | list[Any],
    kind: str = "auto",
    source_url: str | None = None,
    *,
    list_updated: str | None = None,
    origin: str = "export",
    preparation: Preparation | None = None,
) -> SaveResult:
    """Convert `payload` with the reader `kind` names and store it (idempotent: a re-save merges; a partial
    capture never replaces a complete copy: status `kept`).

    No token counts are stored here: the extension's default context is redacted, which counts the text
    it builds (see tokens/policy.py), so counting at save time would be thrown away. With `preparation` (a
    host's), a long conversation's texts are split beside the read and the store, and the conversation
    saved is the one prepared after the reply (see service/preparation.py)."""
    if preparation is None:
        conv = read_payload(payload, kind, source_url)
        return arc.save_many([conv], marks=[SyncMark(list_updated, origin)])[0]
    try:
        preparation.payload_received(arc, payload)
        conv = read_payload(payload, kind, source_url)
        preparation.read(arc, conv)
        result = arc.save_many([conv], marks=[SyncMark(list_updated, origin)])[0]
    except BaseException:
        preparation.save_failed()  # (texts handed ahead of a read or a store that failed)
        raise
    _drop_utf8_copies(conv)
    preparation.turn_to(conv)
    return result


def _drop_utf8_copies(conv: Conversation) -> None:
    """The saved conversation's part texts without the UTF-8 copies storing it attached to them (the
    payload's digest, the document and the search rows are written by msgspec: see utf8.py).
    A host keeps this conversation while it builds its contexts (Archive.get, the context engine's turns):
    5 MB of chat held about 4 MB of copies (English, its emoji and dashes) or 5 MB (Chinese)."""
    for msg in conv.messages:
        for part in msg.parts:
            fields = part.__dict__  # (a field set anew in place: pydantic's setattr would only add checks)
            for name, value in fields.items():
                if type(value) is str and not value.isascii():
                    fields[name] = without_utf8_copy(value)


def read_payload(
    payload: dict[str, Any] | list[Any], kind: str = "auto", source_url: str | None = None
) -> Conversation:
    """The conversation a page payload holds (InputError when it holds none)."""
    # (the readers load with the first payload: the host's hello and its other actions need none)
    from ..canonical import json_bytes
    from ..readers import RawInput, ReadContext, ReadFailure, detect, read_raw

    fmt, method = PAGE_KINDS[kind]
    raw_bytes = json_bytes(payload)
    raw = RawInput(name="payload", data=payload, raw=raw_bytes)
    read_ctx = ReadContext(source_url=source_url, captured_at=datetime.now(timezone.utc), method=method)
    if fmt is None:
        fmt = detect(raw).NAME
        if fmt not in PAGE_READERS:
            raise InputError(f"save takes a site's conversation JSON or a page capture, not {fmt} input")
    first = next(iter(read_raw(raw, read_ctx, fmt)), None)
    if first is None:
        raise InputError("the payload holds no conversation")
    if isinstance(first, ReadFailure):
        raise InputError(first.error.message, code=first.error.code)
    return first


def save_conversations(
    arc: Archive,
    convs: list[Conversation],
    counter: Any = None,
    encoding: str = "o200k_base",
    prepared: dict[int, Prepared] | None = None,
) -> list[SaveResult | MnemosyneError]:
    """Many conversations in one transaction (one commit, one fsync); when that fails, one by one, so the
    one that cannot be stored is reported and the rest still go in (`mnemo import`).
    `prepared`: see Archive.save_many."""
    if not convs:
        return []
    try:
        return list(arc.save_many(convs, counter, encoding, prepared=prepared))
    except MnemosyneError:
        pass
    out: list[SaveResult | MnemosyneError] = []
    for conv in convs:
        try:
            out += arc.save_many([conv], counter, encoding, prepared=prepared)
        except MnemosyneError as exc:
            out.append(exc)
    return out
