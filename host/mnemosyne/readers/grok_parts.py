"""The parts of one grok.com response (a `load-responses` item, or an answer assembled from the stream):
its Markdown, thinking, web search results, generated and attached images and files. Fields the site
fills with things this reader cannot render are kept whole as unknown parts and counted."""

from __future__ import annotations

from typing import Any

from ..model import AttachmentPart, CitationPart, Part, ReasoningPart, TextPart, UnknownPart
from .base import Warnings, parse_time, raw_json
from .json_values import as_dict, as_list, as_str, media_kind

ASSETS_URL = "https://assets.grok.com/"

# Bookkeeping, layout and empty-by-design fields of a response: nothing a reader of the chat would see
_META = {
    "responseId",
    "message",
    "sender",
    "createTime",
    "parentResponseId",
    "manual",
    "partial",
    "shared",
    "query",
    "queryType",
    "isControl",
    "metadata",
    "uiLayout",
    "model",
    "mediaTypes",
    "requestMetadata",
    "thinkingTrace",
    "thinkingStartTime",
    "thinkingEndTime",
    "webSearchResults",
    "citedWebSearchResults",
    "generatedImageUrls",
    "imageAttachments",
    "fileAttachments",
    "fileAttachmentsMetadata",
    "fileUris",
    "xpostIds",
    "webpageUrls",
    "steps",
    "isThinking",
    "isSoftStop",
    "responseStatus",
    "streamErrors",
    "conversationId",
    "status",
    "inflightResponses",
    "imageEditUris",
    "hasError",
    "error",
}
# Fields that hold content this reader does not render: kept as unknown parts when not empty
_OPAQUE = (
    "toolResponses", "cardAttachmentsJson", "xposts", "ragResults", "citedRagResults", "searchProductResults",
    "connectorSearchResults", "collectionSearchResults", "highlightsStories",
)  # fmt: skip


def _asset_url(path: str) -> str:
    return path if path.startswith(("https://", "http://")) else ASSETS_URL + path.lstrip("/")


def reasoning(response: dict[str, Any]) -> ReasoningPart | None:
    trace = as_str(response.get("thinkingTrace"))
    if not trace:
        return None
    start, end = parse_time(response.get("thinkingStartTime")), parse_time(response.get("thinkingEndTime"))
    duration = (end - start).total_seconds() if start and end and end >= start else None
    return ReasoningPart(text=trace, duration_sec=duration)


def steps(response: dict[str, Any], warnings: Warnings) -> list[Part]:
    """Grok's visible search and thinking steps: their text as reasoning, anything else kept."""
    parts: list[Part] = []
    for step in as_list(response.get("steps")):
        text = "\n".join(t for t in (as_str(x) for x in as_list(as_dict(step).get("text"))) if t)
        text = text or as_str(as_dict(step).get("text")) or as_str(as_dict(step).get("summary")) or ""
        if text:
            parts.append(ReasoningPart(text=text))
        else:
            warnings.add("GROK_UNKNOWN_STEP", "a grok.com thinking step with no text was kept as is")
            parts.append(UnknownPart(source_type="grok.step", raw=raw_json(step)))
    return parts


def search_results(response: dict[str, Any]) -> list[Part]:
    """The web pages Grok read, cited ones first, each once."""
    seen: set[str] = set()
    parts: list[Part] = []
    for key in ("citedWebSearchResults", "webSearchResults"):
        for item in as_list(response.get(key)):
            result = as_dict(item)
            url = as_str(result.get("url"))
            text = as_str(result.get("preview")) or as_str(result.get("description")) or ""
            title = as_str(result.get("title"))
            if not (url or text or title) or (url or title or text) in seen:
                continue
            seen.add(url or title or text)
            parts.append(CitationPart(title=title, url=url, text=text))
    for url in as_list(response.get("webpageUrls")):
        if isinstance(url, str) and url and url not in seen:
            seen.add(url)
            parts.append(CitationPart(url=url))
    return parts


def attachments(response: dict[str, Any]) -> list[Part]:
    """Uploaded files and images (by their file id, named from their metadata) and generated images."""
    parts: list[Part] = []
    names = {
        as_str(as_dict(m).get("fileMetadataId")): as_dict(m)
        for m in as_list(response.get("fileAttachmentsMetadata"))
    }
    for file_id in as_list(response.get("fileAttachments")):
        if not isinstance(file_id, str) or not file_id:
            continue
        meta = names.get(file_id, {})
        mime = as_str(meta.get("fileMimeType"))
        kind = media_kind(mime.split("/", 1)[0] if mime else None)
        parts.append(
            AttachmentPart(
                kind=kind, asset_pointer=file_id, name=as_str(meta.get("fileName")), mime_type=mime
            )
        )
    for key in ("imageAttachments", "generatedImageUrls", "imageEditUris"):
        for item in as_list(response.get(key)):
            path = item if isinstance(item, str) else as_str(as_dict(item).get("url"))
            if path:
                parts.append(
                    AttachmentPart(kind="image", asset_pointer=_asset_url(path), name=path.rsplit("/", 1)[-1])
                )
    return parts


def opaque(response: dict[str, Any], warnings: Warnings) -> list[Part]:
    """Content fields this reader cannot render, and fields it has never seen: kept whole, counted."""
    parts: list[Part] = []
    for key, value in response.items():
        if key in _META and key not in _OPAQUE:
            continue
        if value in (None, "", [], {}, False, 0):
            continue
        warnings.add("GROK_UNKNOWN_FIELD", f"grok.com response field {key!r} was kept as is")
        parts.append(UnknownPart(source_type=f"grok.{key}", raw=raw_json(value)))
    return parts


def response_parts(response: dict[str, Any], warnings: Warnings) -> list[Part]:
    """Thinking first (as the page shows it), then the answer, its sources, its files, and what is kept."""
    parts: list[Part] = []
    think = reasoning(response)
    if think:
        parts.append(think)
    parts.extend(steps(response, warnings))
    text = response.get("message")
    if isinstance(text, str) and text.strip():
        parts.append(TextPart(text=text))
    parts.extend(search_results(response))
    parts.extend(attachments(response))
    parts.extend(opaque(response, warnings))
    return parts


def as_response(value: Any) -> dict[str, Any] | None:
    """A response object of the site (it names its responseId)."""
    return value if isinstance(value, dict) and isinstance(value.get("responseId"), str) else None
