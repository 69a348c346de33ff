"""The extension's page capture (DOM fallback, format "mnemosyne.capture" v1,
documented in host/PROTOCOL.md): the turns the page showed, already as
Markdown (fenced code with language, $…$ / $$…$$ TeX, GFM tables)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import InputError
from ..model import AttachmentPart, Conversation, Message, Part, TextPart
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, parse_time

NAME = "capture"
DESCRIPTION = "Mnemosyne page capture from the browser extension (mnemosyne.capture v1)"

FORMAT = "mnemosyne.capture"
VERSION = 1
MAX_TURNS = 20_000
MAX_MARKDOWN = 8 * 1024 * 1024  # one turn; a very long answer is far below this
MAX_URL = 8192  # attachment URLs may be long signed links, never data: blobs of whole files

ShortText = Annotated[str, Field(max_length=1024)]


class _Strict(BaseModel):
    # strict: "1" is not an order and "true" is not a bool; extra keys are a wrong shape. defer_build: the
    # validators are built on first use, so reading another format (detection imports this module) does
    # not pay 16 ms for them
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class CaptureAttachment(_Strict):
    name: ShortText
    kind: Literal["image", "file"]
    url: Annotated[str, Field(max_length=MAX_URL)] | None = None


class CaptureTurn(_Strict):
    key: Annotated[str, Field(min_length=1, max_length=512)]
    order: int
    role: Literal["user", "assistant"]
    model: Annotated[str, Field(max_length=200)] | None = None
    markdown: Annotated[str, Field(max_length=MAX_MARKDOWN)]
    attachments: Annotated[list[CaptureAttachment], Field(max_length=1000)] = []


class CaptureWarning(_Strict):
    # what the page showed but the sweep could not read as text (a frame, a turn with no role): counted, not lost
    code: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Z][A-Z0-9_]*$")]
    message: ShortText
    count: Annotated[int, Field(ge=1, le=MAX_TURNS)] = 1


class CapturePayload(_Strict):
    format: Literal["mnemosyne.capture"]
    version: Literal[1]
    site: Literal["chatgpt", "claude", "grok", "perplexity", "gemini", "deepseek"]
    url: Annotated[str, Field(min_length=1, max_length=MAX_URL)]
    conversation_id: Annotated[str, Field(min_length=1, max_length=256)] | None = None
    title: ShortText | None = None
    captured_at: Annotated[str, Field(max_length=64)]
    complete: bool
    turns: Annotated[list[CaptureTurn], Field(max_length=MAX_TURNS)]
    warnings: Annotated[list[CaptureWarning], Field(max_length=100)] = []

    @field_validator("captured_at")
    @classmethod
    def _iso_time(cls, v: str) -> str:
        if parse_time(v) is None:
            raise ValueError("not an ISO 8601 time")
        return v

    @property
    def captured_time(self) -> datetime | None:
        return parse_time(self.captured_at)


def detect(raw: RawInput) -> bool:
    return isinstance(raw.data, dict) and raw.data.get("format") == FORMAT


def validate(data: object, name: str = "capture") -> CapturePayload:
    """The payload, or InputError naming the first field that is wrong."""
    fields = data if isinstance(data, dict) else {}
    version = fields.get("version") if fields.get("format") == FORMAT else VERSION
    if type(version) is not int or version != VERSION:  # True == 1 in Python, so check the type too
        newer = (
            type(version) is int and version > VERSION
        )  # a newer extension: say so; anything else is bad input
        raise InputError(
            f"{name}: page capture version {version!r} is not supported (this host reads {VERSION})",
            code="UNSUPPORTED_SCHEMA_VERSION" if newer else "BAD_INPUT",
        )
    try:
        return CapturePayload.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "(top level)"
        raise InputError(f"{name}: not a valid page capture: {where}: {err.get('msg')}") from None


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    yield convert(validate(raw.data, raw.name), raw.raw, ctx)


def content_identity(turns: list[CaptureTurn]) -> bytes:
    """What identifies a capture that has no conversation id: everything it says, in order.

    Never the URL (every logged-out or temporary chat shares https://chatgpt.com/) and never the turn keys
    alone (Claude's index-N keys repeat across chats). The same capture saved again is the same entry;
    two different chats can never land on one entry and replace each other's messages."""
    content = [[t.key, t.role, t.model, t.markdown, [a.model_dump() for a in t.attachments]] for t in turns]
    return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def convert(payload: CapturePayload, raw: bytes, ctx: ReadContext) -> Conversation:
    """Turns sorted by order, a repeated key keeps its last capture, each turn the child of the previous."""
    latest: dict[str, tuple[int, CaptureTurn]] = {}
    for position, turn in enumerate(payload.turns):
        latest[turn.key] = (position, turn)
    turns = [t for _, t in sorted(latest.values(), key=lambda pt: (pt[1].order, pt[0]))]
    messages: list[Message] = []
    parent: str | None = None
    for turn in turns:
        parts: list[Part] = [TextPart(text=turn.markdown, format="markdown")] if turn.markdown.strip() else []
        parts.extend(
            AttachmentPart(kind=a.kind, name=a.name or None, asset_pointer=a.url or None)
            for a in turn.attachments
        )
        messages.append(Message(id=turn.key, parent=parent, role=turn.role, model=turn.model, parts=parts))
        parent = turn.key
    models = [t.model for t in turns if t.role == "assistant" and t.model]
    warnings = Warnings()
    for w in payload.warnings:
        for _ in range(w.count):
            warnings.add(f"PAGE_{w.code}", w.message)
    return build(
        site=payload.site,
        source_id=payload.conversation_id,
        identity=None if payload.conversation_id else content_identity(turns),
        reader="capture.page_dom",
        method="page_dom",
        raw=raw,
        ctx=replace(ctx, captured_at=ctx.captured_at or payload.captured_time),
        messages=messages,
        title=payload.title or None,
        url=payload.url,
        default_model=models[-1] if models else None,
        partial=not payload.complete,
        warnings=warnings,
    )
