"""www.perplexity.ai: a thread as `/rest/thread/{slug}` returns it (`entries`, one a question and its
answer, all pages joined by the extension), one entry alone, or the answer stream (`/rest/sse/
perplexity_ask`, one JSON frame a line, whose last frame is the entry). Each entry is a user turn (the
query and its attachments) and an assistant turn (research steps, the answer's Markdown, its sources)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..model import AttachmentPart, Conversation, Message, Part, TextPart, UnknownPart
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, dump_raw, parse_time, raw_json
from .json_values import as_dict, as_list, as_str, media_kind
from .perplexity_parts import answer_parts

NAME = "perplexity"
DESCRIPTION = "Perplexity thread JSON (/rest/thread/{slug} entries), one entry, or its answer stream"

THREAD_URL = "https://www.perplexity.ai/search/{}"


def _is_entry(value: Any) -> bool:
    return isinstance(value, dict) and "query_str" in value and ("blocks" in value or "text" in value)


def _is_frame(value: Any) -> bool:
    """A frame of the answer stream: the entry as it grows (the question arrives with the last frames)."""
    return _is_entry(value) or (
        isinstance(value, dict) and "backend_uuid" in value and "status" in value and "blocks" in value
    )


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, dict):
        return _is_entry(data) or any(_is_entry(e) for e in as_list(data.get("entries"))[:5])
    if isinstance(data, list) and raw.jsonl:
        return any(_is_frame(r) for r in data[:50])
    return False


def _stream_entries(records: list[Any], warnings: Warnings) -> tuple[list[dict[str, Any]], bool]:
    """The newest frame of each answer in a stream; partial when an answer never reached COMPLETED."""
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        if _is_frame(record):
            latest[str(record.get("backend_uuid") or record.get("uuid") or "")] = record
    partial = False
    for entry in latest.values():
        if entry.get("status") not in ("COMPLETED", None) or entry.get("final") is False:
            partial = True
            warnings.add("PERPLEXITY_UNFINISHED", "an answer stream ended before the answer was complete")
    return list(latest.values()), partial


def _attachments(entry: dict[str, Any]) -> list[Part]:
    parts: list[Part] = []
    for item in as_list(entry.get("attachments")):
        url = item if isinstance(item, str) else as_str(as_dict(item).get("url"))
        name = as_str(as_dict(item).get("name")) if isinstance(item, dict) else None
        if url or name:
            label = name or (url or "").split("?")[0].rsplit("/", 1)[-1] or None
            image = (url or "").lower().split("?")[0].endswith((".png", ".jpg", ".jpeg", ".gif", ".webp"))
            kind = media_kind("image" if image else None)
            parts.append(AttachmentPart(kind=kind, asset_pointer=url, name=label))
    return parts


def _entry_messages(entry: dict[str, Any], parent: str | None, warnings: Warnings) -> list[Message]:
    key = str(entry.get("backend_uuid") or entry.get("uuid") or entry.get("frontend_uuid") or "")
    if not key:
        key = dump_raw([entry.get("query_str"), entry.get("entry_created_datetime")]).hex()[:32]
    created = parse_time(entry.get("entry_created_datetime") or entry.get("updated_datetime"))
    query = entry.get("query_str")
    user_parts: list[Part] = (
        [TextPart(text=query, format="plain")] if isinstance(query, str) and query else []
    )
    user_parts.extend(_attachments(entry))
    if query is not None and not isinstance(query, str):
        warnings.add("PERPLEXITY_UNKNOWN_QUERY", "a question that is not text was kept as is")
        user_parts.append(UnknownPart(source_type="perplexity.query_str", raw=raw_json(query)))
    # an early stream frame has no question yet: the answer then stands alone rather than under an empty turn
    user = Message(id=f"{key}:query", parent=parent, role="user", created_at=created, parts=user_parts)
    answer = Message(
        id=key,
        parent=user.id if user_parts else parent,
        role="assistant",
        created_at=parse_time(entry.get("entry_updated_datetime")) or created,
        model=as_str(entry.get("display_model")),
        status="finished" if entry.get("status") in ("COMPLETED", None) else as_str(entry.get("status")),
        parts=answer_parts(entry, warnings),
    )
    return [user, answer] if user_parts else [answer]


def convert(entries: list[dict[str, Any]], raw: bytes, ctx: ReadContext, warnings: Warnings, partial: bool,
            identity: bytes | None = None) -> Conversation:  # fmt: skip
    if not entries:
        raise InputError("the Perplexity input holds no entries")
    messages: list[Message] = []
    for entry in entries:
        messages.extend(_entry_messages(entry, messages[-1].id if messages else None, warnings))
    first = entries[0]
    slug = as_str(first.get("thread_url_slug")) or as_str(first.get("slug"))
    models = [m.model for m in messages if m.model]
    return build(
        site="perplexity",
        source_id=slug,
        identity=identity,
        reader=f"{NAME}.site_api",
        method="site_api",
        raw=raw,
        ctx=ctx,
        messages=messages,
        title=as_str(first.get("thread_title")) or as_str(first.get("query_str")),
        url=THREAD_URL.format(slug) if slug else None,
        created_at=parse_time(first.get("entry_created_datetime")),
        updated_at=parse_time(entries[-1].get("entry_updated_datetime")),
        default_model=models[-1] if models else None,
        warnings=warnings,
        partial=partial,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    data, warnings, partial = raw.data, Warnings(), False
    if isinstance(data, list) and raw.jsonl:
        entries, partial = _stream_entries(data, warnings)
    elif isinstance(data, dict) and _is_entry(data):
        entries = [data]
    elif isinstance(data, dict) and isinstance(data.get("entries"), list):
        entries = []
        for n, entry in enumerate(data["entries"]):
            if _is_entry(entry):
                entries.append(entry)
            else:  # kept with the entry before it, so its place in the thread is not lost
                warnings.add("PERPLEXITY_UNKNOWN_ENTRY", "a thread entry of an unknown shape was kept as is")
                entries.append(
                    {"query_str": "", "blocks": [{"intended_usage": f"entry {n + 1}", "kept": entry}]}
                )
        if data.get("has_next_page") is True:
            partial = True
            warnings.add("PERPLEXITY_MORE_PAGES", "the thread has more entries than this input holds")
    else:
        raise InputError(f"{raw.name}: not a Perplexity thread")
    yield convert(entries, raw.raw, ctx, warnings, partial)
