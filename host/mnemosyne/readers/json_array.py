"""The elements of a large export array, parsed from the file's bytes by msgspec, by json where it refuses.

Why msgspec: json parses only text, so the file had to be decoded to str first, each element encoded back
to bytes for its provenance, and its bytes searched for surrogate escapes; that was 0.33 s of a 1.1 s
convert of a 34 MB export. msgspec delimits the elements of a byte window without building them
(`list[Raw]`, 0.35 ms a MB), so an element's bytes are its slice of the file, and it builds each one about
twice as fast as json. It is stricter than json: NaN, Infinity, numbers out of range and lone surrogate
escapes are refused, and such an element is parsed by json as before (then made well-formed), so what
is read never depends on which parser read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec

from ..errors import InputError
from .loading import well_formed

_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])  # delimits the elements without building them
_VALUE = msgspec.json.Decoder()
_REFUSED = (msgspec.DecodeError, RecursionError)  # msgspec.ValidationError is a DecodeError
_HEAD = re.compile(rb'\{[ \t\r\n]*"[^"\\]{1,100}"[ \t\r\n]*:')
_WS = b" \t\r\n"
TRIES = 3  # guessed cuts parsed before one element is left to json


def element_head(buf: bytes, pos: int) -> bytes | None:
    """How the element at `pos` opens, up to its first key (`{"title":`). Every element of an export
    opens the same way, so the cut after a whole element is a comma before that opening."""
    match = _HEAD.match(buf, pos)
    return match.group() if match else None


def whole_elements(buf: bytes, pos: int, head: bytes, eof: bool) -> tuple[list[msgspec.Raw] | None, int]:
    """The elements from buf[pos] up to the last cut where one ends, each the bytes of the file, and how
    many cuts were tried: (None, 0) when there is none (an element longer than the buffer), (None, n)
    when none parsed (an element msgspec refuses, or cuts inside nested values)."""
    view = memoryview(buf)
    tried = 0
    for cut in _cuts(buf, pos, head, eof):
        if tried == TRIES:
            break
        tried += 1
        try:  # a cut inside a string or a nested value leaves `[...]` unbalanced: it does not parse
            return _ELEMENTS.decode(b"".join((b"[", view[pos:cut], b"]"))), tried
        except _REFUSED:
            continue
    return None, tried


def _cuts(buf: bytes, pos: int, head: bytes, eof: bool) -> Iterator[int]:
    """Where the elements from `pos` may end, last first: the array's `]` at the end of the file, then
    each comma followed by `head`."""
    if eof:
        end = len(buf.rstrip(_WS))
        if end > pos and buf[end - 1] == 0x5D:  # "]"
            yield end - 1
    hi = len(buf)
    while (at := buf.rfind(head, pos + 1, hi)) > 0:
        hi = at + len(head) - 1
        j = at - 1
        while j > pos and buf[j] in _WS:
            j -= 1
        if buf[j] == 0x2C:  # ","
            yield j


def value(name: str, raw: bytes, at: int) -> Any:
    """One element's value; `at` is its byte offset in the file, for errors."""
    try:
        return _VALUE.decode(raw)
    except _REFUSED:
        pass
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {at + exc.start})") from None
    try:
        item = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{name}: not valid JSON at byte {at} ({exc})") from None
    return well_formed(name, item, raw)
