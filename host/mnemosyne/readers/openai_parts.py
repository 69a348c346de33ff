"""OpenAI content pieces shared by the Chat Completions and Responses readers
(and Open WebUI, whose `output` items are Responses items)."""

from __future__ import annotations

from typing import Any

from ..model import (
    AttachmentPart,
    Citation,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from .base import Warnings, raw_json
from .interop_common import as_text, parse_json_text, str_or_none

_DROPPED_BYTES = "inline file bytes (data: URL or base64) were not kept; the attachment records only its type"


def data_url_mime(url: str) -> str | None:
    """`data:image/png;base64,...` -> image/png."""
    head = url[5:].split(",", 1)[0]
    return head.split(";", 1)[0] or None


def image_part(
    url: Any, warnings: Warnings, *, file_id: Any = None, mime: str | None = None
) -> AttachmentPart:
    """An image by URL or file id; inline bytes are not copied into the document."""
    pointer = str_or_none(file_id)
    if isinstance(url, str) and url.startswith("data:"):
        warnings.add("INLINE_DATA_DROPPED", _DROPPED_BYTES)
        mime = mime or data_url_mime(url)
    elif isinstance(url, str) and url:
        pointer = url
    return AttachmentPart(kind="image", asset_pointer=pointer, mime_type=mime)


def file_part(spec: dict[str, Any], warnings: Warnings) -> AttachmentPart:
    """Chat `file` parts ({file:{file_id, filename, file_data}}) and Responses `input_file` items."""
    nested = spec.get("file")
    inner: dict[str, Any] = nested if isinstance(nested, dict) else spec
    data = inner.get("file_data")
    mime = data_url_mime(data) if isinstance(data, str) and data.startswith("data:") else None
    if data:
        warnings.add("INLINE_DATA_DROPPED", _DROPPED_BYTES)
    pointer = str_or_none(inner.get("file_id")) or str_or_none(inner.get("file_url"))
    return AttachmentPart(
        kind="file", asset_pointer=pointer, name=str_or_none(inner.get("filename")), mime_type=mime
    )


def audio_part(spec: dict[str, Any], warnings: Warnings) -> AttachmentPart:
    fmt = str_or_none(spec.get("format"))
    if spec.get("data"):
        warnings.add("INLINE_DATA_DROPPED", _DROPPED_BYTES)
    return AttachmentPart(kind="audio", mime_type=f"audio/{fmt}" if fmt else None)


def url_citations(annotations: Any) -> list[Citation]:
    """Responses `url_citation` annotations on output text."""
    out: list[Citation] = []
    for note in annotations if isinstance(annotations, list) else []:
        if isinstance(note, dict) and note.get("type") == "url_citation":
            out.append(
                Citation(
                    title=str_or_none(note.get("title")),
                    url=str_or_none(note.get("url")),
                    start=note.get("start_index") if isinstance(note.get("start_index"), int) else None,
                    end=note.get("end_index") if isinstance(note.get("end_index"), int) else None,
                )
            )
    return out


def content_parts(content: Any, warnings: Warnings, where: str) -> list[Part]:
    """Message content: a string, or typed parts from either API."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextPart(text=content)] if content else []
    if isinstance(content, dict):
        content = [content]
    parts: list[Part] = []
    for piece in content:
        if isinstance(piece, str):
            parts.append(TextPart(text=piece))
            continue
        kind = piece.get("type")
        if kind in ("text", "input_text", "output_text"):
            parts.append(
                TextPart(text=as_text(piece.get("text")), citations=url_citations(piece.get("annotations")))
            )
        elif kind == "refusal":
            parts.append(TextPart(text=as_text(piece.get("refusal"))))
        elif kind == "image_url":
            spec = piece.get("image_url")
            parts.append(image_part(spec.get("url") if isinstance(spec, dict) else spec, warnings))
        elif kind == "input_image":
            parts.append(image_part(piece.get("image_url"), warnings, file_id=piece.get("file_id")))
        elif kind == "input_audio":
            parts.append(audio_part(piece.get("input_audio") or piece, warnings))
        elif kind in ("file", "input_file"):
            parts.append(file_part(piece, warnings))
        else:
            warnings.add("UNKNOWN_CONTENT_TYPE", f"{where} content part {kind!r} kept as unknown")
            parts.append(UnknownPart(source_type=str(kind), raw=raw_json(piece)))
    return parts


def reasoning_part(item: dict[str, Any]) -> ReasoningPart:
    """Responses `reasoning` item: readable content and summary (encrypted content is not readable)."""
    text = "\n\n".join(as_text(c.get("text")) for c in item.get("content") or [] if isinstance(c, dict))
    summary = "\n\n".join(as_text(s.get("text")) for s in item.get("summary") or [] if isinstance(s, dict))
    duration = item.get("duration")
    return ReasoningPart(
        text=text,
        summary=summary or None,
        duration_sec=float(duration)
        if isinstance(duration, (int, float)) and not isinstance(duration, bool)
        else None,
        truncated=not text and bool(item.get("encrypted_content")),
    )


def function_call_part(item: dict[str, Any]) -> ToolCallPart:
    args = item.get("arguments") if "arguments" in item else item.get("input")
    return ToolCallPart(
        name=str(item.get("name") or "function"),
        call_id=str_or_none(item.get("call_id")) or str_or_none(item.get("id")),
        arguments=parse_json_text(args),
    )


def function_output_part(item: dict[str, Any], names: dict[str, str]) -> ToolResultPart:
    call_id = str_or_none(item.get("call_id"))
    return ToolResultPart(call_id=call_id, name=names.get(call_id or ""), output=as_text(item.get("output")))
