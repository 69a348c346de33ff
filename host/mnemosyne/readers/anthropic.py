"""Anthropic Messages API bodies: requests {model, system, messages}, responses
{type: message, role: assistant, content}, and proxy log records that carry a
request `body` with its `response_body` (one per record, several per file)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final, TypeGuard

from ..errors import InputError
from ..model import (
    AttachmentKind,
    AttachmentPart,
    Citation,
    Conversation,
    Instruction,
    Message,
    Part,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, dump_raw, raw_json
from .interop_common import as_text, each_item, str_or_none
from .json_values import as_dict

NAME: Final = "anthropic"
DESCRIPTION = "Anthropic Messages API request/response bodies (and proxy logs of them)"

# Block types only the Messages API uses; a message list with one of them is Anthropic's.
_OWN_BLOCKS = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "document",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "search_result",
}


# ---------------------------------------------------------------- detection


def _turns_ok(messages: Any) -> TypeGuard[list[Any]]:
    return isinstance(messages, list) and all(
        isinstance(m, dict) and m.get("role") in ("user", "assistant") and "content" in m for m in messages
    )


def _has_own_blocks(messages: list[Any]) -> bool:
    return any(
        isinstance(b, dict) and (b.get("type") in _OWN_BLOCKS or b.get("type") == "image" and "source" in b)
        for m in messages
        if isinstance(m.get("content"), list)
        for b in m["content"]
    )


def _is_request(data: Any) -> bool:
    if not isinstance(data, dict) or "format" in data or "mapping" in data or "chat_messages" in data:
        return False
    messages = data.get("messages")
    if not _turns_ok(messages):
        return False
    model = data.get("model")
    return (
        "system" in data
        or (isinstance(model, str) and model.startswith("claude"))
        or _has_own_blocks(messages)
    )


def _is_message_list(data: Any) -> bool:
    """A bare `messages` array, recognizable by Anthropic-only blocks (tool_use, thinking ...)."""
    return isinstance(data, list) and bool(data) and _turns_ok(data) and _has_own_blocks(data)


def _is_response(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("type") == "message"
        and data.get("role") == "assistant"
        and isinstance(data.get("content"), list)
    )


def _is_record(data: Any) -> bool:
    """A proxy log entry: {request_id?, body: request, response_body?: response}."""
    return isinstance(data, dict) and _is_request(data.get("body"))


def _conversations(data: Any) -> list[Any] | None:
    """The conversations in an input, or None when it is not this format."""
    if _is_message_list(data):
        return [{"messages": data}]
    if _is_request(data) or _is_response(data) or _is_record(data):
        return [data]
    if isinstance(data, dict):  # a wrapper holding records by name (e.g. {parent: {body}, child: {body}})
        found = [v for v in data.values() if _is_record(v)]
        return found or None
    if (
        isinstance(data, list)
        and data
        and all(_is_request(d) or _is_response(d) or _is_record(d) for d in data)
    ):
        return data
    return None


def detect(raw: RawInput) -> bool:
    return _conversations(raw.data) is not None


# ---------------------------------------------------------------- blocks


def _citations(block: dict[str, Any]) -> list[Citation]:
    out = []
    for c in block.get("citations") or []:
        if not isinstance(c, dict):
            continue
        start = c.get("start_char_index", c.get("start_page_number"))
        end = c.get("end_char_index", c.get("end_page_number"))
        out.append(
            Citation(
                title=str_or_none(c.get("title") or c.get("document_title")),
                url=str_or_none(c.get("url")),
                snippet=str_or_none(c.get("cited_text")),
                start=start if isinstance(start, int) else None,
                end=end if isinstance(end, int) else None,
            )
        )
    return out


def _attachment(block: dict[str, Any], kind: AttachmentKind, warnings: Warnings) -> AttachmentPart:
    source = as_dict(block.get("source"))
    stype = source.get("type")
    pointer = str_or_none(source.get("url")) or str_or_none(source.get("file_id"))
    extracted = None
    if stype == "text":
        extracted = as_text(source.get("data"))
    elif stype == "content":
        extracted = as_text(source.get("content"))
    elif stype == "base64":
        warnings.add(
            "INLINE_DATA_DROPPED", "inline base64 bytes were not kept; the attachment records only its type"
        )
    return AttachmentPart(
        kind=kind,
        asset_pointer=pointer,
        name=str_or_none(block.get("title")),
        mime_type=str_or_none(source.get("media_type")),
        extracted_text=extracted,
    )


def _search_results(block: dict[str, Any]) -> ToolResultPart:
    content = block.get("content")
    if isinstance(content, dict):  # web_search_tool_result_error
        return ToolResultPart(
            call_id=str_or_none(block.get("tool_use_id")),
            name="web_search",
            output=str(content.get("error_code") or "error"),
            is_error=True,
        )
    cites, lines = [], []
    for hit in content or []:
        if isinstance(hit, dict) and hit.get("type") == "web_search_result":
            cites.append(Citation(title=str_or_none(hit.get("title")), url=str_or_none(hit.get("url"))))
            lines.append(f"{hit.get('title') or ''} {hit.get('url') or ''}".strip())
    return ToolResultPart(
        call_id=str_or_none(block.get("tool_use_id")),
        name="web_search",
        output="\n".join(lines),
        citations=cites,
    )


def block_part(block: Any, warnings: Warnings, names: dict[str, str]) -> Part:
    if isinstance(block, str):
        return TextPart(text=block)
    kind = block.get("type")
    if kind == "text":
        return TextPart(text=as_text(block.get("text")), citations=_citations(block))
    if kind in ("image", "document"):
        return _attachment(block, "image" if kind == "image" else "file", warnings)
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        call_id = str_or_none(block.get("id"))
        names[call_id or ""] = str(block.get("name") or kind)
        return ToolCallPart(
            name=str(block.get("name") or kind), call_id=call_id, arguments=raw_json(block.get("input"))
        )
    if kind == "web_search_tool_result":
        return _search_results(block)
    if isinstance(kind, str) and kind.endswith("tool_result"):
        call_id = str_or_none(block.get("tool_use_id"))
        content = block.get("content")
        output = (
            content
            if isinstance(content, str)
            else "\n".join(
                p.text
                for p in (block_part(b, warnings, names) for b in content or [])
                if isinstance(p, TextPart)
            )
        )
        if not output and content and not isinstance(content, str):
            output = as_text(raw_json(content))
        return ToolResultPart(
            call_id=call_id,
            name=names.get(call_id or ""),
            output=output,
            is_error=bool(block.get("is_error")),
        )
    if kind == "thinking":
        return ReasoningPart(text=as_text(block.get("thinking")))
    if kind == "redacted_thinking":
        return ReasoningPart(text="", truncated=True)  # encrypted by the API: nothing readable to keep
    warnings.add("UNKNOWN_CONTENT_TYPE", f"Messages API block {kind!r} kept as unknown")
    return UnknownPart(source_type=str(kind), raw=raw_json(block))


# ---------------------------------------------------------------- conversation


def _system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    return "\n\n".join(
        as_text(b.get("text")) for b in system or [] if isinstance(b, dict) and b.get("type") == "text"
    )


def _add(messages: list[Message], role: Role, parts: Sequence[Part], **extra: Any) -> None:
    messages.append(
        Message(
            id=f"m{len(messages) + 1}",
            parent=messages[-1].id if messages else None,
            role=role,
            parts=list(parts),
            **extra,
        )
    )


def _add_turn(
    messages: list[Message], turn: dict[str, Any], warnings: Warnings, names: dict[str, str], **extra: Any
) -> None:
    """One API message. A user turn's tool_result blocks become a tool message before its text."""
    role = turn.get("role")
    if role not in ("user", "assistant"):
        raise ValueError(f"unknown role {role!r}")
    content = turn.get("content")
    parts = [
        block_part(b, warnings, names) for b in ([content] if isinstance(content, str) else content or [])
    ]
    if isinstance(content, str) and not content:
        parts = []
    if role == "user":
        results = [p for p in parts if isinstance(p, ToolResultPart)]
        if results:
            _add(
                messages,
                "tool",
                results,
                author=results[0].name if len({r.name for r in results}) == 1 else None,
            )
            parts = [p for p in parts if not isinstance(p, ToolResultPart)]
            if not parts:
                return
    _add(messages, role, parts, **extra)


