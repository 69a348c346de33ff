"""ChatGPT references: citations, uploaded files and asset pointers, canvas
documents and Deep Research reports, read out of a message's content and metadata."""

from __future__ import annotations

import json
from typing import Any

from ..model import ArtifactPart, AttachmentKind, AttachmentPart, Citation, Conversation, Part
from .base import Warnings, text_of
from .chatgpt_markers import resolve_markers
from .json_values import as_dict, as_int, as_list, as_str, media_kind

ASSET_KINDS: dict[str, AttachmentKind] = {
    "image_asset_pointer": "image",
    "audio_asset_pointer": "audio",
    "video_asset_pointer": "video",
    "real_time_user_audio_video_asset_pointer": "audio",
}
CANVAS_COMMANDS = {"canmore.create_textdoc": "create", "canmore.update_textdoc": "update"}


def parts_text(content: dict[str, Any]) -> str:
    """The text of `parts` (strings joined), or `text` for content types that carry one string."""
    if "parts" in content:
        return "\n".join(t for t in (text_of(p) for p in as_list(content["parts"])) if t)
    return text_of(content.get("text"))


def json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


# ---------------------------------------------------------------- citations


def make_citation(
    title: Any, url: Any, snippet: Any = None, start: Any = None, end: Any = None
) -> Citation | None:
    if not (as_str(title) or as_str(url)):
        return None
    return Citation(
        title=as_str(title), url=as_str(url), snippet=as_str(snippet), start=as_int(start), end=as_int(end)
    )


def text_citations(metadata: dict[str, Any]) -> list[Citation]:
    """`metadata.citations` (2023-24 browsing) and `content_references` (2025 search) as Citation objects."""
    found: list[Citation] = []
    for item in as_list(metadata.get("citations")):
        item = as_dict(item)
        meta = as_dict(item.get("metadata"))
        cite = make_citation(
            meta.get("title"), meta.get("url"), meta.get("text"), item.get("start_ix"), item.get("end_ix")
        )
        if cite:
            found.append(cite)
    for ref in as_list(metadata.get("content_references")):
        ref = as_dict(ref)
        start, end = ref.get("start_idx"), ref.get("end_idx")
        sources = as_list(ref.get("items")) + as_list(ref.get("sources"))
        sources += [as_dict(img).get("image_result") for img in as_list(ref.get("images"))]
        for src in [ref, *sources]:
            src = as_dict(src)
            cite = make_citation(src.get("title"), src.get("url"), src.get("snippet"), start, end)
            if cite:
                found.append(cite)
    unique: dict[tuple[Any, ...], Citation] = {}
    for cite in found:
        unique.setdefault((cite.url, cite.title, cite.start, cite.end), cite)
    return list(unique.values())


def search_results(metadata: dict[str, Any]) -> list[Citation]:
    """Web results a tool returned: `search_result_groups` (web.run) or `_cite_metadata` (browser)."""
    found = []
    for group in as_list(metadata.get("search_result_groups")):
        for entry in as_list(as_dict(group).get("entries")):
            entry = as_dict(entry)
            found.append(make_citation(entry.get("title"), entry.get("url"), entry.get("snippet")))
    for item in as_list(as_dict(metadata.get("_cite_metadata")).get("metadata_list")):
        found.append(make_citation(as_dict(item).get("title"), as_dict(item).get("url")))
    return [c for c in found if c]


# ---------------------------------------------------------------- files


def attachment(item: dict[str, Any]) -> AttachmentPart:
    kind = ASSET_KINDS.get(as_str(item.get("content_type")) or "", "file")
    meta = as_dict(item.get("metadata"))
    source = item
    if item.get("content_type") == "real_time_user_audio_video_asset_pointer":
        video = as_dict(item.get("video_container_asset_pointer"))
        if video or as_list(item.get("frames_asset_pointers")):
            kind, source = "video", video or item
        else:
            source = as_dict(item.get("audio_asset_pointer")) or item
        meta = as_dict(source.get("metadata"))
    fmt = as_str(source.get("format"))
    transcript = as_dict(meta.get("transcription")).get("text")
    return AttachmentPart(
        kind=kind,
        asset_pointer=as_str(source.get("asset_pointer")),
        mime_type=f"{kind}/{fmt}" if fmt and kind != "image" else None,
        size_bytes=as_int(source.get("size_bytes")),
        width=as_int(source.get("width")) or as_int(meta.get("width")),
        height=as_int(source.get("height")) or as_int(meta.get("height")),
        extracted_text=as_str(transcript),
    )


