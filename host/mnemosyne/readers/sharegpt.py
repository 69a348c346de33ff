"""ShareGPT-style training data: {conversations: [{from, value}]} items (FastChat,
axolotl, LLaMA-Factory with function_call/observation turns and a `tools`
string) and the "messages" variant (role/content, typed content parts,
images[] for <image> placeholders). One item, a list of items, or JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from ..model import (
    AttachmentKind,
    AttachmentPart,
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
from .interop_common import as_text, each_item, require, str_or_none

NAME: Final = "sharegpt"
DESCRIPTION = "ShareGPT / LLaMA-Factory training conversations (JSON, list or JSON Lines)"

_ROLES: dict[str, Role] = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "chatgpt": "assistant",
    "bing": "assistant",
    "bard": "assistant",
    "model": "assistant",
    "function_call": "assistant",
    "tool_call": "assistant",
    "tool_calls": "assistant",
    "observation": "tool",
    "tool": "tool",
    "function": "tool",
    "ipython": "tool",
    "function_response": "tool",
    "system": "system",
}
# keys of other formats whose items also hold a `messages` list (Mnemosyne, ChatGPT, Claude, Open WebUI, LibreChat)
_FOREIGN_KEYS = ("format", "mapping", "chat_messages", "history", "conversationId")
_CALL_ROLES = {"function_call", "tool_call", "tool_calls"}
# placeholder in the text -> (item field listing the files, attachment kind)
_MEDIA: dict[str, tuple[str, AttachmentKind]] = {
    "<image>": ("images", "image"),
    "<video>": ("videos", "video"),
    "<audio>": ("audios", "audio"),
}
_MEDIA_TYPES = {
    "image": "<image>",
    "video": "<video>",
    "audio": "<audio>",
}  # typed parts that stand for a placeholder


# ---------------------------------------------------------------- detection


def _turns(item: Any) -> list[Any] | None:
    if not isinstance(item, dict) or any(k in item for k in _FOREIGN_KEYS):
        return None
    turns = item.get("conversations", item.get("messages"))
    return turns if isinstance(turns, list) else None


def _is_turn(turn: Any) -> bool:
    if not isinstance(turn, dict):
        return False
    if "from" in turn and "value" in turn:
        return str(turn["from"]).lower() in _ROLES
    return "role" in turn and "content" in turn and str(turn["role"]).lower() in _ROLES


def _is_item(item: Any) -> bool:
    turns = _turns(item)
    return turns is not None and bool(turns) and all(_is_turn(t) for t in turns)


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, list):
        return bool(data) and _is_item(data[0])
    return _is_item(data)


# ---------------------------------------------------------------- turns


def _calls(value: Any, warnings: Warnings) -> list[Part]:
    """A function_call turn: {"name", "arguments"} JSON (or a list of them for parallel calls)."""
    parsed = value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            warnings.add("UNPARSED_TOOL_CALL", "a function_call turn was not JSON; kept as text")
            return [TextPart(text=value)]
    calls = parsed if isinstance(parsed, list) else [parsed]
    parts: list[Part] = []
    for call in calls:
        if isinstance(call, dict) and call.get("name"):
            args = call.get("arguments", call.get("parameters"))
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    pass
            parts.append(
                ToolCallPart(name=str(call["name"]), call_id=str_or_none(call.get("id")), arguments=args)
            )
        else:
            warnings.add("UNPARSED_TOOL_CALL", "a function_call turn had no tool name; kept as text")
            parts.append(TextPart(text=as_text(call)))
    return parts


class _Media:
    """Hands out the item's image/video/audio paths in placeholder order."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.queues = {tag: list(item.get(field) or []) for tag, (field, _) in _MEDIA.items()}

    def split(self, text: str) -> list[Part]:
        parts: list[Part] = []
        rest = text
        while True:
            hits = [(rest.find(tag), tag) for tag in _MEDIA if tag in rest]
            if not hits:
                break
            pos, tag = min(hits)
            if rest[:pos]:
                parts.append(TextPart(text=rest[:pos]))
            parts.append(self.take(tag))
            rest = rest[pos + len(tag) :]
        if rest:
            parts.append(TextPart(text=rest))
        return parts

    def take(self, tag: str) -> AttachmentPart:
        queue = self.queues[tag]
        path = queue.pop(0) if queue else None
        return AttachmentPart(kind=_MEDIA[tag][1], asset_pointer=str_or_none(path), name=_name(path))

    def leftovers(self) -> list[AttachmentPart]:
        return [self.take(tag) for tag in _MEDIA for _ in range(len(self.queues[tag]))]


