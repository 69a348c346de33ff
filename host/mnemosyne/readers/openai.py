"""OpenAI API message lists: Chat Completions (a bare list of {role, content}
messages, a request body {model, messages, tools?}, a chat.completion response,
fine-tuning/batch JSON Lines) and the Responses API (input item lists, request
bodies {model, input, instructions?}, response bodies {object: response, output})."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from ..model import (
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
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, dump_raw, parse_time, raw_json
from .interop_common import as_text, each_item, parse_json_text, require, str_or_none
from .openai_parts import content_parts, function_call_part, function_output_part, reasoning_part

NAME: Final = "openai"
DESCRIPTION = "OpenAI Chat Completions / Responses API message lists and request or response bodies"

_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}
# Responses items that are not messages; the first three are what conversations carry.
_ITEM_TYPES = {
    "function_call",
    "function_call_output",
    "reasoning",
    "message",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "local_shell_call",
    "local_shell_call_output",
    "computer_call",
    "computer_call_output",
    "item_reference",
}
_FINETUNE_KEYS = {"messages", "tools", "functions", "parallel_tool_calls", "metadata", "tool_choice"}


# ---------------------------------------------------------------- detection


def _is_part(piece: Any) -> bool:
    """A typed content part; unknown types are read as UnknownPart, but `value`-keyed parts are ShareGPT's."""
    if isinstance(piece, str):
        return True
    if not isinstance(piece, dict) or not isinstance(piece.get("type"), str) or "value" in piece:
        return False
    return piece["type"] not in ("text", "input_text", "output_text") or "text" in piece


def _is_message(item: Any) -> bool:
    if not isinstance(item, dict) or item.get("role") not in _ROLES or "from" in item or "parts" in item:
        return False
    if item.get("type") not in (None, "message"):
        return False
    content = item.get("content")
    if content is None:
        return "tool_calls" in item or "function_call" in item or "refusal" in item or "content" in item
    return isinstance(content, str) or (isinstance(content, list) and all(_is_part(p) for p in content))


def _is_item(item: Any) -> bool:
    """A chat message, a Responses message item, or another Responses item (function_call ...)."""
    if _is_message(item):
        return True
    return isinstance(item, dict) and item.get("type") in _ITEM_TYPES and item.get("type") != "message"


def _is_body(data: Any) -> bool:
    """One conversation: request body, response body, fine-tuning record, batch line."""
    if not isinstance(data, dict) or "format" in data or "mapping" in data or "chat_messages" in data:
        return False
    if isinstance(data.get("body"), dict) and "custom_id" in data:
        return _is_body(data["body"])
    if data.get("object") == "chat.completion" and isinstance(data.get("choices"), list):
        return True
    if data.get("object") == "response" and isinstance(data.get("output"), list):
        return True
    messages = data.get("messages")
    if isinstance(messages, list) and messages and all(_is_message(m) for m in messages):
        return "model" in data or set(data) <= _FINETUNE_KEYS
    inputs = data.get("input")
    return bool(
        "model" in data
        and (
            isinstance(inputs, str)
            or isinstance(inputs, list)
            and inputs
            and all(_is_item(i) for i in inputs)
        )
    )


