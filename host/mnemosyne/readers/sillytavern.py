"""SillyTavern chat files (JSON Lines): a header line {user_name,
character_name, create_date, chat_metadata?}, then one message per line
{name, is_user, is_system?, send_date, mes, swipes?, swipe_id?, swipe_info?,
extra?}. Swipes (alternative replies) become sibling branches with the chosen
one on the active path."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, Final, TypedDict

from ..errors import InputError
from ..model import AttachmentPart, Conversation, Message, Part, ReasoningPart, Role, TextPart
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, parse_time
from .interop_common import as_text, str_or_none
from .json_values import as_dict, as_list

NAME: Final = "sillytavern"
DESCRIPTION = "SillyTavern chat (JSON Lines: header line, then messages)"

_UNUSED = "unused"  # what newer SillyTavern versions write into the header's name fields
_DATE_FORMATS = (
    "%B %d, %Y %I:%M%p",
    "%B %d, %Y %I:%M %p",
    "%Y-%m-%d@%Hh%Mm%Ss",
    "%Y-%m-%d @%Hh %Mm %Ss %fms",
    "%Y-%m-%d @%Hh %Mm %Ss",
)


# ---------------------------------------------------------------- detection


def _is_header(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and ("chat_metadata" in record or "user_name" in record and "character_name" in record)
        and "mes" not in record
    )


def _is_message(record: Any) -> bool:
    return isinstance(record, dict) and "mes" in record and "is_user" in record


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, dict):  # a chat with no messages yet is a single header line
        return _is_header(data) and "create_date" in data
    return (
        isinstance(data, list)
        and bool(data)
        and _is_header(data[0])
        and all(_is_message(r) for r in data[1:2])
    )


# ---------------------------------------------------------------- reading


def send_time(value: Any) -> datetime | None:
    """Epoch ms (older files), ISO, or the humanized 'June 14, 2024 5:30pm' SillyTavern writes now."""
    parsed = parse_time(value)
    if parsed is not None or not isinstance(value, str):
        return parsed
    text = value.strip()
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


def _parts(text: Any, extra: Any) -> list[Part]:
    extra = extra if isinstance(extra, dict) else {}
    parts: list[Part] = []
    reasoning = extra.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        duration = extra.get("reasoning_duration")
        parts.append(
            ReasoningPart(
                text=reasoning,
                duration_sec=duration / 1000
                if isinstance(duration, (int, float)) and not isinstance(duration, bool)
                else None,
            )
        )
    if isinstance(extra.get("image"), str) and extra["image"]:
        image = extra["image"]
        parts.append(AttachmentPart(kind="image", asset_pointer=None if image.startswith("data:") else image))
    files = extra.get("files") if isinstance(extra.get("files"), list) else [extra.get("file")]
    for f in files:
        if isinstance(f, dict):
            parts.append(
                AttachmentPart(
                    kind="file",
                    asset_pointer=str_or_none(f.get("url")),
                    name=str_or_none(f.get("name")),
                    size_bytes=f.get("size") if isinstance(f.get("size"), int) else None,
                    extracted_text=str_or_none(f.get("text")),
                )
            )
    body = as_text(text)
    if body:
        parts.append(TextPart(text=body))
    return parts


def _role(record: dict[str, Any]) -> Role:
    extra = as_dict(record.get("extra"))
    if record.get("is_user"):
        return "user"
    if extra.get("type") in ("narrator", "comment"):  # /sys and /comment messages
        return "system"
    return "assistant"


class _Shared(TypedDict):
    """What a reply and its swipes have in common."""

    parent: str | None
    role: Role
    author: str | None
    hidden: bool


def _message_nodes(index: int, record: dict[str, Any], parent: str | None) -> tuple[list[Message], str]:
    """The message and, for a reply with swipes, its alternatives as siblings; returns the chosen id."""
    extra = as_dict(record.get("extra"))
    role = _role(record)
    chosen_id = f"m{index}"
    common: _Shared = {
        "parent": parent,
        "role": role,
        "author": str_or_none(record.get("name")),
        "hidden": bool(record.get("is_system")) or extra.get("type") == "comment",
    }
    chosen = Message(
        id=chosen_id,
        model=str_or_none(extra.get("model")),
        created_at=send_time(record.get("send_date")),
        parts=_parts(record.get("mes"), extra),
        **common,
    )
    swipes = as_list(record.get("swipes"))
    swipe_id = record.get("swipe_id")
    picked = swipe_id if isinstance(swipe_id, int) else 0
    if len(swipes) < 2 or not 0 <= picked < len(swipes):
        return [chosen], chosen_id
    infos = as_list(record.get("swipe_info"))
    nodes: list[Message] = []
    for k, swipe in enumerate(swipes):
        if k == picked:
            nodes.append(chosen)
            continue
        info = infos[k] if k < len(infos) and isinstance(infos[k], dict) else {}
        info_extra = as_dict(info.get("extra"))
        nodes.append(
            Message(
                id=f"{chosen_id}.swipe{k}",
                model=str_or_none(info_extra.get("model")),
                created_at=send_time(info.get("send_date")),
                parts=_parts(swipe, info_extra),
                **common,
            )
        )
    return nodes, chosen_id


def _character(header: dict[str, Any], records: list[Any]) -> str | None:
    name = str_or_none(header.get("character_name"))
    if name and name != _UNUSED:
        return name
    for record in records:
        if _is_message(record) and not record.get("is_user") and _role(record) == "assistant":
            return str_or_none(record.get("name"))
    return None


def _convert(header: dict[str, Any], records: list[Any], raw: RawInput, ctx: ReadContext) -> Conversation:
    warnings = Warnings()
    messages: list[Message] = []
    parent: str | None = None
    for index, record in enumerate(records, 1):
        if not _is_message(record):
            warnings.add("SKIPPED_RECORD", "a line that is not a chat message was skipped")
            continue
        nodes, parent_next = _message_nodes(index, record, parent)
        messages.extend(nodes)
        parent = parent_next
    character = _character(header, records)
    created = str_or_none(header.get("create_date"))
    metadata = as_dict(header.get("chat_metadata"))
    source_id = str_or_none(metadata.get("integrity")) or (
        f"{character}/{created}" if character and created else None
    )
    return build(
        site=NAME,
        source_id=source_id,
        reader=f"{NAME}.jsonl",
        method="other_tool",
        raw=raw.raw,
        ctx=ctx,
        messages=messages,
        active_leaf=parent,
        title=character,
        project=character,
        created_at=send_time(header.get("create_date")),
        warnings=warnings,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    data = raw.data
    records = [data] if isinstance(data, dict) else data
    if not isinstance(records, list) or not records or not _is_header(records[0]):
        raise InputError(f"{raw.name}: not a SillyTavern chat (the first line must be the chat header)")
    yield _convert(records[0], records[1:], raw, ctx)
