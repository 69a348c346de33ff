"""Opening inputs: JSON, JSON Lines, export zips, folders and stdin."""

from __future__ import annotations

import codecs
import io
import json
import os
import re
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ..canonical import _clean
from ..errors import InputError
from .base import RawInput

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

MAX_INPUT_BYTES = 2 * 1024**3  # refuse anything past 2 GiB instead of exhausting memory
_MAIN_MEMBER = re.compile(r"(^|/)conversations(-(\d+))?\.json$")
_SIDE_MEMBERS = ("projects.json", "users.json", "memories.json")
# ChatGPT's 2026 exports: the account's file library, and the .dat files' original names. Each only adds
# names and types to attachments; a broken one is passed over rather than failing the whole export.
_OPTIONAL_SIDE_MEMBERS = ("library_files.json", "conversation_asset_file_names.json")
ASSETS = "assets"  # RawInput.members key: asset pointer id -> file name in the export
ASSET_BYTES = "asset_bytes"  # RawInput.members key: reads an export file's bytes by that name
# Newer Claude exports keep one file per project / account memory in these folders.
_SIDE_FOLDERS = {"projects": "projects.json", "memories": "memories.json"}
# Files an export holds beside its conversations that Mnemosyne has no use for: skipped silently.
_IGNORED_MEMBERS = (
    "export_manifest.json",
    "user.json",
    "user_settings.json",
    "message_feedback.json",
    "model_comparisons.json",
    "shared_conversations.json",
    "group_chats.json",
    "tool_messages.json",
    "shopping.json",
    "sora.json",
)


def main_members(names: list[str]) -> list[str]:
    """The conversation files of an export, in order: conversations.json, then -000, -001, ... by number."""

    def order(name: str) -> tuple[Any, ...]:
        match = _MAIN_MEMBER.search(name)  # always matches: only members it matched are sorted
        number = match.group(3) if match else None
        return (name.rsplit("/", 1)[0] if "/" in name else "", int(number) if number else -1, name)

    return sorted((n for n in names if _MAIN_MEMBER.search(n)), key=order)


def side_kind(name: str) -> str | None:
    """Which side file this export member is (projects.json ...), or None."""
    parts = name.replace("\\", "/").split("/")
    if parts[-1] in _SIDE_MEMBERS or parts[-1] in _OPTIONAL_SIDE_MEMBERS:
        return parts[-1]
    if len(parts) > 1 and parts[-2] in _SIDE_FOLDERS and parts[-1].endswith(".json"):
        return _SIDE_FOLDERS[parts[-2]]
    return None


def side_members(names: list[str], read: Callable[[str], bytes]) -> dict[str, Any]:
    """The side files of an export, parsed; one-per-item folders are gathered into one list."""
    side: dict[str, Any] = {}
    for name in sorted(names):
        kind = side_kind(name)
        if kind is None:
            continue
        try:
            value = json.loads(read(name).decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError):
            if kind in _OPTIONAL_SIDE_MEMBERS:
                continue
            raise
        items = value if isinstance(value, list) else [value]
        side[kind] = [*side.get(kind, []), *items]
    return side


_ASSET_ID = re.compile(r"^(file[-_][A-Za-z0-9]+)")  # file-AbC12..., file_00000000ab... (asset pointer ids)


def asset_files(names: list[str]) -> dict[str, str]:
    """Asset pointer id -> the export file that holds its bytes (`file-AbC-photo.png`, `file_00ab-....dat`)."""
    found: dict[str, str] = {}
    for name in names:
        base = name.replace("\\", "/").rsplit("/", 1)[-1]
        match = _ASSET_ID.match(base)
        if match and not base.lower().endswith((".json", ".jsonl", ".html")):
            found.setdefault(match.group(1), name)
    return found


def export_extra(name: str) -> bool:
    """A file an export holds that is no conversation input: side files, viewers, assets."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return (
        side_kind(name) is not None
        or base in _IGNORED_MEMBERS
        or not base.lower().endswith((".json", ".jsonl", ".zip"))
    )


def well_formed(name: str, value: Any, source: bytes) -> Any:
    """JSON may escape lone surrogates ("\\ud800"), which no UTF-8 store accepts: replace each with "?".

    Only inputs whose bytes hold a surrogate escape are walked."""
    if b"\\ud" not in source and b"\\uD" not in source:
        return value
    try:
        return _clean(value)
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply") from None


def decode_text(name: str, data: bytes) -> str:
    """UTF-8 (with or without a BOM), or UTF-16 with its BOM (Windows tools write it)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(f"{name}: not valid UTF-16 text (byte {exc.start})") from None
    if _looks_utf16(data):
        raise InputError(f"{name}: looks like UTF-16 without a byte-order mark; save it as UTF-8") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None


