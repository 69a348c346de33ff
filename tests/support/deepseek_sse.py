"""Replay a DeepSeek chat/completion event stream into the message it leaves on the server.

The stream opens with {"v": {"response": {...fragments: []}}} and then patches it: {"p": path, "o": op,
"v": value} with op SET (default for a new path), APPEND (strings and lists) or BATCH (a list of patches
under one path); a frame with only "v" repeats the last path and op. What history_messages returns for
that message is the patched object, so a stream captured from the site gives a real message to read.
"""

from __future__ import annotations

import json
from typing import Any


def frames(stream: str) -> list[dict]:
    """The JSON `data:` frames of an event stream (events without JSON, like `event: finish`, skipped)."""
    out = []
    for line in stream.splitlines():
        if line.startswith("data:"):
            value = json.loads(line[5:].strip() or "null")
            if isinstance(value, dict):
                out.append(value)
    return out


def _walk(root: dict, path: list[str]) -> tuple[Any, str | int]:
    node: Any = root
    for step in path[:-1]:
        node = node[int(step)] if isinstance(node, list) else node[step]
    last = path[-1]
    return node, int(last) if isinstance(node, list) else last


def _apply(root: dict, path: str, op: str, value: Any) -> None:
    if op == "BATCH":
        for patch in value:
            _apply(root, f"{path}/{patch['p']}", patch.get("o", "SET"), patch["v"])
        return
    parent, key = _walk(root, path.split("/"))
    if op == "APPEND":
        parent[key] = parent[key] + value
    else:
        parent[key] = value


def replay(stream: str) -> dict:
    """The assistant message the stream built (the `response` object), every patch applied."""
    state: dict = {}
    path, op = None, "SET"
    for frame in frames(stream):
        if "p" not in frame and isinstance(frame.get("v"), dict) and "response" in frame["v"]:
            state = {"response": frame["v"]["response"]}
            continue
        if "v" not in frame or not state:
            continue  # ready / update_session / title events
        if "p" in frame:
            path, op = frame["p"], frame.get("o", "SET")
        if path is None:
            continue
        _apply(state, path, op, frame["v"])
    return state["response"]
