"""What every reader shares: the raw input, the read context, time parsing,
warning collection and the builder that stamps id and provenance."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .. import __version__
from ..canonical import _clean
from ..errors import InputError
from ..ids import conversation_id, sha256_hex
from ..model import CaptureMethod, Conversation, Instruction, Message, Provenance, Site, Source, Warning


@dataclass
class RawInput:
    """One parsed input: a JSON value, or the records of a JSON Lines file."""

    name: str  # file name (or "-"), used in error messages
    data: Any
    raw: bytes  # the bytes it came from, hashed into provenance
    jsonl: bool = False
    members: dict[str, Any] = field(
        default_factory=dict
    )  # other JSON files of the same zip/folder (projects.json ...)
    progress: tuple[int, int] | None = None  # (characters read, total) when a large file is read in batches
    bad_lines: list[tuple[int, str]] = field(
        default_factory=list
    )  # JSON Lines that did not parse: (line, why)
    # a streamed export array (streaming.py): each element's own bytes in the file, as the parser delimited them
    item_raw: list[bytes] | None = None
    first_index: int = 0  # a streamed batch: the index of data[0] in the file's array (for labels)
    # the batches of one streamed array share it: readers.read_raw keeps there the reader it recognised
    shared: dict[str, Any] | None = None

    def item_bytes(self, index: int, item: Any) -> bytes:
        """The bytes element `index` of `data` came from, hashed into its provenance: its slice of the
        file when streamed, else a stable dump of it."""
        return self.item_raw[index] if self.item_raw is not None else dump_raw(item)

    def item_identity(self, index: int, item: Any, has_site_id: bool) -> bytes | None:
        """What an id-less element's id is derived from (build's `identity`): the stable dump, whatever the
        provenance hashes, so ids never depend on how the file was read. None when the site gives an id."""
        return None if has_site_id or self.item_raw is None else dump_raw(item)


@dataclass
class ReadContext:
    source_url: str | None = None
    captured_at: datetime | None = None
    method: CaptureMethod | None = None  # override (the host knows a capture came from the site API)


@dataclass
class ReadFailure:
    """One conversation of a multi-conversation input that could not be read."""

    label: str
    error: InputError

    def describe(self) -> str:
        """`label: message`, naming the place once even when the message already starts with it."""
        message = self.error.message
        return message if message.startswith(self.label) else f"{self.label}: {message}"


class Warnings:
    """Counts what a reader kept but could not type, so nothing is dropped silently."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], int] = {}

    def add(self, code: str, message: str) -> None:
        key = (code, message)
        self._counts[key] = self._counts.get(key, 0) + 1

    def as_list(self) -> list[Warning]:
        return [Warning(code=c, message=m, count=n) for (c, m), n in sorted(self._counts.items())]


_INFINITIES = (float("inf"), float("-inf"))


def parse_time(value: Any) -> datetime | None:
    """Epoch seconds (ChatGPT), epoch milliseconds, or ISO 8601 strings (Claude, others)."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if value != value or value in _INFINITIES:
            return None
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        text = value.strip()
        if text.replace(".", "", 1).isdigit():
            return parse_time(float(text))
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    return None


def text_of(value: Any) -> str:
    """Best-effort text of a loosely typed field (string, list of strings, dict with text)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("text", "content", "value"):
            if key in value:
                return text_of(value[key])
        return ""
    return str(value)


def raw_json(value: Any) -> Any:
    """Raw site JSON made safe to keep in an UnknownPart."""
    return _clean(value)


def build(
    *,
    site: Site,
    source_id: str | None,
    reader: str,
    method: CaptureMethod,
    raw: bytes | str,
    ctx: ReadContext | None,
    messages: list[Message],
    title: str | None = None,
    url: str | None = None,
    created_at: datetime | None = None,
    updated_at: datetime | None = None,
    default_model: str | None = None,
    active_leaf: str | None = None,
    instructions: Iterable[Instruction] = (),
    project: str | None = None,
    warnings: Warnings | None = None,
    partial: bool = False,
    identity: bytes | None = None,
) -> Conversation:
    """Stamp id, source and provenance the same way for every reader.

    Without a source id the id is a hash of `identity` (default: the raw input), never of a URL."""
    ctx = ctx or ReadContext()
    raw_bytes = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if active_leaf is None and messages:
        active_leaf = messages[-1].id
    return Conversation(
        id=conversation_id(site, source_id, raw_bytes if identity is None else identity),
        title=title,
        source=Source(site=site, url=ctx.source_url or url, conversation_id=source_id, project=project),
        created_at=created_at,
        updated_at=updated_at,
        default_model=default_model,
        instructions=list(instructions),
        messages=messages,
        active_leaf=active_leaf,
        provenance=Provenance(
            method=ctx.method or method,
            reader=reader,
            reader_version=__version__,
            raw_sha256=sha256_hex(raw_bytes),
            captured_at=ctx.captured_at,
            partial=partial,
        ),
        warnings=(warnings or Warnings()).as_list(),
    )


def dump_raw(value: Any) -> bytes:
    """Stable bytes of one conversation's JSON, for hashing one item out of a bigger file.

    Parsed JSON has string keys, so _clean (about half the cost) changes something only when a NaN,
    an infinity or a lone surrogate is there: dump first, and clean and dump again only then."""

    def dump(data: Any) -> bytes:
        return json.dumps(
            data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        ).encode("utf-8")

    if _string_keys_only(value):
        try:
            return dump(value)
        except (ValueError, TypeError):  # NaN / Infinity, or a lone surrogate (UnicodeEncodeError)
            pass
    return dump(_clean(value))


def _string_keys_only(value: Any) -> bool:
    """Whether every dict key in `value` is a string (so _clean would not rename one)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(type(k) is str for k in item):
                return False
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return True