def _convert(item: Any, raw: bytes, ctx: ReadContext) -> Conversation:
    warnings = Warnings()
    names: dict[str, str] = {}
    messages: list[Message] = []
    instructions: list[Instruction] = []
    source_id = None
    request: Any = item  # an API request, or a batch record / response around one
    response: Any = None
    if _is_record(item):
        request, response = item["body"], item.get("response_body")
        source_id = str_or_none(item.get("request_id")) or str_or_none(item.get("id"))
    elif _is_response(item):
        request, response = {}, item
    system = _system_text(request.get("system"))
    if system:
        instructions.append(Instruction(kind="system_prompt", text=system))
        _add(messages, "system", [TextPart(text=system)], hidden=True)
    for turn in request.get("messages") or []:
        _add_turn(messages, turn, warnings, names)
    model = str_or_none(request.get("model"))
    if _is_response(response):
        model = model or str_or_none(response.get("model"))
        source_id = source_id or str_or_none(response.get("id"))
        _add_turn(
            messages,
            response,
            warnings,
            names,
            model=str_or_none(response.get("model")),
            status=str_or_none(response.get("stop_reason")),
        )
    return build(
        site=NAME,
        source_id=source_id,
        reader=f"{NAME}.messages",
        method="other_tool",
        raw=raw,
        ctx=ctx,
        messages=messages,
        default_model=model,
        instructions=instructions,
        warnings=warnings,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    items = _conversations(raw.data)
    if items is None:
        raise InputError(f"{raw.name}: no Messages API request or response body found")
    if len(items) == 1 and (items[0] is raw.data or _is_message_list(raw.data)):
        yield _convert(items[0], raw.raw, ctx)
        return
    yield from each_item(raw.name, items, lambda item, _i: _convert(item, dump_raw(item), ctx), NAME)
