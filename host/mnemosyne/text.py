"""Plain text of parts and messages, for search indexing and token counting."""

from __future__ import annotations

import json

from .model import (
    ArtifactPart,
    AttachmentPart,
    CitationPart,
    CodeOutputPart,
    CodePart,
    Conversation,
    Message,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from .model import Part


def text_chars(conv: Conversation) -> int:
    """The characters of `conv`'s text parts: its size as the host's work scales with it (a few ms for 5 MB)."""
    return sum(len(part.text) for msg in conv.messages for part in msg.parts if part.type == "text")


def part_text(part: Part) -> str:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, CodePart):
        return part.code
    if isinstance(part, CodeOutputPart):
        return part.text
    if isinstance(part, AttachmentPart):
        return " ".join(x for x in (part.name, part.extracted_text) if x)
    if isinstance(part, ToolCallPart):
        args = (
            part.arguments
            if isinstance(part.arguments, str)
            else json.dumps(part.arguments, ensure_ascii=False)
        )
        return f"{part.name} {args}" if part.arguments is not None else part.name
    if isinstance(part, ToolResultPart):
        return part.output
    if isinstance(part, ReasoningPart):
        return "\n".join(x for x in (part.summary, part.text) if x)
    if isinstance(part, CitationPart):
        return "\n".join(x for x in (part.title, part.text) if x)
    if isinstance(part, ArtifactPart):
        return "\n".join(x for x in (part.title, part.content) if x)
    if isinstance(part, SystemErrorPart):
        return part.text
    if isinstance(part, UnknownPart):
        return ""
    return ""


def message_text(msg: Message) -> str:
    return "\n".join(t for t in (part_text(p) for p in msg.parts) if t)
