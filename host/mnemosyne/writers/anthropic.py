"""Anthropic Messages request body: {"system": ..., "messages": [...]}.

The API wants user and assistant turns alternating, a user turn first, every
tool_use answered by a tool_result at the start of the next user turn, and no
empty text. So same-role turns are merged, visible system messages join the
system prompt, a transcript that opens with the assistant gets a short user
turn saying so, and a call without a recorded result gets an explicit note.
"system" is left out when there are no instructions. Add "model" and
"max_tokens" before sending.
"""

from __future__ import annotations

from typing import Any

from ..model import Conversation
from .chat_segments import (
    MISSING_RESULT,
    Call,
    PendingCalls,
    Result,
    arguments_object,
    dumps,
    instructions_text,
    segments,
)

NAME = "anthropic"
EXTENSION = ".json"
MEDIA_TYPE = "application/json"

OPENING_NOTE = "[The conversation below starts with an assistant turn.]"


def _result_block(call_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content or "(empty)"}
    if is_error:
        block["is_error"] = True
    return block


def request(conv: Conversation, branch: str | None = None) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    system_parts = [instructions_text(conv)]
    pending = PendingCalls()

    def add(role: str, block: dict[str, Any]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].append(block)
        else:
            turns.append({"role": role, "content": [block]})

    def answer_the_rest() -> None:
        for call in pending.drain():
            add("user", _result_block(call.id, MISSING_RESULT))

    def assistant(block: dict[str, Any]) -> None:
        # Parallel calls share a turn; text said after a call belongs after its result.
        if not turns or turns[-1]["role"] != "assistant" or (block["type"] == "text" and pending):
            answer_the_rest()
        add("assistant", block)

    for seg in segments(conv, branch):
        if isinstance(seg, Call):
            assistant(
                {"type": "tool_use", "id": seg.id, "name": seg.name, "input": arguments_object(seg.arguments)}
            )
            pending.add(seg)
        elif isinstance(seg, Result):
            call = pending.take(seg)
            if call is None:
                assistant({"type": "text", "text": seg.as_text})
            else:
                add("user", _result_block(call.id, seg.output, seg.is_error))
        elif seg.role == "system":
            system_parts.append(seg.text)
        elif seg.role == "assistant":
            assistant({"type": "text", "text": seg.text})
        else:
            answer_the_rest()
            add("user", {"type": "text", "text": seg.text})
    answer_the_rest()
    if turns and turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": OPENING_NOTE}]})
    _strip_final_whitespace(turns)
    body: dict[str, Any] = {}
    system = "\n\n".join(p for p in system_parts if p.strip())
    if system:
        body["system"] = system
    body["messages"] = turns
    return body


def _strip_final_whitespace(turns: list[dict[str, Any]]) -> None:
    """The API refuses a final assistant turn that ends with whitespace."""
    if turns and turns[-1]["role"] == "assistant":
        last = turns[-1]["content"][-1]
        if last["type"] == "text":
            last["text"] = last["text"].rstrip() or "(empty)"


def write(conv: Conversation, *, branch: str | None = None) -> str:
    return dumps(request(conv, branch))
