"""Ollama /api/chat request body: {"model": ..., "messages": [...], "stream": false}.

Built from the OpenAI message list (same ordering rules), reshaped the Ollama
way: tool call arguments are objects, tool messages name their tool instead of
a call id, and content is always a string. "images" would need the bytes,
which stay at the source, so attachments are text references.
"""

from __future__ import annotations

from typing import Any

from ..model import Conversation
from . import openai
from .chat_segments import arguments_object, dumps

NAME = "ollama"
EXTENSION = ".json"
MEDIA_TYPE = "application/json"
DEFAULT_MODEL = "llama3.1"


def _reshape(msg: dict[str, Any], call_names: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": msg["role"], "content": msg.get("content") or ""}
    if msg.get("tool_calls"):
        out["tool_calls"] = []
        for call in msg["tool_calls"]:
            name = call["function"]["name"]
            call_names[call["id"]] = name
            args = arguments_object(call["function"]["arguments"])
            out["tool_calls"].append({"function": {"name": name, "arguments": args}})
    if msg["role"] == "tool":
        out["tool_name"] = call_names.get(msg["tool_call_id"], "tool")
    return out


def request(conv: Conversation, branch: str | None = None, model: str = DEFAULT_MODEL) -> dict[str, Any]:
    call_names: dict[str, str] = {}
    msgs = [_reshape(m, call_names) for m in openai.messages(conv, branch)]
    return {"model": model, "messages": msgs, "stream": False}


def write(conv: Conversation, *, branch: str | None = None, model: str = DEFAULT_MODEL) -> str:
    return dumps(request(conv, branch, model))
