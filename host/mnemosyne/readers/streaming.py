"""Reading an export without holding all of it as Python objects.

An official export can be hundreds of megabytes; parsed whole, its Python objects take about ten times
that. Every top-level array of ChatGPT or Claude conversations, whatever its size and wherever it is (a
file, a member of an export zip, a file of an export folder, stdin's bytes), is read a window at a time
(_Window), parsed one element at a time and handed on in batches bounded by bytes as well as by count, so
`mnemo import` and `mnemo convert` hold one window plus one batch: their memory follows the largest
conversation, not the file. Anything else is read whole (loading.py).
"""

from __future__ import annotations

import io
import json
import os
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import InputError
from .base import RawInput
from .json_array import element_head, whole_elements
from .json_array import value as element_value
from .loading import (
    ASSET_BYTES,
    ASSETS,
    asset_files,
    folder_inputs,
    load_bytes,
    main_members,
    side_members,
    well_formed,
)

STREAM_PEEK = 64 * 1024  # bytes read to tell an export array (its first element's keys) from anything else
BATCH = 50  # conversations per RawInput at most
# bytes of export JSON per RawInput at most (a batch ends with the element that reaches it): a batch's
# parsed objects take about ten times its bytes, so this and the largest conversation bound the memory
BATCH_BYTES = 1024 * 1024
_EXPORT_KEYS = ("mapping", "chat_messages")  # ChatGPT and Claude export entries
_WS = " \t\r\n"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _has_surrogate_escape(raw: bytes) -> bool:
    """Whether an element's bytes may escape a lone surrogate ("\\ud800"): searched in the bytes, not the
    text, because a bytes search is a memchr while a text window holding one emoji is 4 bytes a character."""
    return b"\\ud" in raw or b"\\uD" in raw


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _stream_inputs(
    name: str, stream: IO[bytes], size: int, members: dict[str, Any] | None
) -> Iterator[RawInput]:
    """One open file (or zip member) of `size` bytes: an export array in batches, anything else whole."""
    head = stream.read(STREAM_PEEK)
    stream.seek(0)
    if _is_export_array(head):
        yield from _window_batches(name, stream, size, members or {})
        return
    for raw in load_bytes(name, stream.read()):
        raw.members = members or raw.members
        yield raw


def _from_zip(name: str, source: bytes | Path) -> Iterator[RawInput]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
        names = archive.namelist()
        main = main_members(names)
        side = {**side_members(names, archive.read), ASSETS: asset_files(names), ASSET_BYTES: archive.read}
        if not main:
            raise InputError(f"{name}: zip holds no conversations.json (is it a ChatGPT or Claude export?)")
        for member in main:
            with archive.open(member) as fh:  # decompressed a window at a time, never whole
                yield from _stream_inputs(f"{name}:{member}", fh, archive.getinfo(member).file_size, side)
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile, OSError) as exc:
        raise InputError(f"{name}: truncated or corrupt zip ({exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: a JSON file inside the zip is broken ({exc})") from None


WINDOW = 1024 * 1024  # bytes read at a time from a large file (4 MB: twice the peak memory of convert)
_BOM = b"\xef\xbb\xbf"


class _Window:
    """A file read a window of bytes at a time: the bytes not yet parsed (from `pos`), grown when an
    element runs past the end, so a 234 MB export is never held whole, as bytes or as a string."""

    def __init__(self, name: str, stream: IO[bytes]):
        self.name, self.stream = name, stream
        self.buf, self.pos, self.eof = b"", 0, False
        self.offset = 0  # bytes of the file before buf

    def more(self, size: int = WINDOW) -> bool:
        """Drop what is parsed and read up to `size` more bytes; False at the end of the file."""
        if self.eof:
            return False
        chunk = self.stream.read(size)
        if not self.offset and not self.buf and chunk.startswith(_BOM):
            chunk, self.offset = chunk[3:], 3
        self.offset += self.pos
        self.buf, self.pos = self.buf[self.pos :] + chunk, 0
        self.eof = not chunk
        return bool(chunk)

    def skip_ws(self) -> bool:
        """Move past whitespace, reading more at the end of the window; False at the end of the file."""
        while True:
            buf, i = self.buf, self.pos
            while i < len(buf) and buf[i] in _WS_BYTES:
                i += 1
            self.pos = i
            if i < len(buf) or not self.more():
                return i < len(self.buf)

    def after_element(self) -> None:
        """Past the whitespace and the comma that follow an element inside the window."""
        buf, i = self.buf, self.pos
        while i < len(buf) and buf[i] in _WS_BYTES:
            i += 1
        self.pos = i + 1 if buf[i : i + 1] == b"," else i

    def one_element(self, decoder: json.JSONDecoder) -> tuple[Any, bytes]:
        """The element at `pos` parsed by json (what msgspec refused), `pos` moved past it: the text decoded
        from 64 KB on, twice as much each time the element runs past it, reading more at the window's end."""
        limit = 64 * 1024
        while True:
            stop = min(len(self.buf), self.pos + limit)
            data = self.buf[self.pos : stop]
            cut = len(data) if self.eof and stop == len(self.buf) else _whole_characters(data)
            try:
                text = data[:cut].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{self.name}: not UTF-8 text (byte {self.offset + self.pos + exc.start})"
                ) from None
            try:
                item, end = decoder.raw_decode(text)
                break
            except (ValueError, RecursionError) as exc:
                if isinstance(exc, ValueError) and (stop < len(self.buf) or self.more(limit)):
                    limit *= 2
                    continue
                raise InputError(
                    f"{self.name}: not valid JSON at byte {self.offset + self.pos} ({exc})"
                ) from None
        raw = text[:end].encode("utf-8", "surrogatepass")
        if _has_surrogate_escape(raw):
            item = well_formed(self.name, item, b"\\ud")
        self.pos += len(raw)
        self.after_element()
        return item, raw


