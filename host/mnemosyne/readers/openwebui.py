"""Open WebUI chat exports: an array of {id, title, chat: {history: {messages,
currentId}}, created_at, updated_at}, one such object, or a bare `chat`
object. The message tree is kept (parentId, currentId); <details> blocks in
the content (reasoning, tool calls) and `output` items become typed parts."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any, Final

from ..model import (
    AttachmentKind,
    AttachmentPart,
    CodePart,
    Conversation,
    Instruction,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, dump_raw, parse_time, raw_json
from .interop_common import as_text, each_item, leaf_of, link_tree, parse_json_text, require, str_or_none
from .json_values import as_dict, as_list
from .openai_parts import content_parts, function_call_part, function_output_part, reasoning_part

NAME: Final = "openwebui"
DESCRIPTION = "Open WebUI chat export (JSON array of chats, one chat, or a bare chat object)"

_DETAILS = re.compile(r"<details\b([^>]*)>(.*?)</details>", re.S)
_SUMMARY = re.compile(r"^\s*<summary>.*?</summary>", re.S)
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
_THINK = re.compile(r"^\s*<think>(.*?)</think>", re.S)


# ---------------------------------------------------------------- detection


def _chat(item: Any) -> dict[str, Any] | None:
    """The `chat` object of an export entry (or the entry itself when it is a bare chat)."""
    if not isinstance(item, dict):
        return None
    nested = item.get("chat")
    chat: dict[str, Any] = nested if isinstance(nested, dict) else item
    history = chat.get("history")
    if isinstance(history, dict) and isinstance(history.get("messages"), dict):
        return chat
    return None


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, list):
        return bool(data) and _chat(data[0]) is not None
    return _chat(data) is not None


# ---------------------------------------------------------------- content


def _attrs(text: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in _ATTR.findall(text)}


def _unquote(body: str) -> str:
    """Reasoning bodies are HTML-escaped markdown quotes ('> ' on every line)."""
    lines = [
        line[2:] if line.startswith("> ") else line[1:] if line.startswith(">") else line
        for line in html.unescape(body).strip("\n").split("\n")
    ]
    return "\n".join(lines).strip()


def _duration(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def content_to_parts(content: str, warnings: Warnings) -> list[Part]:
    """Text with Open WebUI's <details type=...> blocks split out into typed parts."""
    parts: list[Part] = []
    think = _THINK.match(content)
    if think:  # models whose <think> the UI did not parse
        parts.append(ReasoningPart(text=think.group(1).strip()))
        content = content[think.end() :]
    pos = 0
    for match in _DETAILS.finditer(content):
        attrs = _attrs(match.group(1))
        kind = attrs.get("type")
        if kind not in ("reasoning", "tool_calls", "code_interpreter"):
            continue
        _text(parts, content[pos : match.start()])
        pos = match.end()
        body = _SUMMARY.sub("", match.group(2), count=1)
        if kind == "reasoning":
            parts.append(ReasoningPart(text=_unquote(body), duration_sec=_duration(attrs.get("duration"))))
        elif kind == "code_interpreter":
            parts.append(
                CodePart(
                    code=html.unescape(body).strip().strip("`").strip(),
                    language=attrs.get("lang") or "python",
                )
            )
        else:
            name = attrs.get("name")
            if name:
                parts.append(
                    ToolCallPart(
                        name=name,
                        call_id=attrs.get("id"),
                        arguments=parse_json_text(parse_json_text(attrs.get("arguments"))),
                    )
                )
            result = attrs.get("result", html.unescape(body).strip())
            parts.append(
                ToolResultPart(call_id=attrs.get("id"), name=name, output=as_text(parse_json_text(result)))
            )
    _text(parts, content[pos:])
    return parts


def _text(parts: list[Part], text: str) -> None:
    if text.strip():
        parts.append(TextPart(text=text.strip("\n")))


