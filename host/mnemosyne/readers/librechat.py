"""LibreChat conversation exports (recursive: nested `children`; linear or
non-recursive: flat messages with parentMessageId; both may hold branches)
and the Chatbot UI export (version 4: history/folders/prompts), which
LibreChat also imports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from ..model import (
    AttachmentPart,
    Conversation,
    Instruction,
    Message,
    Part,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, dump_raw, parse_time, raw_json
from .interop_common import as_text, chain, each_item, link_tree, parse_json_text, require, str_or_none
from .json_values import as_dict

NAME: Final = "librechat"
DESCRIPTION = "LibreChat conversation export (tree or linear) and Chatbot UI export"

_NO_PARENT = "00000000-0000-0000-0000-000000000000"  # LibreChat's root marker


# ---------------------------------------------------------------- detection


def _is_librechat(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return False
    first = data["messages"][0] if data["messages"] else None
    return "conversationId" in data and (first is None or isinstance(first, dict) and "messageId" in first)


def _is_chatbot_ui(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("history"), list) or "folders" not in data:
        return False
    first = data["history"][0] if data["history"] else None
    return first is None or isinstance(first, dict) and isinstance(first.get("messages"), list)


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, list):
        return bool(data) and _is_librechat(data[0])
    return _is_librechat(data) or _is_chatbot_ui(data)


# ---------------------------------------------------------------- LibreChat


def _flatten(nodes: list[Any], parent: str | None, out: list[dict[str, Any]]) -> None:
    """Recursive exports nest replies in `children`; the tree is the nesting."""
    for node in nodes:
        flat = {k: v for k, v in node.items() if k != "children"}
        if parent is not None:
            flat["parentMessageId"] = parent
        out.append(flat)
        _flatten(node.get("children") or [], str(node.get("messageId")), out)


def _content_parts(content: list[Any], warnings: Warnings) -> list[Part]:
    """Agents-era `content` arrays: text, think, tool_call, image_file, error."""
    parts: list[Part] = []
    for piece in content:
        if not isinstance(piece, dict):
            continue
        kind = piece.get("type")
        value = piece.get(kind) if isinstance(kind, str) else None
        if kind == "text":
            text = value.get("value") if isinstance(value, dict) else value
            if as_text(text):
                parts.append(TextPart(text=as_text(text)))
        elif kind == "think":
            parts.append(
                ReasoningPart(text=as_text(value.get("value") if isinstance(value, dict) else value))
            )
        elif kind == "tool_call" and isinstance(value, dict):
            call_id = str_or_none(value.get("id"))
            name = str(value.get("name") or value.get("type") or "tool")
            args = value.get("args", value.get("arguments"))
            parts.append(ToolCallPart(name=name, call_id=call_id, arguments=parse_json_text(args)))
            if value.get("output") is not None:
                parts.append(ToolResultPart(call_id=call_id, name=name, output=as_text(value.get("output"))))
        elif kind in ("image_file", "image_url"):
            spec = value if isinstance(value, dict) else {}
            parts.append(
                AttachmentPart(
                    kind="image",
                    asset_pointer=str_or_none(spec.get("filepath") or spec.get("url")),
                    width=spec.get("width"),
                    height=spec.get("height"),
                )
            )
        elif kind == "error":
            parts.append(SystemErrorPart(text=as_text(value)))
        else:
            warnings.add("UNKNOWN_CONTENT_TYPE", f"LibreChat content part {kind!r} kept as unknown")
            parts.append(UnknownPart(source_type=str(kind), raw=raw_json(piece)))
    return parts


def _files(files: Any) -> list[Part]:
    return [
        AttachmentPart(
            kind="image" if str(f.get("type", "")).startswith("image/") else "file",
            asset_pointer=str_or_none(f.get("filepath") or f.get("file_id")),
            name=str_or_none(f.get("filename")),
            mime_type=str_or_none(f.get("type")),
            size_bytes=f.get("bytes") if isinstance(f.get("bytes"), int) else None,
            width=f.get("width") if isinstance(f.get("width"), int) else None,
            height=f.get("height") if isinstance(f.get("height"), int) else None,
        )
        for f in (files if isinstance(files, list) else [])
        if isinstance(f, dict)
    ]


def _message(node: dict[str, Any], warnings: Warnings) -> Message:
    user = bool(node.get("isCreatedByUser"))
    content = node.get("content")
    if isinstance(content, list) and content:
        parts = _content_parts(content, warnings)
    else:
        text = as_text(node.get("text"))
        parts = [SystemErrorPart(text=text)] if node.get("error") else [TextPart(text=text)] if text else []
    status = "error" if node.get("error") else "interrupted" if node.get("unfinished") else None
    return Message(
        id=str(node["messageId"]),
        parent=str_or_none(node.get("parentMessageId")),
        role="user" if user else "assistant",
        author=str_or_none(node.get("sender")),
        model=None if user else str_or_none(node.get("model")),
        status=status,
        created_at=parse_time(node.get("createdAt")),
        updated_at=parse_time(node.get("updatedAt")),
        parts=_files(node.get("files")) + parts,
    )


def _latest_leaf(messages: list[Message]) -> str | None:
    """LibreChat shows the newest branch; without dates, the last leaf in file order."""
    parents = {m.parent for m in messages}
    leaves = [m for m in messages if m.id not in parents]
    if not leaves:
        return None
    if all(m.created_at for m in leaves):
        return max(enumerate(leaves), key=lambda pair: (pair[1].created_at, pair[0]))[1].id
    return leaves[-1].id


def _convert_librechat(data: dict[str, Any], raw: bytes, ctx: ReadContext) -> Conversation:
    warnings = Warnings()
    flat: list[dict[str, Any]] = []
    if data.get("recursive"):
        _flatten(data["messages"], None, flat)
    else:
        flat = list(data["messages"])
    messages = link_tree([_message(n, warnings) for n in flat], warnings, root_ids=[_NO_PARENT])
    options = as_dict(data.get("options"))
    instructions = []
    for key in ("promptPrefix", "system"):
        if isinstance(options.get(key), str) and options[key].strip():
            instructions.append(Instruction(kind="system_prompt", text=options[key]))
    return build(
        site=NAME,
        source_id=str_or_none(data.get("conversationId")),
        reader=f"{NAME}.export",
        method="other_tool",
        raw=raw,
        ctx=ctx,
        messages=messages,
        active_leaf=_latest_leaf(messages),
        title=str_or_none(data.get("title")),
        default_model=str_or_none(options.get("model")),
        instructions=instructions,
        warnings=warnings,
        project=str_or_none(options.get("chatGptLabel") or options.get("modelLabel")),
        created_at=min((m.created_at for m in messages if m.created_at), default=None),
        updated_at=max((t for m in messages if (t := m.updated_at or m.created_at)), default=None),
    )


# ---------------------------------------------------------------- Chatbot UI


def _convert_chatbot_ui(conv: dict[str, Any], raw: bytes, ctx: ReadContext) -> Conversation:
    model = as_dict(conv.get("model"))
    messages = []
    for i, msg in enumerate(conv["messages"], 1):
        role = msg.get("role")
        if role not in ("user", "assistant", "system"):
            raise ValueError(f"unknown role {role!r}")
        text = as_text(msg.get("content"))
        messages.append(
            Message(
                id=f"m{i}",
                role=role,
                hidden=role == "system",
                model=str_or_none(model.get("id")) if role == "assistant" else None,
                parts=[TextPart(text=text)] if text else [],
            )
        )
    prompt = conv.get("prompt")
    instructions = (
        [Instruction(kind="system_prompt", text=prompt)] if isinstance(prompt, str) and prompt.strip() else []
    )
    return build(
        site=NAME,
        source_id=str_or_none(conv.get("id")),
        reader=f"{NAME}.chatbot_ui",
        method="other_tool",
        raw=raw,
        ctx=ctx,
        messages=chain(messages),
        title=str_or_none(conv.get("name")),
        default_model=str_or_none(model.get("id")),
        instructions=instructions,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    require(raw, detect(raw), NAME, DESCRIPTION)
    data = raw.data
    if _is_chatbot_ui(data):
        yield from each_item(
            raw.name,
            data["history"],
            lambda conv, _i: _convert_chatbot_ui(conv, dump_raw(conv), ctx),
            "Chatbot UI",
        )
    elif isinstance(data, dict):
        yield _convert_librechat(data, raw.raw, ctx)
    else:
        yield from each_item(
            raw.name, data, lambda conv, _i: _convert_librechat(conv, dump_raw(conv), ctx), NAME
        )
