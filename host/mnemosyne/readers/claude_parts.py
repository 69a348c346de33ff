"""Claude message content -> Mnemosyne parts: content blocks (text, thinking,
tool_use, tool_result, voice_note), the inline <antArtifact> tags of older
exports, attachments with extracted text, and uploaded files."""

from __future__ import annotations

import mimetypes
import re
from dataclasses import dataclass, field
from typing import Any

from ..model import (
    ArtifactPart,
    AttachmentKind,
    AttachmentPart,
    Citation,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from .base import Warnings, parse_time, raw_json, text_of
from .json_values import as_dict, as_int, as_list, as_str

ARTIFACT_TOOL = "artifacts"
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".heic", ".heif", ".svg", ".avif")
# Older assistant text embeds artifacts and the model's note about them as tags.
_INLINE_TAG = re.compile(r"<(antArtifact|antThinking)\b([^>]*)>(.*?)(?:</\1>|\Z)", re.DOTALL)
_ATTRIBUTE = re.compile(r'([\w-]+)\s*=\s*"([^"]*)"')


@dataclass
class PartContext:
    """What the messages of one conversation share while they are converted."""

    warnings: Warnings
    tool_names: dict[str, str] = field(default_factory=dict)  # tool_use id -> tool name, to name results
    artifact_edits: dict[int, tuple[ArtifactPart, dict[str, Any]]] = field(
        default_factory=dict
    )  # id(part) -> update input


# ---------------------------------------------------------------- messages


def message_parts(msg: dict[str, Any], assistant: bool, ctx: PartContext) -> list[Part]:
    """Content blocks when the message has them, else its flat `text` (older exports)."""
    parts: list[Part] = []
    content = msg.get("content")
    if isinstance(content, list) and content:
        for block in content:
            parts.extend(block_parts(block, assistant, ctx))
    else:
        flat = content if isinstance(content, str) and content else msg.get("text")
        if isinstance(flat, str):
            parts.extend(text_parts(flat, assistant, []))
    parts.extend(attachment_parts(msg))
    return parts


def block_parts(block: Any, assistant: bool, ctx: PartContext) -> list[Part]:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text":
        return text_parts(block.get("text") or "", assistant, citations(block.get("citations")))
    if kind == "thinking":
        return thinking_parts(block)
    if kind == "tool_use":
        return [tool_use_part(block, ctx)]
    if kind == "tool_result":
        return [tool_result_part(block, ctx)]
    if kind == "voice_note":
        return [voice_note_part(block)]
    label = kind if isinstance(kind, str) and kind else type(block).__name__
    ctx.warnings.add("UNKNOWN_CONTENT_TYPE", f"Claude content block type {label!r} kept as unknown")
    return [UnknownPart(source_type=label, raw=raw_json(block))]


def text_parts(text: str, assistant: bool, cites: list[Citation]) -> list[Part]:
    if not text.strip():
        return []
    if not (assistant and "<ant" in text):
        return [TextPart(text=text, citations=cites)]
    parts = inline_tag_parts(text)
    first_text = next((p for p in parts if isinstance(p, TextPart)), None)
    if first_text is not None:
        first_text.citations = cites
    return parts


def inline_tag_parts(text: str) -> list[Part]:
    """Split old assistant text into text, reasoning (<antThinking>) and artifacts (<antArtifact>)."""
    parts: list[Part] = []
    position = 0

    def add_text(chunk: str) -> None:
        if chunk.strip():
            parts.append(TextPart(text=chunk.strip()))

    for match in _INLINE_TAG.finditer(text):
        add_text(text[position : match.start()])
        tag, attributes, body = match.group(1), dict(_ATTRIBUTE.findall(match.group(2))), match.group(3)
        if tag == "antThinking":
            parts.append(ReasoningPart(text=body.strip()))
        else:
            parts.append(
                ArtifactPart(
                    artifact_id=as_str(attributes.get("identifier")),
                    title=as_str(attributes.get("title")),
                    kind=as_str(attributes.get("type")),
                    language=as_str(attributes.get("language")),
                    content=body.strip("\n"),
                )
            )
        position = match.end()
    add_text(text[position:])
    return parts