_WS_BYTES = b" \t\r\n"
_LONGEST = 64 * 1024 * 1024  # bytes of one element the window grows to hold before json reads it alone


def _whole_characters(data: bytes) -> int:
    """How many bytes of `data` hold whole UTF-8 characters (a window may end inside one)."""
    cut = len(data)
    while cut > 0 and len(data) - cut < 4 and 0x80 <= data[cut - 1] < 0xC0:
        cut -= 1  # back to the start of a character cut in two
    if cut > 0 and data[cut - 1] >= 0xC0:
        cut -= 1
    return cut


def _window_batches(name: str, stream: IO[bytes], total: int, members: dict[str, Any]) -> Iterator[RawInput]:
    win = _Window(name, stream)
    batch: list[Any] = []
    slices: list[bytes] = []
    held = first = 0  # bytes of the batch's elements; the index of its first
    shared: dict[str, Any] = {}
    for item, raw in _elements(win):
        batch.append(item)
        slices.append(raw)
        held += len(raw)
        if len(batch) == BATCH or held >= BATCH_BYTES:
            yield _batch(name, batch, slices, members, (win.offset + win.pos, total), first, shared)
            first += len(batch)
            batch, slices, held = [], [], 0
    if batch:
        yield _batch(name, batch, slices, members, (total, total), first, shared)


def _elements(win: _Window) -> Iterator[tuple[Any, bytes]]:
    """An export array's elements and their bytes, `win.pos` past each one (and its comma) as it is
    yielded: a window of them at a time by msgspec (json_array), one at a time by json where msgspec
    refuses one or no cut is found (after a refusal, json reads 1, 2, 4 ... 64 elements before msgspec
    tries again, so an export msgspec keeps refusing costs little more than json alone)."""
    if not win.skip_ws() or win.buf[win.pos] != 0x5B:  # "["
        raise InputError(f"{win.name}: not valid JSON (expected an array)")
    win.pos += 1
    decoder = json.JSONDecoder()
    head: bytes | None = None
    want = WINDOW  # bytes to hold past `pos` before cutting
    by_json = refusals = 0
    while True:
        if not win.skip_ws():
            raise InputError(f"{win.name}: the JSON array ends early (byte {win.offset + win.pos})")
        if win.buf[win.pos] == 0x5D:  # "]"
            return
        if len(win.buf) - win.pos < want and win.more(want):
            continue  # a window's worth of elements parsed at once
        if head is None:
            head = element_head(win.buf, win.pos) or b""
        found, tried = (None, 0) if by_json or not head else whole_elements(win.buf, win.pos, head, win.eof)
        if found is None and head and not by_json and not tried and not win.eof and want < _LONGEST:
            want *= 2  # no cut in the window: an element longer than it
            continue
        want = WINDOW
        if found is None:
            if tried:
                refusals = min(2 * refusals or 1, 64)
                by_json = refusals
            by_json = max(by_json - 1, 0)
            yield win.one_element(decoder)
            continue
        refusals = 0
        for element in found:
            raw = bytes(element)
            win.skip_ws()
            item = element_value(win.name, raw, win.offset + win.pos)
            win.pos += len(raw)
            win.after_element()
            yield item, raw


def _batch(
    name: str,
    batch: list[Any],
    slices: list[bytes],
    members: dict[str, Any],
    progress: tuple[int, int],
    first: int,
    shared: dict[str, Any],
) -> RawInput:
    return RawInput(
        name=name,
        data=batch,
        raw=b"",
        members=members,
        progress=progress,
        item_raw=slices,
        first_index=first,
        shared=shared,
    )


def _is_export_array(head: bytes) -> bool:
    """Whether a file starting with `head` is an array of ChatGPT or Claude export conversations."""
    text = head.decode("utf-8-sig", "ignore")
    i = _skip_ws(text, 0)
    if not text.startswith("[", i):
        return False
    rest = text[_skip_ws(text, i + 1) :]
    return rest.startswith("{") and any(f'"{k}"' in rest for k in _EXPORT_KEYS)


def iter_inputs(path: str | os.PathLike[str]) -> Iterator[RawInput]:
    """Like loading.load_path, but lazily, and every export array in batches."""
    if str(path) == "-":  # held as bytes (a pipe tells neither its size nor can go back), parsed in batches
        data = sys.stdin.buffer.read()
        if data[:4] in _ZIP_MAGIC:
            yield from _from_zip("-", data)
        else:
            yield from _stream_inputs("-", io.BytesIO(data), len(data), None)
        return
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    files = folder_inputs(p) if p.is_dir() else [(p, None)]
    for file, side in files:
        try:
            with open(file, "rb") as fh:
                if fh.read(4) in _ZIP_MAGIC:
                    fh.close()  # the zip is read from the file, member by member
                    yield from _from_zip(str(file), file)
                    continue
                fh.seek(0)
                yield from _stream_inputs(str(file), fh, os.fstat(fh.fileno()).st_size, side)
        except OSError as exc:
            raise InputError(f"{file}: cannot read ({exc.strerror or exc})") from None
