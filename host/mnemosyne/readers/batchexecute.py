"""Google's batchexecute responses (gemini.google.com's internal RPCs): a `)]}'` guard line, then chunks,
each a length line and a JSON array of rows; a `wrb.fr` row is [`wrb.fr`, rpc id, the reply as a JSON string,
...]. The lengths are not trusted (they count UTF-16 units, and a copy pasted from devtools may have lost a
line ending): each chunk is the JSON value that starts after its length line."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError

GUARD = ")]}'"
_WS = " \t\r\n"


def looks_like(text: str) -> bool:
    return text.lstrip("\ufeff" + _WS).startswith(GUARD)


def chunks(text: str, name: str = "response") -> list[Any]:
    """Every chunk of a response, parsed; InputError when the guard is missing or a chunk is cut short."""
    body = text.lstrip("\ufeff" + _WS)
    if not body.startswith(GUARD):
        raise InputError(f"{name}: not a batchexecute response (no )]}}' guard)")
    decoder = json.JSONDecoder()
    found: list[Any] = []
    i, end = len(GUARD), len(body)
    while True:
        while i < end and body[i] in _WS:
            i += 1
        if i >= end:
            return found
        digits = i
        while i < end and body[i].isdigit():
            i += 1
        if i == digits:
            raise InputError(f"{name}: batchexecute chunk {len(found) + 1} has no length line")
        while i < end and body[i] in _WS:
            i += 1
        try:
            value, i = decoder.raw_decode(body, i)
        except ValueError as exc:
            raise InputError(
                f"{name}: batchexecute chunk {len(found) + 1} is cut short or broken ({exc})"
            ) from None
        except RecursionError:
            raise InputError(f"{name}: batchexecute chunk {len(found) + 1} is nested too deeply") from None
        found.append(value)


def replies(text: str, rpcid: str, name: str = "response") -> list[Any]:
    """The parsed replies of every `wrb.fr` row for `rpcid`. A row whose reply is null is the RPC's error
    (Google answers 200 with the error code in the row): InputError, as is a response holding no such row."""
    out: list[Any] = []
    for chunk in chunks(text, name):
        if not isinstance(chunk, list):
            raise InputError(f"{name}: a batchexecute chunk is a {type(chunk).__name__}, not a list of rows")
        for row in chunk:
            if not (isinstance(row, list) and len(row) >= 3 and row[0] == "wrb.fr" and row[1] == rpcid):
                continue
            if row[2] is None:
                detail = json.dumps(row[5] if len(row) > 5 else None)
                raise InputError(f"{name}: the site answered {rpcid} with an error ({detail})")
            if not isinstance(row[2], str):
                raise InputError(f"{name}: the {rpcid} reply is a {type(row[2]).__name__}, not a JSON string")
            try:
                out.append(json.loads(row[2]))
            except ValueError as exc:
                raise InputError(f"{name}: the {rpcid} reply is not valid JSON ({exc})") from None
            except RecursionError:
                raise InputError(f"{name}: the {rpcid} reply is nested too deeply") from None
    if not out:
        raise InputError(f"{name}: the response holds no {rpcid} reply")
    return out
