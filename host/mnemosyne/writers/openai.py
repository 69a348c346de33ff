"""OpenAI Chat Completions request body: {"messages": [...]}.

Instructions become the first system message. Tool calls become assistant
`tool_calls`, each answered by a `tool` message right after it, as the API
requires; a call without a recorded result gets an explicit note, a result
without a call is told as assistant text. Add "model" (and "tools" if you want
the model to call them again) before sending.
"""

from __future__ import annotations

from typing import Any

from ..model import Conversation
from .chat_segments import (
    MISSING_RESULT,
    Call,
    PendingCalls,
    Result,
    Text,
    arguments_json,
    dumps,
    instructions_text,
    segments,
)

NAME = "openai"
EXTENSION = ".json"
MEDIA_TYPE = "application/json"


def _tool_call(call: Call) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments_json(call.arguments)},
    }


def _tool_message(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def messages(conv: Conversation, branch: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    pending = PendingCalls()

    def answer_the_rest() -> None:
        for call in pending.drain():
            out.append(_tool_message(call.id, MISSING_RESULT))

    def assistant_text(text: str) -> None:
        last = out[-1] if out else None
        # text said after a call belongs after its result, so it cannot join that message
        if last is not None and last["role"] == "assistant" and not pending:
            last["content"] = text if last["content"] is None else f"{last['content']}\n\n{text}"
        else:
            answer_the_rest()
            out.append({"role": "assistant", "content": text})

    system = instructions_text(conv)
    if system:
        out.append({"role": "system", "content": system})
    for seg in segments(conv, branch):
        if isinstance(seg, Call):
            last = out[-1] if out else None
            if last is None or last["role"] != "assistant":
                answer_the_rest()
                last = {"role": "assistant", "content": None}
                out.append(last)
            last.setdefault("tool_calls", []).append(_tool_call(seg))
            pending.add(seg)
        elif isinstance(seg, Result):
            call = pending.take(seg)
            if call is None:
                assistant_text(seg.as_text)
            else:
                out.append(_tool_message(call.id, seg.output))
        elif isinstance(seg, Text) and seg.role == "assistant":
            assistant_text(seg.text)
        else:
            answer_the_rest()
            out.append({"role": seg.role, "content": seg.text})
    answer_the_rest()
    return out


def write(conv: Conversation, *, branch: str | None = None) -> str:
    return dumps({"messages": messages(conv, branch)})