def add_uploads(parts: list[Part], metadata: dict[str, Any]) -> None:
    """Files the user uploaded (`metadata.attachments`): name and type enrich the matching
    asset-pointer part; files with no such part (documents) become attachments of their own."""
    for item in as_list(metadata.get("attachments")):
        item = as_dict(item)
        file_id, mime = as_str(item.get("id")), as_str(item.get("mime_type"))
        if not file_id:
            continue
        same = (
            p for p in parts if isinstance(p, AttachmentPart) and (p.asset_pointer or "").endswith(file_id)
        )
        known = next(same, None)
        if known is None:
            top = (mime or "").split("/", 1)[0]
            known = AttachmentPart(kind=media_kind(top), asset_pointer=file_id)
            parts.append(known)
        known.name = known.name or as_str(item.get("name"))
        known.mime_type = known.mime_type or mime
        known.size_bytes = known.size_bytes or as_int(item.get("size"))
        known.width = known.width or as_int(item.get("width"))
        known.height = known.height or as_int(item.get("height"))


# ---------------------------------------------------------------- canvas and deep research


def canvas_part(recipient: str, text: str) -> ArtifactPart:
    """A canvas document the model created or edited: the JSON it sent to canmore."""
    command = CANVAS_COMMANDS[recipient]
    doc = json_or_text(text)
    if not isinstance(doc, dict):
        return ArtifactPart(command=command, content=text)
    kind = as_str(doc.get("type"))
    updates = [as_dict(u) for u in as_list(doc.get("updates"))]
    content = text_of(doc.get("content")) or "\n".join(text_of(u.get("replacement")) for u in updates)
    if command == "update" and len(updates) == 1 and updates[0].get("pattern") in (".*", "^.*$"):
        command = "rewrite"
    return ArtifactPart(
        artifact_id=as_str(doc.get("textdoc_id")),
        title=as_str(doc.get("name")),
        kind=kind,
        language=kind.split("/", 1)[1] if kind and kind.startswith("code/") else None,
        command=command,
        content=content,
    )


def deep_research(metadata: dict[str, Any], warnings: Warnings) -> ArtifactPart | None:
    """The Deep Research report: `chatgpt_sdk.widget_state` is a JSON string holding `report_message`.

    The report is an answer like any other, markers and all: they are resolved the same way."""
    state = as_dict(metadata.get("chatgpt_sdk")).get("widget_state")
    state = json_or_text(state) if isinstance(state, str) else state
    report = as_dict(state).get("report_message")
    if report is None:
        return None
    body = as_dict(report).get("content") if isinstance(report, dict) else report
    text = parts_text(body) if isinstance(body, dict) else text_of(body)
    text = resolve_markers(text, as_dict(as_dict(report).get("metadata")), warnings)
    title = as_str(as_dict(state).get("title")) or as_str(
        as_dict(as_dict(report).get("metadata")).get("title")
    )
    return (
        ArtifactPart(title=title or "Deep research report", kind="text/markdown", content=text)
        if text
        else None
    )


def link_assets(conv: Conversation, assets: dict[str, str]) -> None:
    """Name the export file that holds each attachment's bytes (`sediment://file_00ab` -> `file_00ab-....dat`)."""
    for message in conv.messages:
        for part in message.parts:
            if isinstance(part, AttachmentPart) and part.asset_pointer and not part.export_file:
                part.export_file = assets.get(part.asset_pointer.rsplit("/", 1)[-1])