def citations(items: Any) -> list[Citation]:
    """Text-block citations: claude.ai `details{url}` with index spans, or API-style url/title/cited_text."""
    found: list[Citation] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        details = as_dict(item.get("details"))
        cite = Citation(
            title=as_str(item.get("title")) or as_str(details.get("title")),
            url=as_str(item.get("url")) or as_str(details.get("url")),
            snippet=as_str(item.get("cited_text")) or as_str(item.get("snippet")),
            start=as_int(item.get("start_index")),
            end=as_int(item.get("end_index")),
        )
        if cite.model_dump(exclude_none=True):
            found.append(cite)
    return found


# ---------------------------------------------------------------- blocks


def thinking_parts(block: dict[str, Any]) -> list[Part]:
    summaries = as_list(block.get("summaries"))
    lines = [
        s if isinstance(s, str) else text_of(s.get("summary")) if isinstance(s, dict) else ""
        for s in summaries
    ]
    summary = "\n".join(line for line in lines if line) or None
    text = as_str(block.get("thinking")) or ""
    truncated = bool(block.get("cut_off") or block.get("truncated"))
    if not text and not summary and not truncated:
        return []
    start, stop = parse_time(block.get("start_timestamp")), parse_time(block.get("stop_timestamp"))
    duration = (stop - start).total_seconds() if start and stop and stop > start else None
    return [ReasoningPart(text=text, summary=summary, truncated=truncated, duration_sec=duration)]


def tool_use_part(block: dict[str, Any], ctx: PartContext) -> Part:
    name = as_str(block.get("name")) or "tool"  # MCP tools keep their `Server:tool` name as given
    call_id = as_str(block.get("id"))
    if call_id:
        ctx.tool_names[call_id] = name
    arguments = block.get("input")
    if name == ARTIFACT_TOOL and isinstance(arguments, dict):
        return artifact_part(arguments, ctx)
    return ToolCallPart(name=name, call_id=call_id, arguments=raw_json(arguments))


def artifact_part(spec: dict[str, Any], ctx: PartContext) -> ArtifactPart:
    part = ArtifactPart(
        artifact_id=as_str(spec.get("id")),
        version=as_str(spec.get("version_uuid")),
        title=as_str(spec.get("title")),
        kind=as_str(spec.get("type")),
        language=as_str(spec.get("language")),
        command=as_str(spec.get("command")),
        content=as_str(spec.get("content")) or "",
    )
    if part.command == "update" and "content" not in spec:
        ctx.artifact_edits[id(part)] = (part, spec)  # an old_str/new_str edit: resolved along the tree later
    return part


def tool_result_part(block: dict[str, Any], ctx: PartContext) -> ToolResultPart:
    call_id = as_str(block.get("tool_use_id"))
    content = block.get("content")
    outputs: list[str] = []
    found: list[Citation] = []
    for item in content if isinstance(content, list) else [content]:
        if isinstance(item, dict) and item.get("type") == "knowledge":  # web search / fetch result stub
            found.append(
                Citation(
                    title=as_str(item.get("title")),
                    url=as_str(item.get("url")),
                    snippet=as_str(item.get("text")),
                )
            )
        else:
            outputs.append(text_of(item))
    return ToolResultPart(
        call_id=call_id,
        name=as_str(block.get("name")) or (ctx.tool_names.get(call_id) if call_id else None),
        output="\n".join(o for o in outputs if o),
        is_error=bool(block.get("is_error")),
        citations=found,
    )


def voice_note_part(block: dict[str, Any]) -> Part:
    transcript = text_of(block.get("text") or block.get("transcript") or block.get("content"))
    if transcript.strip():
        return TextPart(text=transcript)
    return AttachmentPart(kind="audio", name=as_str(block.get("title")))


# ---------------------------------------------------------------- files


