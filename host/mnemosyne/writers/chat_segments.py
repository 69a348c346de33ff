"""A conversation path flattened for chat APIs (OpenAI, Anthropic, Ollama).

Messages become a stream of segments: text said by a role, tool calls and tool
results. Each API writer then packs the stream by its own rules. Reasoning is
left out (the APIs do not take earlier reasoning back as plain input) and so
are unknown parts (raw vendor JSON means nothing to another model); the bytes
of attachments stay at the source, so they become text references.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..model import (
    ArtifactPart,
    AttachmentPart,
    CitationPart,
    CodeOutputPart,
    CodePart,
    Conversation,
    Message,
    Part,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from .common import INSTRUCTION_LABELS, human_size, visible_path
from .fences import fenced

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")
MISSING_RESULT = "[no tool result was recorded in the source conversation]"


@dataclass
class Text:
    role: Literal["system", "user", "assistant"]
    text: str


@dataclass
class Call:
    id: str  # unique, API-safe
    name: str  # API-safe
    arguments: Any
    source_id: str | None


@dataclass
class Result:
    source_id: str | None
    name: str | None
    output: str
    is_error: bool
    as_text: str  # how to say it when no call is waiting for it


Segment = Text | Call | Result


def safe_name(name: str | None, fallback: str = "tool") -> str:
    """Tool names and ids the APIs accept: [A-Za-z0-9_-], at most 64 characters."""
    cleaned = _UNSAFE_NAME.sub("_", name or "")[:64]
    return cleaned or fallback


def attachment_reference(part: AttachmentPart) -> str:
    details = ", ".join(x for x in (part.mime_type, human_size(part.size_bytes)) if x)
    label = f"[{part.kind} attached: {part.name or part.asset_pointer or 'unnamed'}"
    line = label + (f" ({details})]" if details else "]")
    if part.extracted_text:
        return f"{line}\n{part.extracted_text}"
    return line


def part_content(part: Part) -> str:
    """Text for one part that is not a tool call or result ('' when it says nothing)."""
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, CodePart):
        return fenced(part.code, part.language)
    if isinstance(part, CodeOutputPart):
        return "Output:\n" + fenced(part.text) if part.text else ""
    if isinstance(part, AttachmentPart):
        return attachment_reference(part)
    if isinstance(part, CitationPart):
        source = " ".join(x for x in (part.title, f"<{part.url}>" if part.url else None) if x)
        quote = "\n".join("> " + line for line in part.text.splitlines()) if part.text else ""
        return "\n".join(x for x in (quote, f"Source: {source}" if source else "") if x)
    if isinstance(part, ArtifactPart):
        head = f"Artifact: {part.title}" if part.title else "Artifact"
        return f"{head}\n{fenced(part.content, part.language)}"
    if isinstance(part, SystemErrorPart):
        return f"[error{': ' + part.name if part.name else ''}] {part.text}".rstrip()
    return ""


class _Ids:
    """Unique API-safe call ids; the same source id can appear twice in real data."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, source_id: str | None) -> str:
        base = safe_name(source_id, "") or f"call_{len(self.used) + 1}"
        candidate, n = base, 1
        while candidate in self.used:
            n += 1
            candidate = f"{base}_{n}"
        self.used.add(candidate)
        return candidate


def instructions_text(conv: Conversation) -> str:
    blocks = []
    for ins in conv.instructions:
        if not ins.text.strip():
            continue
        label = INSTRUCTION_LABELS[ins.kind] + (f" ({ins.title})" if ins.title else "")
        blocks.append(ins.text if len(conv.instructions) == 1 else f"{label}:\n{ins.text}")
    return "\n\n".join(blocks)


def _tool_message(msg: Message) -> list[Segment]:
    """A tool-role message: its results, and its other content as one more result."""
    out: list[Segment] = []
    rest = [
        fenced(p.text) if isinstance(p, CodeOutputPart) and p.text else part_content(p)
        for p in msg.parts
        if not isinstance(p, ToolResultPart)
    ]
    for part in msg.parts:
        if isinstance(part, ToolResultPart):
            out.append(_result(part, msg.author))
    text = "\n\n".join(t for t in rest if t)
    if text:
        label = f"Tool output ({msg.author})" if msg.author else "Tool output"
        out.append(Result(None, msg.author, text, False, f"{label}:\n{text}"))
    return out


def _result(part: ToolResultPart, author: str | None) -> Result:
    name = part.name or author
    label = "Tool error" if part.is_error else "Tool result"
    label += f" ({name})" if name else ""
    return Result(part.call_id, name, part.output, part.is_error, f"{label}:\n{fenced(part.output)}")


def segments(conv: Conversation, branch: str | None = None) -> list[Segment]:
    ids = _Ids()
    out: list[Segment] = []
    for msg in visible_path(conv, branch):
        if msg.role == "tool":
            out.extend(_tool_message(msg))
            continue
        role = msg.role  # narrowed: not "tool"
        texts: list[str] = []  # the prose of one message stays one text until a call or result cuts it

        def flush() -> None:
            if texts:
                out.append(Text(role, "\n\n".join(texts)))
                texts.clear()

        for part in msg.parts:
            if isinstance(part, ToolCallPart) and msg.role == "assistant":
                flush()
                out.append(Call(ids.make(part.call_id), safe_name(part.name), part.arguments, part.call_id))
            elif isinstance(part, ToolCallPart):
                texts.append(f"Tool call ({part.name}): {arguments_json(part.arguments)}")
            elif isinstance(part, ToolResultPart):
                flush()
                out.append(_result(part, msg.author))
            else:
                text = part_content(part)
                if text.strip():
                    texts.append(text)
        flush()
    return out


def arguments_json(arguments: Any) -> str:
    """The arguments as a string holding a JSON object (what OpenAI wants)."""
    return json.dumps(arguments_object(arguments), ensure_ascii=False)


def arguments_object(arguments: Any) -> dict[str, Any]:
    """The arguments as a JSON object (what Anthropic and Ollama want)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {"input": arguments}
    if arguments is None:
        return {}
    return arguments if isinstance(arguments, dict) else {"input": arguments}


@dataclass
class PendingCalls:
    """Calls still waiting for their result, matched by id, else by name, else in order."""

    calls: list[Call] = field(default_factory=list)

    def add(self, call: Call) -> None:
        self.calls.append(call)

    def take(self, result: Result) -> Call | None:
        if result.source_id is not None:
            found = next((c for c in self.calls if c.source_id == result.source_id), None)
        else:
            found = next((c for c in self.calls if result.name and c.name == safe_name(result.name)), None)
            found = found or (self.calls[0] if self.calls else None)
        if found is not None:
            self.calls.remove(found)
        return found

    def drain(self) -> list[Call]:
        calls, self.calls = self.calls, []
        return calls

    def __bool__(self) -> bool:
        return bool(self.calls)


def dumps(body: Any) -> str:
    """Pretty JSON, as people read and paste it."""
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"
