"""Canonical JSON for Mnemosyne documents: sorted keys, UTF-8, two-space indent,
no None fields, so reading a document and writing it again is byte-identical."""

from __future__ import annotations

import json
import math
import re
from functools import cache
from typing import Any, Literal

from pydantic import ValidationError

from .errors import InputError, SchemaVersionError
from .model import FORMAT, SCHEMA_MAJOR, SCHEMA_VERSION, Conversation


def _clean(value: Any) -> Any:
    """Make raw site JSON safe to dump: no NaN/Infinity, no lone surrogates."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(value) else value
    if isinstance(value, dict):
        return {str(_clean(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _has_surrogate(s: str) -> bool:
    try:
        s.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def to_dict(conv: Conversation) -> dict[str, Any]:
    return conv.model_dump(mode="json", exclude_none=True)


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(conv: Conversation, *, indent: int | None = 2) -> str:
    return dumps_with_data(conv, indent=indent)[0]


# The compact document (what the archive stores and hashes) is written by msgspec, about 4x faster than
# json's encoder and the same bytes as json.dumps (tests/unit/test_canonical_compact.py): the same escapes, key
# order and integers, and the same floats except those Python writes with an exponent (1e+16, 1e-05), which
# msgspec writes as 1e16 or 0.00001. Floats live only in the fields FLOAT_FIELDS names (by part type; the
# test checks the list against the model): a document with such a float, or one msgspec refuses (a lone
# surrogate), is written by json.
FLOAT_FIELDS = {"tool_call": ("arguments",), "reasoning": ("duration_sec",), "unknown": ("raw",)}


@cache
def _encoder(order: Literal["sorted"] | None) -> Any:
    """msgspec's JSON encoder: keys sorted ("sorted") or in their order (None)."""
    import msgspec  # (the compact document only: a context of a file reads JSON, it writes none)

    return msgspec.json.Encoder(order=order)


def _exponent_float(value: Any) -> bool:
    """Whether `value` holds a float that Python writes with an exponent (or NaN/Infinity)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float):
            if v != 0 and not 1e-4 <= abs(v) < 1e16:  # (NaN too: every comparison with it is false)
                return True
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def json_bytes(value: Any) -> bytes:
    """`value` (parsed JSON) as `json.dumps(value, ensure_ascii=False, separators=(",", ":"))` writes it, in
    UTF-8, keys in their order: what a page payload's provenance digest is taken of. msgspec writes it
    unless a float needs json's spelling (see above) or msgspec refuses the value; json's encoder built the
    text of a 63 MiB payload from millions of pieces (peak about 8x the payload's size, against 2x)."""
    if not _exponent_float(value):
        try:
            return bytes(_encoder(None).encode(value))
        except (TypeError, ValueError, OverflowError):  # a lone surrogate (UnicodeEncodeError), an odd type
            pass
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _compact(data: dict[str, Any]) -> bytes | None:
    """`data` as json.dumps writes it with sorted keys and no spaces, in UTF-8, or None: json must write it."""
    for message in data.get("messages", ()):
        for part in message.get("parts", ()):
            fields = FLOAT_FIELDS.get(part.get("type"))
            if fields and any(_exponent_float(part.get(f)) for f in fields):
                return None
    try:
        encoded: bytes = _encoder("sorted").encode(data)
        return encoded
    except (TypeError, ValueError, OverflowError):  # a lone surrogate (UnicodeEncodeError), an odd type
        return None


def dumps_with_data(conv: Conversation, *, indent: int | None = 2) -> tuple[str, dict[str, Any]]:
    """The document and the data it is the JSON of (the archive reads its facets from that, not a re-parse)."""
    text, data, _ = document_of(conv, indent=indent)
    return text, data


def document_of(conv: Conversation, *, indent: int | None = 2) -> tuple[str, dict[str, Any], bool]:
    """dumps_with_data, and whether the document is `conv`'s own dump: False when a lone surrogate or a
    NaN had to be cleaned out of it, so that reading the document back gives another conversation."""
    if not indent:
        raw, data, exact = document_bytes(conv)
        return str(raw, "utf-8"), data, exact
    return _by_json(to_dict(conv), indent)


def document_bytes(conv: Conversation) -> tuple[bytes, dict[str, Any], bool]:
    """document_of(conv, indent=None) in UTF-8, as the archive stores it: a Python string of it takes up to
    four bytes a character (one emoji is enough), 224 MB for the 56 MB document of a 63 MiB save."""
    data = to_dict(conv)
    raw = _compact(data)
    if raw is not None:  # (no lone surrogate: msgspec refuses one; no NaN: see _exponent_float)
        return raw, data, True
    text, data, exact = _by_json(data, None)
    return text.encode("utf-8"), data, exact


def _by_json(data: dict[str, Any], indent: int | None) -> tuple[str, dict[str, Any], bool]:
    """document_of's text of `data` as json writes it, cleaned when it must be (see document_of)."""
    seps = (",", ": ") if indent else (",", ":")

    def dump(value: Any) -> str:
        return json.dumps(
            value, ensure_ascii=False, sort_keys=True, indent=indent, separators=seps, allow_nan=False
        ) + ("\n" if indent else "")

    # JSON mode already made every key a string and NaN/Infinity null; what is left to clean is a lone
    # surrogate (or a float pydantic let through): rare, so dump first and walk the tree only then. The
    # surrogate check copies nothing: a 64 MiB save holds one document and its data.
    try:
        text = dump(data)
    except ValueError:
        data = _clean(data)
        return dump(data), data, False
    if not text.isascii() and _SURROGATE.search(text):  # isascii: a flag on the str, no scan
        data = _clean(data)
        return dump(data), data, False
    return text, data, True


def is_document(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def check_version(data: dict[str, Any]) -> None:
    version = str(data.get("schema_version", ""))
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) != SCHEMA_MAJOR:
        raise SchemaVersionError(
            f"document has schema_version {version or '(none)'}; this Mnemosyne reads {SCHEMA_MAJOR}.x "
            f"(it writes {SCHEMA_VERSION})"
        )


def from_dict(data: Any) -> Conversation:
    if not is_document(data):
        raise InputError(f'not a Mnemosyne document (expected "format": "{FORMAT}")')
    check_version(data)
    try:
        return Conversation.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"invalid Mnemosyne document: {_first_error(exc)}") from None


def loads(text: str | bytes) -> Conversation:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"not valid JSON: {exc}") from None
    return from_dict(data)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err.get("loc", ()))
    return f"{loc}: {err.get('msg')}" if loc else str(err.get("msg"))
