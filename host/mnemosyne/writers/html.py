"""A standalone HTML page that stays inert whatever the transcript holds.

Transcripts are hostile by default (chatgpt-exporter#95, DiscordChatExporter
#1567): every piece of text goes through html.escape(quote=True), message text
is shown as text (pre-wrap), never rendered as Markdown or HTML; links exist
only for http(s) URLs; there is no script, and a Content-Security-Policy
forbids scripts, remote loads and everything but inline CSS and data: images
in case something slipped through. The page is built by joining strings, never
by template substitution (no `$'` or `\\1` surprises).
"""

from __future__ import annotations

import json
from html import escape

from ..model import (
    ArtifactPart,
    AttachmentPart,
    Citation,
    CitationPart,
    CodeOutputPart,
    CodePart,
    Conversation,
    Message,
    Part,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
    format_time,
)
from .common import (
    INSTRUCTION_LABELS,
    human_size,
    is_tool_turn,
    is_web_url,
    role_label,
    title_of,
    visible_path,
)
from .fences import info_string

NAME = "html"
EXTENSION = ".html"
MEDIA_TYPE = "text/html"

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_CSS = """
body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}
h1{font-size:1.6rem;margin-bottom:.3rem}dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;color:#59636e;font-size:.85rem}
dl.meta dd{margin:0;overflow-wrap:anywhere}article,section.instructions{border-top:1px solid #d1d9e0;padding:.5rem 0}
article h2,section h2{font-size:1rem;margin:.6rem 0}article.user h2{color:#0969da}article.assistant h2{color:#8250df}
article.tool{margin-left:1.5rem;font-size:.9rem}article.tool h2{color:#59636e}
.text{white-space:pre-wrap;overflow-wrap:anywhere}pre{background:#f6f8fa;padding:.7rem;overflow:auto;white-space:pre-wrap}
.label{font-size:.8rem;color:#59636e;margin-top:.6rem}.error{border-left:3px solid #cf222e;padding-left:.6rem}
blockquote{border-left:3px solid #d1d9e0;margin:.5rem 0;padding-left:.8rem;color:#404850}details{margin:.5rem 0}
summary{cursor:pointer;color:#59636e}.note{color:#59636e;font-style:italic}ol.sources{font-size:.85rem}
"""


def esc(text: str | None) -> str:
    return escape(text or "", quote=True)


def link(label: str | None, url: str | None) -> str:
    if is_web_url(url):
        return f'<a href="{esc(url)}" rel="noopener noreferrer nofollow">{esc(label or url)}</a>'
    return esc(" ".join(x for x in (label, f"({url})" if url and label else url) if x))


def _sources(citations: list[Citation]) -> str:
    items = [f"<li>{link(c.title or c.url, c.url)}</li>" for c in citations if c.title or c.url]
    return f'<ol class="sources">{"".join(items)}</ol>' if items else ""


def _pre(body: str, language: str | None = None) -> str:
    lang = info_string(language)
    attr = f' data-language="{esc(lang)}"' if lang else ""
    return f"<pre{attr}><code>{esc(body)}</code></pre>"


def _label(text: str) -> str:
    return f'<div class="label">{text}</div>'


def _arguments(arguments: object) -> str:
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            return _pre(arguments)
        arguments = parsed
    return _pre(json.dumps(arguments, ensure_ascii=False, indent=2), "json")


def _attachment(part: AttachmentPart) -> str:
    details = ", ".join(x for x in (part.mime_type, human_size(part.size_bytes)) if x)
    line = f'<p class="attachment">{esc(part.kind.capitalize())}: <code>{esc(part.name or part.asset_pointer or "unnamed")}</code>'
    line += f" ({esc(details)})</p>" if details else "</p>"
    if part.extracted_text:
        line += f'<details><summary>Extracted text</summary><div class="text">{esc(part.extracted_text)}</div></details>'
    return line


