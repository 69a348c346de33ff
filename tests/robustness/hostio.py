"""Helpers the robustness checks share: frame-stream parsing, outcome checks on
a finished host process, and conversation payloads the host's readers accept."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mnemosyne.nativehost.codes import ERROR_CODES
from support.hostproc import HEADER

MAX_OUT = 1024 * 1024
CLEAN_EXITS = (0, 1)


def parse_frames(data: bytes) -> tuple[list[Any], int]:
    """Replies in `data` and the count of bytes that are not part of a well-formed JSON frame."""
    replies, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 4:
            return replies, len(data) - pos
        (length,) = HEADER.unpack_from(data, pos)
        body = data[pos + 4 : pos + 4 + length]
        if length > MAX_OUT or len(body) < length:
            return replies, len(data) - pos
        try:
            replies.append(json.loads(body.decode("utf-8")))
        except ValueError:
            return replies, len(data) - pos
        pos += 4 + length
    return replies, 0


def well_formed_reply(reply: Any) -> bool:
    """The envelope of host/PROTOCOL.md, with an error code from the closed list."""
    if not isinstance(reply, dict) or reply.get("protocol") != 1 or not isinstance(reply.get("ok"), bool):
        return False
    if reply["ok"]:
        return isinstance(reply.get("data"), dict)
    err = reply.get("error")
    return isinstance(err, dict) and err.get("code") in ERROR_CODES and isinstance(err.get("message"), str)


def crashed(returncode: int | None, stderr: bytes) -> bool:
    return returncode not in CLEAN_EXITS or b"Traceback" in stderr


@dataclass
class Tally:
    """Counts one check accumulates across many cases."""

    cases: int = 0
    crashes: int = 0
    hangs: int = 0
    stray_bytes: int = 0
    malformed_replies: int = 0
    internal_errors: int = 0
    slowest_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.notes) < 20:
            self.notes.append(text)


def capture_payload(key: str, title: str, texts: list[str], site: str = "claude") -> dict[str, Any]:
    """A page capture (kind "capture"): the simplest payload the host saves."""
    host = "claude.ai/chat" if site == "claude" else "chatgpt.com/c"
    return {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": site,
        "url": f"https://{host}/{key}",
        "conversation_id": key,
        "title": title,
        "captured_at": "2026-11-30T10:00:00Z",
        "complete": True,
        "turns": [
            {
                "key": f"{key}-t{i}",
                "order": i,
                "role": "user" if i % 2 == 0 else "assistant",
                "model": None,
                "markdown": text,
                "attachments": [],
            }
            for i, text in enumerate(texts)
        ],
    }
