"""ChatGPT message content -> Mnemosyne parts.

One function per `content.content_type` the site uses (see docs/sites.md, "ChatGPT").
Anything else is kept whole as an UnknownPart and counted in the warnings, so
a new site feature never disappears silently.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..model import (
    CitationPart,
    CodeOutputPart,
    CodePart,
    Part,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from .base import Warnings, raw_json, text_of
from .chatgpt_markers import resolve_markers
from .chatgpt_refs import (
    ASSET_KINDS,
    CANVAS_COMMANDS,
    add_uploads,
    attachment,
    canvas_part,
    deep_research,
    json_or_text,
    parts_text,
    search_results,
    text_citations,
)
from .json_values import as_dict, as_list, as_str

_DURATION = re.compile(r"(?:(\d+)\s*m(?:in(?:utes?)?)?\s*)?(\d+)\s*s(?:ec(?:onds?)?)?\b")


def recipient_of(msg: dict[str, Any]) -> str | None:
    recipient = as_str(msg.get("recipient"))
    return None if recipient in (None, "all") else recipient


# ---------------------------------------------------------------- content types


def _text(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    text = parts_text(content)
    recipient = recipient_of(msg)
    if ctx.role == "tool":
        return [ToolResultPart(name=ctx.author, output=text, citations=search_results(ctx.metadata))]
    if recipient in CANVAS_COMMANDS:
        return [canvas_part(recipient, text)]
    if recipient == "python":  # newer models send python as plain text on the commentary channel
        return [CodePart(code=text, language="python")]
    if recipient and ctx.role == "assistant":  # the model addressed a tool (bio, web.run ...) in plain text
        return [ToolCallPart(name=recipient, arguments=json_or_text(text))]
    return (
        [
            TextPart(
                text=resolve_markers(text, ctx.metadata, ctx.warnings), citations=text_citations(ctx.metadata)
            )
        ]
        if text
        else []
    )


def _multimodal(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    out: list[Part] = []
    for item in as_list(content.get("parts")):
        if isinstance(item, str):
            if item:
                out.append(TextPart(text=resolve_markers(item, ctx.metadata, ctx.warnings)))
            continue
        item = as_dict(item)
        kind = item.get("content_type")
        if kind == "audio_transcription":  # what was said in voice mode: the turn's real text
            if as_str(item.get("text")):
                out.append(TextPart(text=item["text"], format="plain"))
        elif kind in ASSET_KINDS:
            out.append(attachment(item))
        else:
            out.append(_unknown(f"multimodal_text/{kind}", item, ctx.warnings))
    return out


def _code(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    code = parts_text(content)
    recipient = recipient_of(msg)
    if ctx.role == "tool":  # a tool answering in a code block (old `web` search) is still its result
        return [ToolResultPart(name=ctx.author, output=code, citations=search_results(ctx.metadata))]
    if recipient in CANVAS_COMMANDS:
        return [canvas_part(recipient, code)]
    language = as_str(content.get("language"))
    if recipient in (None, "python"):
        if language in (None, "unknown"):
            language = recipient
        return [CodePart(code=code, language=language)]
    # Code addressed to any other tool (browser, web.run, dalle, canmore.comment ...) is that tool's call.
    return [ToolCallPart(name=recipient, arguments=json_or_text(code))]


def _execution_output(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    images = []
    for item in as_list(as_dict(ctx.metadata.get("aggregate_result")).get("messages")):
        url = as_str(as_dict(item).get("image_url"))
        if url:
            images.append(url)
    return [CodeOutputPart(text=parts_text(content), images=images)]


def _tether_quote(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    cited = [
        as_dict(i).get("title")
        for i in as_list(as_dict(ctx.metadata.get("_cite_metadata")).get("metadata_list"))
    ]
    title = as_str(content.get("title")) or as_str((cited or [None])[0]) or as_str(content.get("domain"))
    return [CitationPart(title=title, url=as_str(content.get("url")), text=parts_text(content))]


def _browsing_display(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    output = text_of(content.get("result")) or text_of(content.get("summary")) or parts_text(content)
    return [ToolResultPart(name=ctx.author, output=output, citations=search_results(ctx.metadata))]


def _sonic_webpage(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    text = text_of(content.get("text")) or text_of(content.get("snippet"))
    return [CitationPart(title=as_str(content.get("title")), url=as_str(content.get("url")), text=text)]


def _system_error(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    return [SystemErrorPart(name=as_str(content.get("name")), text=parts_text(content))]


def _thoughts(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    if "thoughts" not in content:
        return [ReasoningPart(text=parts_text(content))]
    out: list[Part] = []
    for thought in as_list(content.get("thoughts")):  # one part per thought keeps each summary with its text
        thought = as_dict(thought)
        if not (text_of(thought.get("content")) or as_str(thought.get("summary"))):
            continue
        out.append(
            ReasoningPart(
                text=text_of(thought.get("content")),
                summary=as_str(thought.get("summary")),
                truncated=thought.get("finished") is False,
            )
        )
    return out


def _reasoning_recap(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    summary = text_of(content.get("content")) or parts_text(content)
    duration = ctx.metadata.get("finished_duration_sec")
    if not isinstance(duration, (int, float)) or isinstance(duration, bool) or not math.isfinite(duration):
        match = _DURATION.search(summary)
        duration = int(match.group(1) or 0) * 60 + int(match.group(2)) if match else None
    return [ReasoningPart(summary=summary or None, duration_sec=duration)]


def context_texts(content: dict[str, Any]) -> list[tuple[str | None, str]]:
    """(title, text) pairs of a user_/model_editable_context node: custom instructions or memory."""
    pairs = [
        ("About the user", text_of(content.get("user_profile"))),
        ("How to respond", text_of(content.get("user_instructions"))),
        (None, text_of(content.get("model_set_context"))),
    ]
    found = [(title, text) for title, text in pairs if text.strip()]
    if not found and parts_text(content).strip():
        found.append((None, parts_text(content)))
    return found


def _editable_context(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    text = "\n\n".join(f"{title}:\n{text}" if title else text for title, text in context_texts(content))
    return [TextPart(text=text, format="plain")] if text else []


def _image_asset(msg: dict[str, Any], content: dict[str, Any], ctx: _Ctx) -> list[Part]:
    return [attachment(content)]


_HANDLERS: dict[str, Callable[[dict[str, Any], dict[str, Any], _Ctx], list[Part]]] = {
    "text": _text,
    "multimodal_text": _multimodal,
    "code": _code,
    "execution_output": _execution_output,
    "tether_quote": _tether_quote,
    "tether_browsing_display": _browsing_display,
    "sonic_webpage": _sonic_webpage,
    "system_error": _system_error,
    "thoughts": _thoughts,
    "reasoning_recap": _reasoning_recap,
    "user_editable_context": _editable_context,
    "model_editable_context": _editable_context,
    "image_asset_pointer": _image_asset,
}


# ---------------------------------------------------------------- helpers


class _Ctx:
    def __init__(self, msg: dict[str, Any], role: str, author: str | None, warnings: Warnings):
        self.role, self.author, self.warnings = role, author, warnings
        self.metadata = as_dict(msg.get("metadata"))


def _unknown(source_type: str, raw: Any, warnings: Warnings) -> UnknownPart:
    warnings.add("UNKNOWN_CONTENT_TYPE", f"content type {source_type!r} kept as an unknown part")
    return UnknownPart(source_type=source_type, raw=raw_json(raw))


def message_parts(msg: dict[str, Any], role: str, author: str | None, warnings: Warnings) -> list[Part]:
    ctx = _Ctx(msg, role, author, warnings)
    content = as_dict(msg.get("content"))
    kind = content.get("content_type")
    if kind is None and all(isinstance(p, str) for p in as_list(content.get("parts"))):
        kind = "text"  # trimmed third-party exports drop content_type; string parts are text
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    parts: list[Part] = handler(msg, content, ctx) if handler else [_unknown(str(kind), content, warnings)]
    add_uploads(parts, ctx.metadata)
    report = deep_research(ctx.metadata, warnings)
    if report:
        parts.append(report)
    elif as_dict(ctx.metadata.get("chatgpt_sdk")).get("widget_state"):  # an embedded app we cannot read yet
        parts.append(_unknown("chatgpt_sdk.widget_state", ctx.metadata["chatgpt_sdk"], warnings))
    return parts
