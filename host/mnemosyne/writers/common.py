"""What every writer shares: choosing the messages to write, labels, titles."""

from __future__ import annotations

import re

from .. import tree
from ..errors import NotFoundError
from ..model import Conversation, Message, ToolResultPart

UNTITLED = "Untitled conversation"

# Only web links become clickable anywhere: no javascript:, data:, file: ...,
# and no whitespace or quotes that could smuggle another scheme or attribute.
_WEB_URL = re.compile(r"https?://[^\s<>\"'`\\\x00-\x1f\x7f]+", re.IGNORECASE)

ROLE_LABELS = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}

INSTRUCTION_LABELS = {
    "system_prompt": "System prompt",
    "custom_instructions": "Custom instructions",
    "project_instructions": "Project instructions",
    "memory": "Memory",
}


def selected_path(conv: Conversation, branch: str | None = None) -> list[Message]:
    """Root-to-leaf messages of `branch` (a message id), the active path by default.

    tree.path_to falls back to the active leaf for an unknown id; a writer
    must not silently write another branch than the one asked for.
    """
    if branch is not None and branch not in {m.id for m in conv.messages}:
        raise NotFoundError(f"no message {branch!r} in conversation {conv.id}")
    return tree.path_to(conv, branch)


def visible_path(conv: Conversation, branch: str | None = None) -> list[Message]:
    """The selected path without messages the site hides (its instructions are written apart)."""
    return [m for m in selected_path(conv, branch) if not m.hidden]


def title_of(conv: Conversation) -> str:
    """One-line title: titles can hold newlines and runs of spaces."""
    title = " ".join((conv.title or "").split())
    return title or UNTITLED


def is_tool_turn(msg: Message) -> bool:
    """A tool message, or a user message that only carries tool results (Claude, Anthropic API)."""
    if msg.role == "tool":
        return True
    parts = msg.parts
    if not parts or not isinstance(parts[0], ToolResultPart):  # most turns: no generator to build
        return False
    return all(isinstance(p, ToolResultPart) for p in parts)


def tool_turn_name(msg: Message) -> str | None:
    """The tool a tool turn speaks for: its author, else the first named result."""
    return msg.author or next((p.name for p in msg.parts if isinstance(p, ToolResultPart) and p.name), None)


def role_label(msg: Message) -> str:
    if is_tool_turn(msg):
        name = tool_turn_name(msg)
        return f"Tool ({' '.join(name.split())})" if name else "Tool"
    return ROLE_LABELS[msg.role]


def human_size(size: int | None) -> str | None:
    if size is None or size < 0:
        return None
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return None


def is_web_url(url: str | None) -> bool:
    return bool(url) and _WEB_URL.fullmatch(url or "") is not None