def render_part(part: Part) -> str:
    if isinstance(part, TextPart):
        return f'<div class="text">{esc(part.text.strip(chr(10)))}</div>{_sources(part.citations)}'
    if isinstance(part, CodePart):
        return (_label(esc(part.language)) if part.language else "") + _pre(part.code, part.language)
    if isinstance(part, CodeOutputPart):
        images = "".join(f'<p class="note">Image: <code>{esc(i)}</code></p>' for i in part.images)
        return _label("Output") + (_pre(part.text) if part.text else "") + images
    if isinstance(part, AttachmentPart):
        return _attachment(part)
    if isinstance(part, ToolCallPart):
        return _label(f"Tool call: <code>{esc(part.name)}</code>") + _arguments(part.arguments)
    if isinstance(part, ToolResultPart):
        head = ("Tool error" if part.is_error else "Tool result") + (
            f": <code>{esc(part.name)}</code>" if part.name else ""
        )
        return f'<div class="{"error" if part.is_error else "result"}">{_label(head)}{_pre(part.output)}</div>{_sources(part.citations)}'
    if isinstance(part, ReasoningPart):
        title = "Thinking" + (f" ({part.duration_sec:.0f} s)" if part.duration_sec is not None else "")
        body = "\n\n".join(t for t in (part.summary, part.text) if t and t.strip())
        return f'<details class="reasoning"><summary>{esc(title)}</summary><div class="text">{esc(body)}</div></details>'
    if isinstance(part, CitationPart):
        source = (
            f"<footer>— {link(part.title or part.url, part.url)}</footer>" if part.title or part.url else ""
        )
        return f'<blockquote><div class="text">{esc(part.text)}</div>{source}</blockquote>'
    if isinstance(part, ArtifactPart):
        details = ", ".join(x for x in (part.kind, f"version {part.version}" if part.version else None) if x)
        title = f"Artifact: {part.title or part.artifact_id or 'untitled'}" + (
            f" ({details})" if details else ""
        )
        return f'<details open class="artifact"><summary>{esc(title)}</summary>{_pre(part.content, part.language)}</details>'
    if isinstance(part, SystemErrorPart):
        return f'<div class="error">{_label(esc(part.name or "Error"))}<div class="text">{esc(part.text)}</div></div>'
    if isinstance(part, UnknownPart):
        return f'<p class="note">Content of type <code>{esc(part.source_type)}</code> is not shown.</p>'
    return ""


def render_message(msg: Message) -> str:
    body = "".join(render_part(p) for p in msg.parts)
    if not body:
        return ""
    css = "tool" if is_tool_turn(msg) else msg.role
    return f'<article class="{css}"><h2>{esc(role_label(msg))}</h2>{body}</article>\n'


def _meta(conv: Conversation) -> str:
    rows = [
        ("Source", esc(conv.source.site)),
        ("Link", link(conv.source.url, conv.source.url) if conv.source.url else ""),
    ]
    rows += [
        ("Model", esc(conv.default_model)),
        ("Created", esc(format_time(conv.created_at)) if conv.created_at else ""),
    ]
    rows += [
        ("Updated", esc(format_time(conv.updated_at)) if conv.updated_at else ""),
        ("Mnemosyne id", esc(conv.id)),
    ]
    return '<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows if v) + "</dl>"


def _instructions(conv: Conversation) -> str:
    blocks = [
        f"<details><summary>{esc(INSTRUCTION_LABELS[i.kind] + (': ' + i.title if i.title else ''))}</summary>"
        f'<div class="text">{esc(i.text)}</div></details>'
        for i in conv.instructions
        if i.text.strip()
    ]
    return (
        f'<section class="instructions"><h2>Instructions</h2>{"".join(blocks)}</section>\n' if blocks else ""
    )


def write(conv: Conversation, *, branch: str | None = None) -> str:
    title = esc(title_of(conv))
    head = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'  # our constant: no quotes to escape
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n"
    )
    body = f"<body>\n<header><h1>{title}</h1>{_meta(conv)}</header>\n<main>\n{_instructions(conv)}"
    body += "".join(render_message(m) for m in visible_path(conv, branch))
    return head + body + "</main>\n</body>\n</html>\n"
