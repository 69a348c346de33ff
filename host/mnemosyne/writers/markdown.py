"""Markdown for Obsidian and any CommonMark reader.

YAML front matter, `# Title`, the instructions, then one `## User` /
`## Assistant` section per visible message on the chosen path (tool turns as
`### Tool` subsections of the assistant turn). Message text stays Markdown but is
made inert by md_safety: HTML escaped, images not loaded, only http(s)/mailto
links, its headings moved below level 3 so it cannot fake a turn. Everything
Mnemosyne adds around it (fences, code spans, link targets) is built so content
cannot break out of it. Reasoning and extracted attachment
text go in folded Obsidian callouts (plain blockquotes elsewhere). Citation
links are footnotes collected at the end; only http(s) URLs become links.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from urllib.parse import quote

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
from . import frontmatter
from .common import (
    INSTRUCTION_LABELS,
    human_size,
    is_tool_turn,
    is_web_url,
    role_label,
    title_of,
    tool_turn_name,
    visible_path,
)
from .fences import close_open_fence, fenced, inline_code
from .md_safety import plain, safe_markdown

NAME = "markdown"
EXTENSION = ".md"
MEDIA_TYPE = "text/markdown"

_ARTIFACT_LANGUAGES = {
    "text/markdown": "markdown",
    "text/html": "html",
    "image/svg+xml": "svg",
    "application/vnd.ant.mermaid": "mermaid",
    "application/vnd.ant.react": "jsx",
}


def link(label: str | None, url: str | None) -> str:
    """`[label](<url>)` for http(s) URLs; anything else stays inert text."""
    text = plain(label or "")
    if is_web_url(url):
        return f"[{text or 'link'}](<{url}>)"
    if url:
        return f"{text} ({inline_code(url)})" if text else inline_code(url)
    return text


def callout(kind: str, title: str, body: str, folded: bool = True) -> str:
    head = f"> [!{kind}]{'-' if folded else ''} {plain(title) if title else ''}".rstrip()
    lines = [f"> {line}" if line else ">" for line in safe_markdown(close_open_fence(body)).splitlines()]
    return "\n".join([head, *lines])


class Footnotes:
    """Numbered citation links, one per distinct target, defined at the end; and the local files that hold
    attachments (`mnemo export`: sha256 -> a relative path), which attachments link to."""

    def __init__(self, files: Mapping[str, str] | None = None) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self.files = files or {}

    def ref(self, title: str | None, url: str | None) -> str:
        key = (" ".join((title or "").split()), url or "")
        if key not in self.numbers:
            self.numbers[key] = len(self.numbers) + 1
        return f"[^{self.numbers[key]}]"

    def refs(self, citations: list[Citation]) -> str:
        marks = [self.ref(c.title, c.url) for c in citations if c.title or c.url]
        return "Sources: " + " ".join(dict.fromkeys(marks)) if marks else ""

    def definitions(self) -> str:
        return "\n".join(f"[^{n}]: {link(title or url, url)}" for (title, url), n in self.numbers.items())


def _arguments_block(arguments: object) -> str:
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            return fenced(arguments)
        arguments = parsed
    return fenced(json.dumps(arguments, ensure_ascii=False, indent=2), "json")


def _attachment(part: AttachmentPart, files: Mapping[str, str]) -> str:
    details = [part.mime_type, human_size(part.size_bytes)]
    if part.width and part.height:
        details.append(f"{part.width}×{part.height}")
    shown = ", ".join(d for d in details if d)
    label = part.name or part.asset_pointer or "unnamed"
    local = files.get(part.sha256) if part.sha256 else None
    if local:  # our own relative path, percent-encoded: the name cannot break out of the link
        target = quote(local)
        bang = "!" if part.kind == "image" else ""
        line = f"- {part.kind.capitalize()}: {bang}[{plain(label) or 'file'}]({target})"
    else:
        line = f"- {part.kind.capitalize()}: {inline_code(label)}"
    line += f" ({shown})" if shown else ""
    if part.extracted_text:
        line += "\n\n" + callout("quote", "Extracted text", part.extracted_text)
    return line


def _reasoning(part: ReasoningPart) -> str:
    title = "Thinking"
    if part.duration_sec is not None:
        title += f" ({part.duration_sec:.0f} s)"
    if part.truncated:
        title += " (truncated)"
    body = "\n\n".join(t for t in (part.summary, part.text) if t and t.strip())
    return callout("abstract", title, body)


def render_part(part: Part, notes: Footnotes, tool_heading: str | None = None) -> str:
    """One part; `tool_heading` is the tool named by the section heading, not repeated."""
    if isinstance(part, TextPart):
        refs = notes.refs(part.citations)
        return "\n\n".join(x for x in (safe_markdown(close_open_fence(part.text.strip("\n"))), refs) if x)
    if isinstance(part, CodePart):
        return fenced(part.code, part.language)
    if isinstance(part, CodeOutputPart):
        images = "\n".join(f"- Image: {inline_code(i)}" for i in part.images)
        return "\n\n".join(x for x in ("Output:", fenced(part.text) if part.text else "", images) if x)
    if isinstance(part, AttachmentPart):
        return _attachment(part, notes.files)
    if isinstance(part, ToolCallPart):
        return f"**Tool call:** {inline_code(part.name)}\n\n{_arguments_block(part.arguments)}"
    if isinstance(part, ToolResultPart):
        head = "**Tool error**" if part.is_error else "**Tool result**"
        head += f" ({inline_code(part.name)})" if part.name else ""
        if tool_heading is not None and part.name in (None, tool_heading) and not part.is_error:
            head = ""
        return "\n\n".join(x for x in (head, fenced(part.output), notes.refs(part.citations)) if x)
    if isinstance(part, ReasoningPart):
        return _reasoning(part)
    if isinstance(part, CitationPart):
        ref = notes.ref(part.title, part.url) if (part.title or part.url) else ""
        source = f"— {plain(part.title or 'Source')}{ref}" if ref else ""
        return callout("quote", "", "\n".join(x for x in (part.text, source) if x), folded=False)
    if isinstance(part, ArtifactPart):
        return _artifact(part)
    if isinstance(part, SystemErrorPart):
        return callout("error", part.name or "Error", part.text, folded=False)
    if isinstance(part, UnknownPart):
        return f"*(content of type {inline_code(part.source_type)} is not shown)*"
    return ""


def _artifact(part: ArtifactPart) -> str:
    details = ", ".join(
        x for x in (part.kind, f"version {part.version}" if part.version else None, part.command) if x
    )
    head = f"**Artifact: {plain(part.title or part.artifact_id or 'untitled')}**"
    head += f" ({details})" if details else ""
    kind = part.kind or ""
    language = (
        part.language or _ARTIFACT_LANGUAGES.get(kind) or (kind[5:] if kind.startswith("code/") else None)
    )
    return f"{head}\n\n{fenced(part.content, language)}"


def render_message(msg: Message, notes: Footnotes, heading: bool = True) -> str:
    body = ""
    previous: Part | None = None
    tool_heading = (tool_turn_name(msg) or "") if is_tool_turn(msg) else None
    for part in msg.parts:
        rendered = render_part(part, notes, tool_heading)
        if not rendered.strip():
            continue
        # attachments in a row form one tight list
        tight = (
            isinstance(part, AttachmentPart)
            and isinstance(previous, AttachmentPart)
            and not previous.extracted_text
        )
        body += ("\n" if tight else "\n\n") + rendered if body else rendered
        previous = part
    if not body:
        return ""
    if not heading:
        return body
    level = "###" if is_tool_turn(msg) else "##"
    return f"{level} {plain(role_label(msg))}\n\n{body}"


def _front_matter(conv: Conversation, branch: str | None) -> str:
    def time(value: datetime | None) -> str | None:
        return format_time(value) if value else None

    return frontmatter.render(
        [
            ("title", title_of(conv)),
            ("source", conv.source.site),
            ("url", conv.source.url),
            ("conversation_id", conv.source.conversation_id),
            ("mnemosyne_id", conv.id),
            ("created", time(conv.created_at)),
            ("updated", time(conv.updated_at)),
            ("model", conv.default_model),
            ("project", conv.source.project),
            ("branch", branch),
            ("tags", ["mnemosyne", conv.source.site]),
        ]
    )


def _instructions(conv: Conversation) -> str:
    blocks = []
    for ins in conv.instructions:
        if ins.text.strip():
            label = INSTRUCTION_LABELS[ins.kind] + (f": {plain(ins.title)}" if ins.title else "")
            blocks.append(f"### {label}\n\n{safe_markdown(close_open_fence(ins.text.strip(chr(10))))}")
    return "## Instructions\n\n" + "\n\n".join(blocks) if blocks else ""


def write(conv: Conversation, *, branch: str | None = None, files: Mapping[str, str] | None = None) -> str:
    """`files`: sha256 -> the relative path of the file holding an attachment's bytes (`mnemo export`)."""
    notes = Footnotes(files)
    sections = [f"# {plain(title_of(conv))}", _instructions(conv)]
    previous = ""
    for msg in visible_path(conv, branch):
        # one heading for a run of messages from the same role (thinking, code, answer)
        label = "" if is_tool_turn(msg) else role_label(msg)
        rendered = render_message(msg, notes, heading=not label or label != previous)
        if rendered:
            sections.append(rendered)
            previous = label
    sections.append(notes.definitions())
    # one join makes the document: front matter and the final newline added around it would copy it twice
    written = [s for s in sections if s]  # (the title is always there)
    written[0] = f"{_front_matter(conv, branch)}\n{written[0]}"
    written[-1] += "\n"
    return "\n\n".join(written)
