"""Reading a large export without holding all of it as Python objects.

An official export can be hundreds of megabytes; parsed whole, its Python objects
take about ten times that. A large top-level array of ChatGPT or Claude
conversations is decoded one element at a time and handed on in batches, so
`mnemo import` holds the text plus one batch instead of the whole parsed export.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .base import RawInput
from .loading import (
    ASSETS,
    _read_file,
    asset_files,
    decode_text,
    folder_inputs,
    load_bytes,
    load_path,
    main_members,
    side_members,
    well_formed,
)

STREAM_OVER = 16 * 1024 * 1024  # bytes: smaller files are parsed whole
BATCH = 50  # conversations per RawInput
_EXPORT_KEYS = ("mapping", "chat_messages")  # ChatGPT and Claude export entries
_WS = " \t\r\n"


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def array_batches(name: str, text: str, members: dict | None = None) -> Iterator[RawInput] | None:
    """Batches of a top-level array of export conversations, or None when the text is something else."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    if not text.startswith("[", i):
        return None
    i = _skip_ws(text, i + 1)
    try:
        first, _ = decoder.raw_decode(text, i)
    except (ValueError, RecursionError):
        return None
    if not (isinstance(first, dict) and any(k in first for k in _EXPORT_KEYS)):
        return None
    return _batches(name, text, i, decoder, members or {})


def _batches(name: str, text: str, i: int, decoder: json.JSONDecoder, members: dict) -> Iterator[RawInput]:
    batch: list = []
    total = len(text)
    while True:
        i = _skip_ws(text, i)
        if i >= total:
            raise InputError(f"{name}: the JSON array ends early (character {i})")
        if text[i] == "]":
            break
        start = i
        try:
            item, i = decoder.raw_decode(text, i)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{name}: not valid JSON at character {i} ({exc})") from None
        if "\\ud" in text[start:i] or "\\uD" in text[start:i]:
            item = well_formed(name, item, b"\\ud")
        batch.append(item)
        i = _skip_ws(text, i)
        if i < total and text[i] == ",":
            i += 1
        if len(batch) == BATCH:
            yield RawInput(name=name, data=batch, raw=b"", members=members, progress=(i, total))
            batch = []
    if batch:
        yield RawInput(name=name, data=batch, raw=b"", members=members, progress=(total, total))


def _decode(name: str, data: bytes) -> str:
    return decode_text(name, data)


def _streamable(data: bytes) -> bool:
    return len(data) > STREAM_OVER and data[:64].lstrip(b" \t\r\n\xef\xbb\xbf")[:1] == b"["


def _from_text(name: str, text: str, members: dict | None = None) -> Iterator[RawInput]:
    batches = array_batches(name, text, members)
    if batches is not None:
        yield from batches
        return
    for raw in load_bytes(name, text.encode("utf-8")):  # not an export array after all: read it whole
        raw.members = members or raw.members
        yield raw


def _from_bytes(name: str, data: bytes, members: dict | None = None) -> Iterator[RawInput]:
    if _streamable(data):
        yield from _from_text(name, _decode(name, data), members)
        return
    for raw in load_bytes(name, data):
        raw.members = members or raw.members
        yield raw


def _from_zip(name: str, data: bytes) -> Iterator[RawInput]:
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        main = main_members(names)
        side = {**side_members(names, archive.read), ASSETS: asset_files(names)}
        if not main:
            raise InputError(f"{name}: zip holds no conversations.json (is it a ChatGPT or Claude export?)")
        for member in main:
            yield from _from_bytes(f"{name}:{member}", archive.read(member), side)
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile, OSError) as exc:
        raise InputError(f"{name}: truncated or corrupt zip ({exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: a JSON file inside the zip is broken ({exc})") from None


def iter_inputs(path: str | os.PathLike[str]) -> Iterator[RawInput]:
    """Like loading.load_path, but lazily, and large export arrays in batches."""
    if str(path) == "-":
        yield from load_path(path)
        return
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    files = folder_inputs(p) if p.is_dir() else [(p, None)]
    for file, side in files:
        data = _read_file(file)
        if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            yield from _from_zip(str(file), data)
        elif _streamable(data):
            text = _decode(str(file), data)
            del data  # the bytes are not needed once decoded: hold one copy of a large export, not two
            yield from _from_text(str(file), text, side)
        else:
            yield from _from_bytes(str(file), data, side)
