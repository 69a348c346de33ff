"""Pull the JSON request and response bodies out of VCR cassettes (test data
from the `llm` / `llm-anthropic` projects), so the readers see exactly what an
API client sent and received. PyYAML is a test-only dependency."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import yaml


def _body_text(body: Any) -> str | None:
    if isinstance(body, dict):
        body = body.get("string")
    if body is None:
        return None
    if isinstance(body, bytes):
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        body = body.decode("utf-8")
    return body


def _assemble_sse(text: str) -> dict[str, Any]:
    """An Anthropic streamed response rebuilt into the non-streamed Messages response body."""
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        event = json.loads(line[5:])
        kind = event.get("type")
        if kind == "message_start":
            message = dict(event["message"])
        elif kind == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif kind == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif dtype == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta["thinking"]
            elif dtype == "signature_delta":
                block["signature"] = delta["signature"]
            elif dtype == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
            elif dtype == "citations_delta":
                block.setdefault("citations", []).append(delta["citation"])
        elif kind == "content_block_stop" and partial.get(event["index"]):
            blocks[event["index"]]["input"] = json.loads(partial[event["index"]])
        elif kind == "message_delta":
            message.update({k: v for k, v in event.get("delta", {}).items() if v is not None})
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def interactions(path: Path) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(request JSON, response JSON) for every recorded call of a cassette."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for item in data["interactions"]:
        request = json.loads(_body_text(item["request"]["body"]))
        text = _body_text(item["response"]["body"])
        if text is None or not text.strip():
            response = None
        elif text.lstrip().startswith(("event:", "data:")):
            response = _assemble_sse(text)
        else:
            response = json.loads(text)
        out.append((request, response))
    return out


def as_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def cassette_inputs(path: Path) -> list[tuple[str, bytes]]:
    """Every request and response body of a cassette as (name, JSON bytes), in recording order."""
    out = []
    for i, (request, response) in enumerate(interactions(path)):
        out.append((f"{path.name}#request{i}", as_bytes(request)))
        if response is not None:
            out.append((f"{path.name}#response{i}", as_bytes(response)))
    return out
