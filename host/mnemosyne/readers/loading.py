"""Opening inputs: JSON, JSON Lines, export zips, folders and stdin."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..canonical import _clean
from ..errors import InputError
from .base import RawInput

MAX_INPUT_BYTES = 2 * 1024**3  # refuse anything past 2 GiB instead of exhausting memory
_MAIN_MEMBER = re.compile(r"(^|/)conversations(-\d+)?\.json$")
_SIDE_MEMBERS = ("projects.json", "users.json", "memories.json")


def well_formed(name: str, value, source: bytes):
    """JSON may escape lone surrogates ("\\ud800"), which no UTF-8 store accepts: replace each with "?".

    Only inputs whose bytes hold a surrogate escape are walked."""
    if b"\\ud" not in source and b"\\uD" not in source:
        return value
    try:
        return _clean(value)
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply") from None


def parse_json_bytes(name: str, data: bytes) -> RawInput:
    """JSON first; JSON Lines when the file is one JSON value per line."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise InputError(f"{name}: empty input")
    try:
        return RawInput(name=name, data=well_formed(name, json.loads(text), data), raw=data)
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply") from None
    except ValueError as first:
        records = []
        for _lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(well_formed(name, json.loads(line), line.encode("utf-8", "surrogatepass")))
            except (ValueError, RecursionError):
                raise InputError(f"{name}: not valid JSON ({first})") from None
        if len(records) < 1:
            raise InputError(f"{name}: not valid JSON ({first})") from None
        return RawInput(name=name, data=records, raw=data, jsonl=True)


def load_zip(name: str, data: bytes) -> list[RawInput]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        main = sorted(n for n in names if _MAIN_MEMBER.search(n))
        if not main:
            raise InputError(f"{name}: zip holds no conversations.json (is it a ChatGPT or Claude export?)")
        side = {}
        for member in names:
            base = member.rsplit("/", 1)[-1]
            if base in _SIDE_MEMBERS:
                side[base] = json.loads(archive.read(member).decode("utf-8"))
        inputs = []
        for member in main:
            raw = parse_json_bytes(f"{name}:{member}", archive.read(member))
            raw.members = side
            inputs.append(raw)
        return inputs
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile) as exc:
        raise InputError(f"{name}: truncated or corrupt zip ({exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: a JSON file inside the zip is broken ({exc})") from None
    except OSError as exc:  # zlib errors on truncated members
        raise InputError(f"{name}: truncated or corrupt zip ({exc})") from None


def load_bytes(name: str, data: bytes) -> list[RawInput]:
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{name}: larger than {MAX_INPUT_BYTES} bytes")
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        return load_zip(name, data)
    return [parse_json_bytes(name, data)]


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def load_path(path: str | os.PathLike[str], stdin: io.BufferedReader | None = None) -> list[RawInput]:
    """One file, zip, folder (every .json/.jsonl/.zip under it) or '-' for stdin."""
    if str(path) == "-":
        import sys

        return load_bytes("-", (stdin or sys.stdin.buffer).read())
    p = Path(path)
    if p.is_dir():
        inputs: list[RawInput] = []
        for child in sorted(iter_files(p)):
            inputs.extend(load_bytes(str(child), _read_file(child)))
        return inputs
    if not p.exists():
        raise InputError(f"{p}: no such file")
    return load_bytes(str(p), _read_file(p))


def iter_files(folder: Path) -> Iterator[Path]:
    for child in folder.rglob("*"):
        if child.is_file() and child.suffix.lower() in (".json", ".jsonl", ".zip"):
            yield child
