"""Reading a large export without holding all of it as Python objects.

An official export can be hundreds of megabytes; parsed whole, its Python objects
take about ten times that. A large top-level array of ChatGPT or Claude
conversations is decoded one element at a time and handed on in batches. A large file (or
zip member) is read and decoded a window at a time (_Window), so `mnemo import` and `mnemo convert`
hold one window of text plus one batch, never the whole export as bytes or as one string.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

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
STREAM_PEEK = 64 * 1024  # bytes read to tell an export array (its first element's keys) from anything else
BATCH = 50  # conversations per RawInput
_EXPORT_KEYS = ("mapping", "chat_messages")  # ChatGPT and Claude export entries
_WS = " \t\r\n"


def _has_surrogate_escape(raw: bytes) -> bool:
    """Whether an element's bytes may escape a lone surrogate ("\\ud800"): searched in the bytes, not the
    text, because a bytes search is a memchr while a text window holding one emoji is 4 bytes a character."""
    return b"\\ud" in raw or b"\\uD" in raw


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
    slices: list[bytes] = []
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
        raw = text[start:i].encode("utf-8", "surrogatepass")
        if _has_surrogate_escape(raw):
            item = well_formed(name, item, b"\\ud")
        batch.append(item)
        slices.append(raw)
        i = _skip_ws(text, i)
        if i < total and text[i] == ",":
            i += 1
        if len(batch) == BATCH:
            yield RawInput(
                name=name, data=batch, raw=b"", members=members, progress=(i, total), item_raw=slices
            )
            batch, slices = [], []
    if batch:
        yield RawInput(
            name=name, data=batch, raw=b"", members=members, progress=(total, total), item_raw=slices
        )


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


def _from_zip(name: str, source: bytes | Path) -> Iterator[RawInput]:
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
        names = archive.namelist()
        main = main_members(names)
        side = {**side_members(names, archive.read), ASSETS: asset_files(names)}
        if not main:
            raise InputError(f"{name}: zip holds no conversations.json (is it a ChatGPT or Claude export?)")
        for member in main:
            size = archive.getinfo(member).file_size
            if size > STREAM_OVER:
                with archive.open(member) as fh:
                    streamable = _is_export_array(fh.read(STREAM_PEEK))
                if streamable:  # decompressed a window at a time, never whole
                    with archive.open(member) as fh:
                        yield from _window_batches(f"{name}:{member}", fh, size, side)
                    continue
            yield from _from_bytes(f"{name}:{member}", archive.read(member), side)
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile, OSError) as exc:
        raise InputError(f"{name}: truncated or corrupt zip ({exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: a JSON file inside the zip is broken ({exc})") from None


WINDOW = 1024 * 1024  # bytes decoded at a time from a large file (4 MB: twice the peak memory of convert)


class _Window:
    """A large file decoded a window at a time: the text not yet parsed, grown when an element runs
    past its end, so a 234 MB export is never one Python string (4 bytes a character after one emoji)."""

    def __init__(self, name: str, stream: IO[bytes], total: int):
        self.name, self.stream, self.total = name, stream, total
        self.text, self.pending, self.eof, self.read_bytes = "", b"", False, 0
        self.offset = 0  # bytes of the file before self.text
        self._first = True

    def more(self, size: int = WINDOW) -> bool:
        """Decode up to `size` more bytes onto the text; False at the end of the file."""
        if self.eof:
            return False
        chunk = self.stream.read(size)
        self.read_bytes += len(chunk)
        data = self.pending + chunk
        if not chunk:
            self.eof = True
            cut = len(data)
        else:
            cut = len(data)
            while cut > 0 and len(data) - cut < 4 and 0x80 <= data[cut - 1] < 0xC0:
                cut -= 1  # back to the start of a character cut in two
            if cut > 0 and data[cut - 1] >= 0xC0:
                cut -= 1
        try:
            self.text += data[:cut].decode("utf-8-sig" if self._first else "utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{self.name}: not UTF-8 text (byte {self.offset + exc.start})") from None
        self._first = False
        self.pending = data[cut:]
        return bool(chunk)

    def drop(self, i: int, size: int) -> int:
        """Forget the text before index i (parsed; `size` UTF-8 bytes); returns the index's new value, 0."""
        self.offset += size
        self.text = self.text[i:]
        return 0