def _name(path: Any) -> str | None:
    return str(path).rsplit("/", 1)[-1] if isinstance(path, str) and path else None


def _typed_parts(content: list[Any], role_key: str, media: _Media, warnings: Warnings) -> list[Part]:
    """LLaMA-Factory typed content: [{type: text|reasoning|tool_call, value}] (or OpenAI-ish {type, text})."""
    parts: list[Part] = []
    for piece in content:
        if isinstance(piece, str):
            parts.extend(media.split(piece))
            continue
        kind = piece.get("type")
        value = piece.get("value", piece.get("text"))
        if kind == "text":
            parts.extend(media.split(as_text(value)))
        elif kind in ("reasoning", "thinking"):
            parts.append(ReasoningPart(text=as_text(value)))
        elif kind in ("tool_call", "function_call"):
            parts.extend(_calls(value, warnings))
        elif kind in _MEDIA_TYPES:
            parts.append(media.take(_MEDIA_TYPES[kind]))
        else:
            warnings.add("UNKNOWN_CONTENT_TYPE", f"{role_key} content part {kind!r} kept as unknown")
            parts.append(UnknownPart(source_type=str(kind), raw=raw_json(piece)))
    return parts


def _convert(item: dict[str, Any], raw: bytes, ctx: ReadContext) -> Conversation:
    warnings = Warnings()
    media = _Media(item)
    messages: list[Message] = []
    instructions: list[Instruction] = []
    last_call: str | None = None
    if isinstance(item.get("system"), str) and item["system"]:
        instructions.append(Instruction(kind="system_prompt", text=item["system"]))
        messages.append(Message(id="m1", role="system", hidden=True, parts=[TextPart(text=item["system"])]))
    for turn in _turns(item) or []:
        key = str(turn.get("from", turn.get("role"))).lower()
        role = _ROLES[key]
        value = turn.get("value", turn.get("content"))
        if key in _CALL_ROLES:
            parts = _calls(value, warnings)
        elif isinstance(value, list):
            parts = _typed_parts(value, key, media, warnings)
        elif role == "tool":
            parts = []
        else:
            parts = media.split(as_text(value))
        if role == "tool":
            text = (
                as_text(value)
                if not isinstance(value, list)
                else "\n".join(p.text for p in parts if isinstance(p, TextPart))
            )
            parts = [ToolResultPart(name=last_call, output=text)]
        calls = [p.name for p in parts if isinstance(p, ToolCallPart)]
        last_call = calls[-1] if calls else last_call
        if role == "system":
            text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
            instructions.append(Instruction(kind="system_prompt", text=text))
        messages.append(
            Message(
                id=f"m{len(messages) + 1}",
                parent=messages[-1].id if messages else None,
                role=role,
                parts=parts,
                hidden=role == "system",
                author=last_call if role == "tool" else None,
            )
        )
    if item.get("tools"):  # the function definitions the model was given, as the dataset spells them
        tools = (
            item["tools"] if isinstance(item["tools"], str) else json.dumps(item["tools"], ensure_ascii=False)
        )
        instructions.append(Instruction(kind="system_prompt", title="tools", text=tools))
    extra = media.leftovers()
    if extra:
        warnings.add(
            "UNPLACED_MEDIA",
            "media files without an <image>/<video>/<audio> placeholder were attached to the first user turn",
        )
        first_user = next((m for m in messages if m.role == "user"), None)
        if first_user is None:
            raise ValueError("media files but no user turn to attach them to")
        first_user.parts = extra + first_user.parts
    source_id = str_or_none(item.get("id"))
    return build(
        site=NAME,
        source_id=source_id,
        reader=f"{NAME}.dataset",
        method="other_tool",
        raw=raw,
        ctx=ctx,
        messages=messages,
        instructions=instructions,
        warnings=warnings,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    require(raw, detect(raw), NAME, DESCRIPTION)
    data = raw.data
    if isinstance(data, dict):
        yield _convert(data, raw.raw, ctx)
        return

    def convert(item: Any, _i: int) -> Conversation:
        if not _is_item(item):
            raise ValueError("not a {conversations|messages: [...]} item")
        return _convert(item, dump_raw(item), ctx)

    yield from each_item(raw.name, data, convert, NAME)
