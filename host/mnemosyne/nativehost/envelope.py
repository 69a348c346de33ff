"""Request parsing and reply encoding for the native-messaging protocol.

The JSON parser is strict about what browsers never send and attackers do:
invalid UTF-8, lone surrogates, NaN/Infinity, duplicate keys, numbers past
Python's digit limit, and nesting deep enough to exhaust the stack. Each gets a
typed error instead of a traceback.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from .framing import MAX_OUT

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

PROTOCOL_VERSION = 1
# an escaped backslash is matched first, so the JSON string "\\ud800" (the text \ud800) is not read as an escape
_SURROGATE_ESCAPE = re.compile(
    rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


class RequestError(Exception):
    def __init__(self, code: str, message: str, request_id: Any = None):
        super().__init__(message)
        self.code = code
        self.request_id = request_id


class Request:  # a plain class: dataclasses (with inspect) and typing.NamedTuple are not on hello's path
    __slots__ = ("id", "action", "params", "size")

    def __init__(self, id: Any, action: str, params: dict[str, Any], size: int):
        self.id, self.action, self.params, self.size = id, action, params, size


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        dup = next(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        raise ValueError(f"duplicate key {dup[:40]!r}")
    return obj


def _check_surrogates(body: bytes | bytearray) -> None:
    """A high surrogate escape must be followed by a low one; anything else is a lone surrogate."""
    if b"\\u" not in body and b"\\U" not in body:
        return
    for match in _SURROGATE_ESCAPE.finditer(body):
        token = match.group(0)
        if token != b"\\\\" and len(token) != 12:
            raise RequestError(
                "INVALID_JSON", "lone surrogate in a string (normalise text with toWellFormed())"
            )


def parse_json(body: bytes | bytearray) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError("INVALID_JSON", f"frame is not valid UTF-8 (byte {exc.start})") from None
    _check_surrogates(body)
    try:
        return json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise RequestError("INVALID_JSON", "JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, digit limit, NaN, duplicate keys
        raise RequestError("INVALID_JSON", f"invalid JSON: {str(exc)[:200]}") from None


def parse_request(body: bytes | bytearray) -> Request:
    data = parse_json(body)
    if not isinstance(data, dict):
        raise RequestError("BAD_REQUEST", "a request must be a JSON object")
    request_id = data.get("id")
    if not (request_id is None or isinstance(request_id, (str, int)) and not isinstance(request_id, bool)):
        raise RequestError("BAD_REQUEST", "id must be a string or an integer")
    if isinstance(request_id, str) and len(request_id) > 200:
        raise RequestError("BAD_REQUEST", "id longer than 200 characters")
    action = data.get("action")
    if not isinstance(action, str) or not action:
        raise RequestError("BAD_REQUEST", "action must be a non-empty string", request_id)
    params = {k: v for k, v in data.items() if k not in ("id", "action")}
    return Request(id=request_id, action=action, params=params, size=len(body))


def encode(obj: dict[str, Any]) -> bytes:
    # ensure_ascii=False: escaping would double CJK text and push replies past 1 MiB
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def ok(request_id: Any, data: dict[str, Any]) -> bytes:
    return encode({"id": request_id, "ok": True, "protocol": PROTOCOL_VERSION, "data": data})


def error(request_id: Any, code: str, message: str) -> bytes:
    """An error reply. Local paths are replaced: the browser may show this text inside a web page."""
    from .pathfree import without_paths  # its patterns compile at import: an error reply only

    message = without_paths(message)
    return encode(
        {
            "id": request_id,
            "ok": False,
            "protocol": PROTOCOL_VERSION,
            "error": {"code": code, "message": message[:2000]},
        }
    )


def fits(reply: bytes) -> bool:
    return len(reply) <= MAX_OUT