def _mime(file_type: Any, name: str | None) -> str | None:
    if isinstance(file_type, str) and "/" in file_type:
        return file_type
    return mimetypes.guess_type(name)[0] if name else None


def attachment_parts(msg: dict[str, Any]) -> list[Part]:
    """attachments[] carry extracted text; files_v2[]/files[] point at uploads (often the same file twice)."""
    parts: list[Part] = []
    names: set[str] = set()
    for item in msg.get("attachments") or []:
        if not isinstance(item, dict):
            continue
        name = as_str(item.get("file_name"))
        names.add(name or "")
        parts.append(
            AttachmentPart(
                kind="file",
                name=name,
                mime_type=_mime(item.get("file_type"), name),
                size_bytes=as_int(item.get("file_size")),
                extracted_text=as_str(item.get("extracted_content")),
            )
        )
    seen_uuids: set[str] = set()
    for item in list(msg.get("files_v2") or []) + list(msg.get("files") or []):
        if isinstance(item, str):  # some exports list plain file names, repeating attachments[]
            if item not in names:
                names.add(item)
                parts.append(
                    AttachmentPart(kind=file_kind(None, item), name=item, mime_type=_mime(None, item))
                )
            continue
        if not isinstance(item, dict):
            continue
        file_uuid = as_str(item.get("file_uuid")) or as_str(item.get("uuid"))
        if file_uuid and file_uuid in seen_uuids:
            continue
        if file_uuid:
            seen_uuids.add(file_uuid)
        parts.append(file_part(item, file_uuid))
    return parts


def file_kind(declared: Any, name: str | None) -> AttachmentKind:
    if declared == "image":
        return "image"
    if declared in ("document", "blob", "file"):
        return "file"
    return "image" if name and name.lower().endswith(_IMAGE_SUFFIXES) else "file"


def file_part(item: dict[str, Any], file_uuid: str | None) -> AttachmentPart:
    name = as_str(item.get("file_name"))
    preview = as_dict(item.get("preview_asset"))
    thumbnail = as_dict(item.get("thumbnail_asset"))
    url = (
        as_str(preview.get("url"))
        or as_str(item.get("preview_url"))
        or as_str(thumbnail.get("url"))
        or as_str(item.get("thumbnail_url"))
    )
    return AttachmentPart(
        kind=file_kind(item.get("file_kind"), name),
        asset_pointer=file_uuid or url,
        name=name,
        mime_type=_mime(item.get("file_type") or item.get("mime_type"), name),
        width=as_int(preview.get("image_width")),
        height=as_int(preview.get("image_height")),
    )


# ---------------------------------------------------------------- artifact edits


def resolve_artifact_edits(messages: list[Message], ctx: PartContext) -> None:
    """Turn `update` edits (old_str -> new_str) into full versions, following each branch.

    Messages come parents first, so a message starts from its parent's artifact
    state; an edit whose base or old text cannot be found stays a plain tool call.
    """
    if not ctx.artifact_edits:
        return
    state_after: dict[str | None, dict[str, str]] = {None: {}}
    for msg in messages:
        state = state_after.get(msg.parent, {})
        for index, part in enumerate(msg.parts):
            if not isinstance(part, ArtifactPart) or not part.artifact_id:
                continue
            edit = ctx.artifact_edits.get(id(part))
            if edit is None:
                state = {**state, part.artifact_id: part.content}
                continue
            spec = edit[1]
            base, old, new = state.get(part.artifact_id), spec.get("old_str"), spec.get("new_str")
            if (
                isinstance(base, str)
                and isinstance(old, str)
                and isinstance(new, str)
                and old
                and old in base
            ):
                part.content = base.replace(old, new, 1)
                state = {**state, part.artifact_id: part.content}
            else:
                ctx.warnings.add(
                    "ARTIFACT_EDIT_UNRESOLVED",
                    "an artifact update did not match an earlier version; kept as a tool call",
                )
                msg.parts[index] = ToolCallPart(name=ARTIFACT_TOOL, arguments=raw_json(spec))
        state_after[msg.id] = state