def _looks_utf16(data: bytes) -> bool:
    """JSON text never holds NUL bytes; UTF-16 of ASCII has one in every other byte."""
    head = data[:512]
    return len(head) >= 4 and (head[0::2].count(0) > len(head) // 4 or head[1::2].count(0) > len(head) // 4)


def parse_json_bytes(name: str, data: bytes) -> RawInput:
    """JSON first; JSON Lines when the file is one JSON value per line."""
    text = decode_text(name, data)
    if not text.strip():
        raise InputError(f"{name}: empty input")
    try:
        utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        source = text.encode("utf-8", "surrogatepass") if utf16 else data
        elements = array_elements(text)
        if elements is not None:  # each element keeps its own bytes for its provenance, as when streamed
            return RawInput(
                name=name, data=well_formed(name, elements[0], source), raw=data, item_raw=elements[1]
            )
        return RawInput(name=name, data=well_formed(name, json.loads(text), source), raw=data)
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply") from None
    except ValueError as first:
        return json_lines(name, text, data, first)


_WS = " \t\r\n"


def array_elements(text: str) -> tuple[list[Any], list[bytes]] | None:
    """A top-level JSON array parsed one element at a time: the elements, and each one's bytes as written
    (what a conversation of an export hashes into its provenance). None when the text is not an array, or
    anything about it is unusual: json.loads then parses it, or reports the error."""
    decoder = json.JSONDecoder()
    i, end = len(text) - len(text.lstrip(_WS)), len(text.rstrip(_WS))
    if not text.startswith("[", i) or not text.endswith("]", 0, end):
        return None
    items: list[object] = []
    slices: list[bytes] = []
    i, comma = i + 1, False
    while True:
        while i < end and text[i] in _WS:
            i += 1
        if text.startswith("]", i):
            return (items, slices) if i == end - 1 and not comma else None
        try:
            item, stop = decoder.raw_decode(text, i)
        except ValueError:
            return None
        items.append(item)
        slices.append(text[i:stop].encode("utf-8", "surrogatepass"))
        i = stop
        while i < end and text[i] in _WS:
            i += 1
        comma = text.startswith(",", i)
        if comma:
            i += 1
        elif not text.startswith("]", i):
            return None


def json_lines(name: str, text: str, data: bytes, first: ValueError) -> RawInput:
    """Each line its own record: bad lines are set aside by number, the good ones kept.

    The text is taken for JSON Lines only when most lines are JSON; broken pretty-printed
    JSON (whose lines mostly are not) is reported as the JSON error it is."""
    records, bad = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(well_formed(name, json.loads(line), line.encode("utf-8", "surrogatepass")))
        except (ValueError, RecursionError) as exc:
            bad.append((lineno, _short(exc)))
    if not records or len(bad) > len(records) or not all(isinstance(r, (dict, list)) for r in records):
        raise InputError(f"{name}: not valid JSON ({first})") from None
    return RawInput(name=name, data=records, raw=data, jsonl=True, bad_lines=bad)


def _short(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)


def load_zip(name: str, data: bytes) -> list[RawInput]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        main = main_members(names)
        if not main:
            raise InputError(f"{name}: zip holds no conversations.json (is it a ChatGPT or Claude export?)")
        side = {**side_members(names, archive.read), ASSETS: asset_files(names), ASSET_BYTES: archive.read}
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
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b")]}'"):  # Gemini batchexecute, a devtools copy
        from .gemini import wrap  # (its reader and the model: a JSON file's context loads neither)

        return [RawInput(name=name, data=wrap(decode_text(name, data)), raw=data)]
    return [parse_json_bytes(name, data)]


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def load_path(path: str | os.PathLike[str], stdin: io.BufferedReader | None = None) -> list[RawInput]:
    """One file, zip, folder or '-' for stdin.

    A folder that holds an unzipped export is read exactly like the zip; any other
    folder is every .json/.jsonl/.zip under it."""
    if str(path) == "-":
        return load_bytes("-", (stdin or sys.stdin.buffer).read())
    p = Path(path)
    if p.is_dir():
        inputs: list[RawInput] = []
        for child, side in folder_inputs(p):
            for raw in load_bytes(str(child), _read_file(child)):
                raw.members = side if side is not None else raw.members
                inputs.append(raw)
        return inputs
    if not p.exists():
        raise InputError(f"{p}: no such file")
    return load_bytes(str(p), _read_file(p))


def folder_inputs(folder: Path) -> list[tuple[Path, dict[str, Any] | None]]:
    """The files of a folder to read, each with the side files of its export (None outside one)."""
    files = sorted(f for f in folder.rglob("*") if f.is_file())
    names = {f.relative_to(folder).as_posix(): f for f in files}
    main = main_members(list(names))
    if not main:
        return [(f, None) for f in files if f.suffix.lower() in (".json", ".jsonl", ".zip")]
    try:
        side = {
            **side_members(list(names), lambda n: _read_file(names[n])),
            ASSETS: asset_files(list(names)),
            ASSET_BYTES: lambda n: _read_file(names[n]),
        }
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{folder}: a side file of the export is broken ({exc})") from None
    chosen: list[tuple[Path, dict[str, Any] | None]] = [(names[n], side) for n in main]
    chosen += [(f, None) for n, f in names.items() if n not in main and not export_extra(n)]
    return chosen


def iter_files(folder: Path) -> Iterator[Path]:
    for child, _side in folder_inputs(folder):
        yield child