def _is_item_list(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(_is_item(i) for i in data)


def detect(raw: RawInput) -> bool:
    data = raw.data
    if _is_body(data) or _is_item_list(data):
        return True
    return (
        isinstance(data, list) and bool(data) and _is_body(data[0])
    )  # JSON Lines of bodies; bad lines fail alone


# ---------------------------------------------------------------- reading


class _Builder:
    """Turns message/items into Mnemosyne messages, grouping a response's output items into one assistant turn."""

    def __init__(self, warnings: Warnings) -> None:
        self.warnings = warnings
        self.messages: list[Message] = []
        self.instructions: list[Instruction] = []
        self.call_names: dict[str, str] = {}
        self._grouped: str | None = None  # id of the assistant message typed items are joining

    def _new(self, role: Role, parts: list[Part], **extra: Any) -> Message:
        msg = Message(
            id=f"m{len(self.messages) + 1}",
            parent=self.messages[-1].id if self.messages else None,
            role=role,
            parts=parts,
            **extra,
        )
        self.messages.append(msg)
        self._grouped = None
        return msg

    def _assistant_group(self, model: str | None) -> Message:
        last = self.messages[-1] if self.messages else None
        if last is not None and last.id == self._grouped:
            return last
        msg = self._new("assistant", [], model=model)
        self._grouped = msg.id
        return msg

    def system(self, text: str, *, author: str | None = None) -> None:
        self.instructions.append(Instruction(kind="system_prompt", text=text))
        self._new("system", [TextPart(text=text)], hidden=True, author=author)

    def add(self, item: dict[str, Any], model: str | None = None) -> None:
        kind = item.get("type")
        if kind in (None, "message") and "role" in item:
            self._message(item, model, grouped=kind == "message")
        elif kind in ("function_call", "custom_tool_call"):
            part = function_call_part(item)
            self.call_names[part.call_id or ""] = part.name
            self._assistant_group(model).parts.append(part)
        elif kind in (
            "function_call_output",
            "custom_tool_call_output",
            "local_shell_call_output",
            "computer_call_output",
        ):
            result = function_output_part(item, self.call_names)
            self._new("tool", [result], author=result.name)
        elif kind == "reasoning":
            self._assistant_group(model).parts.append(reasoning_part(item))
        elif isinstance(kind, str) and kind.endswith("_call"):
            call = ToolCallPart(
                name=kind[: -len("_call")],
                call_id=str_or_none(item.get("id")),
                arguments=raw_json(item.get("action") or item.get("arguments") or item.get("queries")),
            )
            self._assistant_group(model).parts.append(call)
        else:
            self.warnings.add("UNKNOWN_CONTENT_TYPE", f"responses item {kind!r} kept as unknown")
            self._assistant_group(model).parts.append(UnknownPart(source_type=str(kind), raw=raw_json(item)))

    def _message(self, item: dict[str, Any], model: str | None, *, grouped: bool) -> None:
        role = item["role"]
        where = f"{role} message"
        if role in ("system", "developer"):
            self.system(
                as_text(item.get("content"))
                if isinstance(item.get("content"), str)
                else "\n\n".join(
                    p.text
                    for p in content_parts(item.get("content"), self.warnings, where)
                    if isinstance(p, TextPart)
                ),
                author="developer" if role == "developer" else None,
            )
            return
        if role in ("tool", "function"):
            call_id = str_or_none(item.get("tool_call_id"))
            name = str_or_none(item.get("name")) or self.call_names.get(call_id or "")
            output = item.get("content")
            text = (
                output
                if isinstance(output, str)
                else "\n".join(
                    p.text for p in content_parts(output, self.warnings, where) if isinstance(p, TextPart)
                )
            )
            self._new("tool", [ToolResultPart(call_id=call_id, name=name, output=text)], author=name)
            return
        parts: list[Part] = []
        if (
            role == "assistant"
            and isinstance(item.get("reasoning_content"), str)
            and item["reasoning_content"]
        ):
            parts.append(ReasoningPart(text=item["reasoning_content"]))  # DeepSeek-style reasoning field
        parts.extend(content_parts(item.get("content"), self.warnings, where))
        if isinstance(item.get("refusal"), str) and item["refusal"]:
            parts.append(TextPart(text=item["refusal"]))
        for call in item.get("tool_calls") or []:
            fn = call.get("function") or {}
            part = ToolCallPart(
                name=str(fn.get("name") or call.get("type") or "function"),
                call_id=str_or_none(call.get("id")),
                arguments=parse_json_text(fn.get("arguments")),
            )
            self.call_names[part.call_id or ""] = part.name
            parts.append(part)
        if isinstance(item.get("function_call"), dict):  # the legacy single function call
            fn = item["function_call"]
            parts.append(
                ToolCallPart(
                    name=str(fn.get("name") or "function"), arguments=parse_json_text(fn.get("arguments"))
                )
            )
        if role == "assistant" and grouped:
            self._assistant_group(model).parts.extend(parts)
            return
        if role not in ("user", "assistant"):
            raise ValueError(f"unknown role {role!r}")
        self._new(
            role,
            parts,
            author=str_or_none(item.get("name")),
            model=model if role == "assistant" else None,
            status=str_or_none(item.get("status")),
        )


def _convert(body: Any, raw: bytes, ctx: ReadContext) -> Conversation:
    source_id = None
    if isinstance(body, dict) and isinstance(body.get("body"), dict) and "custom_id" in body:
        source_id, body = str_or_none(body.get("custom_id")), body["body"]
    warnings = Warnings()
    out = _Builder(warnings)
    if isinstance(body, list):
        body = {"input": body}
    model = str_or_none(body.get("model"))
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        out.system(body["instructions"])
    inputs = body.get("messages") if "messages" in body else body.get("input")
    if isinstance(inputs, str):
        inputs = [{"role": "user", "content": inputs}]
    for item in inputs or []:
        out.add(item)
    choices = body.get("choices") if body.get("object") == "chat.completion" else None
    is_response = choices is not None or body.get("object") == "response"
    if is_response:
        source_id = source_id or str_or_none(body.get("id"))
    for item in body.get("output") or [] if body.get("object") == "response" else []:
        out.add(item, model)
    active = _add_choices(out, choices or [], model)
    return build(
        site=NAME,
        source_id=source_id,
        reader=f"{NAME}.messages",
        method="other_tool",
        raw=raw,
        ctx=ctx,
        messages=out.messages,
        default_model=model,
        instructions=out.instructions,
        warnings=warnings,
        created_at=parse_time(body.get("created") or body.get("created_at")),
        active_leaf=active,
    )


def _add_choices(out: _Builder, choices: list[Any], model: str | None) -> str | None:
    """n choices of one completion are sibling answers; the first stays on the active path."""
    active = None
    parent = out.messages[-1].id if out.messages else None
    for choice in choices:
        msg = choice.get("message") or {}
        out.add({**msg, "role": msg.get("role") or "assistant"}, model)
        added = out.messages[-1]
        added.parent = parent
        added.status = str_or_none(choice.get("finish_reason"))
        active = active or added.id
    return active


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    require(raw, detect(raw), NAME, DESCRIPTION)
    data = raw.data
    if _is_body(data) or _is_item_list(data):
        yield _convert(data, raw.raw, ctx)
        return

    def convert(item: Any, _i: int) -> Conversation:
        if not _is_body(item):
            raise ValueError("not a request or response body")
        return _convert(item, dump_raw(item), ctx)

    yield from each_item(raw.name, data, convert, NAME)