def _output_parts(output: list[Any], warnings: Warnings) -> list[Part]:
    """`output` items (Responses API shape) a newer Open WebUI stores next to the rendered content."""
    parts: list[Part] = []
    names: dict[str, str] = {}
    for item in output:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "reasoning":
            parts.append(reasoning_part(item))
        elif kind == "function_call":
            call = function_call_part(item)
            names[call.call_id or ""] = call.name
            parts.append(call)
        elif kind == "function_call_output":
            parts.append(function_output_part(item, names))
        elif kind == "message":
            parts.extend(content_parts(item.get("content"), warnings, "output message"))
        else:
            warnings.add("UNKNOWN_CONTENT_TYPE", f"Open WebUI output item {kind!r} kept as unknown")
            parts.append(UnknownPart(source_type=str(kind), raw=raw_json(item)))
    return parts


def _files(files: Any) -> list[Part]:
    parts: list[Part] = []
    for f in files if isinstance(files, list) else []:
        if not isinstance(f, dict):
            continue
        kind: AttachmentKind = "image" if f.get("type") == "image" else "file"
        url = f.get("url")
        pointer = None if isinstance(url, str) and url.startswith("data:") else str_or_none(url)
        inner = as_dict(f.get("file"))
        meta = as_dict(inner.get("meta"))
        parts.append(
            AttachmentPart(
                kind=kind,
                asset_pointer=pointer or str_or_none(f.get("id")),
                name=str_or_none(f.get("name") or inner.get("filename") or meta.get("name")),
                mime_type=str_or_none(meta.get("content_type")),
                size_bytes=f.get("size") if isinstance(f.get("size"), int) else None,
            )
        )
    return parts


# ---------------------------------------------------------------- conversation


def _message(key: str, node: dict[str, Any], warnings: Warnings) -> Message:
    role = node.get("role")
    if role not in ("user", "assistant", "system"):
        raise ValueError(f"unknown role {role!r}")
    output = node.get("output")
    if isinstance(output, list) and output:
        parts = _output_parts(output, warnings)
    else:
        parts = content_to_parts(as_text(node.get("content")), warnings)
    return Message(
        id=str(node.get("id") or key),
        parent=str_or_none(node.get("parentId")),
        role=role,
        model=str_or_none(node.get("model")) if role == "assistant" else None,
        author=str_or_none(node.get("modelName")) if role == "assistant" else None,
        created_at=parse_time(node.get("timestamp")),
        hidden=role == "system",
        parts=_files(node.get("files")) + parts,
    )


def _convert(item: dict[str, Any], raw: bytes, ctx: ReadContext) -> Conversation:
    chat = _chat(item)
    if chat is None:
        raise ValueError("no chat.history.messages")
    warnings = Warnings()
    history = chat["history"]
    nodes = [_message(k, v, warnings) for k, v in history["messages"].items()]
    messages = link_tree(nodes, warnings)
    instructions = []
    params = as_dict(chat.get("params"))
    system = chat.get("system") or params.get("system")
    if isinstance(system, str) and system.strip():
        instructions.append(Instruction(kind="system_prompt", text=system))
    current = str_or_none(history.get("currentId"))
    ids = {m.id for m in messages}
    active = leaf_of(messages, current) if current in ids else None
    models = as_list(chat.get("models"))
    return build(
        site=NAME,
        source_id=str_or_none(item.get("id")) or str_or_none(chat.get("id")),
        reader=f"{NAME}.export",
        method="other_tool",
        raw=raw,
        ctx=ctx,
        messages=messages,
        active_leaf=active,
        title=str_or_none(item.get("title") or chat.get("title")),
        instructions=instructions,
        default_model=str_or_none(models[0]) if models else None,
        created_at=parse_time(item.get("created_at") or chat.get("timestamp")),
        updated_at=parse_time(item.get("updated_at")),
        warnings=warnings,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    require(raw, detect(raw), NAME, DESCRIPTION)
    data = raw.data
    if isinstance(data, dict):
        yield _convert(data, raw.raw, ctx)
        return
    yield from each_item(raw.name, data, lambda item, _i: _convert(item, dump_raw(item), ctx), NAME)
