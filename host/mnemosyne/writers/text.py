"""A plain-text transcript: labelled turns, no markup beyond what the messages hold.

Things that are not prose (code, tool calls, attachments, reasoning) get a
bracketed label line so the transcript stays readable in any editor.
"""

from __future__ import annotations

import json

from ..model import (
    ArtifactPart,
    AttachmentPart,
    CitationPart,
    CodeOutputPart,
    CodePart,
    Conversation,
    Message,
    Part,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
    format_time,
)
from .common import INSTRUCTION_LABELS, human_size, is_tool_turn, role_label, title_of, visible_path

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

NAME = "text"
EXTENSION = ".txt"
MEDIA_TYPE = "text/plain"


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _labelled(label: str, body: str) -> str:
    return f"[{label}]\n{body}" if body else f"[{label}]"


def _sources(citations: list[Any]) -> str:
    shown = [" ".join(x for x in (_one_line(c.title), f"<{c.url}>" if c.url else "") if x) for c in citations]
    shown = [s for s in dict.fromkeys(shown) if s]
    return "Sources: " + "; ".join(shown) if shown else ""


def render_part(part: Part) -> str:
    if isinstance(part, TextPart):
        return "\n\n".join(x for x in (part.text.strip("\n"), _sources(part.citations)) if x)
    if isinstance(part, CodePart):
        return _labelled(
            f"code: {_one_line(part.language)}" if part.language else "code", part.code.rstrip("\n")
        )
    if isinstance(part, CodeOutputPart):
        images = "\n".join(f"[image: {i}]" for i in part.images)
        return "\n".join(x for x in (_labelled("output", part.text.rstrip("\n")), images) if x)
    if isinstance(part, AttachmentPart):
        details = ", ".join(
            x
            for x in (
                _one_line(part.name or part.asset_pointer) or "unnamed",
                part.mime_type,
                human_size(part.size_bytes),
            )
            if x
        )
        line = f"[{part.kind}: {details}]"
        return f"{line}\n{part.extracted_text.rstrip()}" if part.extracted_text else line
    if isinstance(part, ToolCallPart):
        args = (
            part.arguments
            if isinstance(part.arguments, str)
            else json.dumps(part.arguments, ensure_ascii=False, indent=2)
        )
        return _labelled(f"tool call: {_one_line(part.name)}", args)
    if isinstance(part, ToolResultPart):
        label = ("tool error" if part.is_error else "tool result") + (
            f": {_one_line(part.name)}" if part.name else ""
        )
        return "\n".join(
            x for x in (_labelled(label, part.output.rstrip("\n")), _sources(part.citations)) if x
        )
    if isinstance(part, ReasoningPart):
        body = "\n\n".join(t.strip("\n") for t in (part.summary, part.text) if t and t.strip())
        return _labelled("thinking" + (", truncated" if part.truncated else ""), body)
    if isinstance(part, CitationPart):
        source = " ".join(x for x in (_one_line(part.title), f"<{part.url}>" if part.url else "") if x)
        return "\n".join(
            x for x in (f'"{part.text}"' if part.text else "", f"-- {source}" if source else "") if x
        )
    if isinstance(part, ArtifactPart):
        return _labelled(
            f"artifact: {_one_line(part.title or part.artifact_id) or 'untitled'}", part.content.rstrip("\n")
        )
    if isinstance(part, SystemErrorPart):
        return f"[error{': ' + _one_line(part.name) if part.name else ''}] {part.text}".rstrip()
    if isinstance(part, UnknownPart):
        return f"[unsupported content: {_one_line(part.source_type)}]"
    return ""


def render_message(msg: Message) -> str:
    body = "\n\n".join(t for t in (render_part(p) for p in msg.parts) if t.strip())
    if not body:
        return ""
    rule = "---" if is_tool_turn(msg) else "==="
    return f"{rule} {role_label(msg)} {rule}\n{body}"


def _header(conv: Conversation) -> str:
    lines = [
        title_of(conv),
        f"Source: {conv.source.site}" + (f" <{conv.source.url}>" if conv.source.url else ""),
    ]
    if conv.default_model:
        lines.append(f"Model: {conv.default_model}")
    if conv.created_at:
        lines.append(f"Created: {format_time(conv.created_at)}")
    return "\n".join(lines)


def write(conv: Conversation, *, branch: str | None = None) -> str:
    sections = [_header(conv)]
    for ins in conv.instructions:
        if ins.text.strip():
            label = INSTRUCTION_LABELS[ins.kind] + (f": {_one_line(ins.title)}" if ins.title else "")
            sections.append(f"=== {label} ===\n{ins.text.strip(chr(10))}")
    sections += [render_message(m) for m in visible_path(conv, branch)]
    return "\n\n".join(s for s in sections if s) + "\n"