def _window_batches(name: str, stream: IO[bytes], total: int, members: dict) -> Iterator[RawInput]:
    win = _Window(name, stream, total)
    decoder = json.JSONDecoder()
    win.more()
    i = _skip_ws(win.text, 0)
    # UTF-8 bytes of win.text[:i], kept as i moves (what lies between elements is ASCII: whitespace, commas,
    # brackets; an element's bytes are encoded for its provenance anyway), so no window is encoded again
    at = i
    batch: list = []
    slices: list[bytes] = []
    first = True
    while True:
        j = _skip_ws(win.text, i)
        at, i = at + j - i, j
        if i >= len(win.text) and win.more():
            continue
        if i >= len(win.text):
            raise InputError(f"{name}: the JSON array ends early (byte {win.offset + at})")
        if first:
            if win.text[i] != "[":
                raise InputError(f"{name}: not valid JSON (expected an array)")
            i, at = i + 1, at + 1
            first = False
            continue
        if win.text[i] == "]":
            break
        start, size = i, WINDOW
        while True:
            try:
                item, i = decoder.raw_decode(win.text, start)
                break
            except (ValueError, RecursionError) as exc:
                if isinstance(exc, ValueError) and win.more(size):
                    size *= 2  # an element longer than the window: read more, twice as much each time
                    continue
                raise InputError(f"{name}: not valid JSON at byte {win.offset + at} ({exc})") from None
        raw = win.text[start:i].encode("utf-8", "surrogatepass")
        if _has_surrogate_escape(raw):
            item = well_formed(name, item, b"\\ud")
        batch.append(item)
        slices.append(raw)
        at += len(raw)
        j = _skip_ws(win.text, i)
        at, i = at + j - i, j
        if i < len(win.text) and win.text[i] == ",":
            i, at = i + 1, at + 1
        if i > WINDOW:
            i, at = win.drop(i, at), 0
        if len(batch) == BATCH:
            yield RawInput(
                name=name,
                data=batch,
                raw=b"",
                members=members,
                progress=(win.offset + at, total),
                item_raw=slices,
            )
            batch, slices = [], []
    if batch:
        yield RawInput(
            name=name, data=batch, raw=b"", members=members, progress=(total, total), item_raw=slices
        )


def _is_export_array(head: bytes) -> bool:
    """Whether a file starting with `head` is an array of ChatGPT or Claude export conversations."""
    text = head.decode("utf-8-sig", "ignore")
    i = _skip_ws(text, 0)
    if not text.startswith("[", i):
        return False
    rest = text[_skip_ws(text, i + 1) :]
    return rest.startswith("{") and any(f'"{k}"' in rest for k in _EXPORT_KEYS)


def _file_batches(file: Path, members: dict | None = None) -> Iterator[RawInput] | None:
    """A large export array read from the file a window at a time, or None when the file is something else."""
    try:
        size = file.stat().st_size
        if size <= STREAM_OVER:
            return None
        with open(file, "rb") as fh:
            head = fh.read(STREAM_PEEK)
    except OSError as exc:
        raise InputError(f"{file}: cannot read ({exc.strerror or exc})") from None
    return _open_batches(file, size, members or {}) if _is_export_array(head) else None


def _open_batches(file: Path, size: int, members: dict) -> Iterator[RawInput]:
    with open(file, "rb") as fh:
        yield from _window_batches(str(file), fh, size, members)


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
        batches = _file_batches(file, side)
        if batches is not None:
            yield from batches
            continue
        data = _read_file(file)
        if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            del data  # the zip is read from the file, member by member
            yield from _from_zip(str(file), file)
        else:
            yield from _from_bytes(str(file), data, side)
