"""What the library filters and sorts by, computed from a stored document: stored in columns of
`conversations` at save time (and by migration m006 for conversations saved before it).

Computed from the document's JSON (the canonical form of model.Conversation), not from the pydantic
model: the migration fills an existing archive with json.loads alone, no validation of every document.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from . import derived_title

# a Markdown code fence at the start of a line (up to 3 spaces of indent, as CommonMark allows)
_FENCE = re.compile(r"(?:^|\n)[ \t]{0,3}(?:```|~~~)")
# the fields of each part type a reader reads as text: `length` is their characters
_TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "code": ("code",),
    "code_output": ("text",),
    "attachment": ("extracted_text",),
    "tool_call": (),  # its arguments are JSON, not prose
    "tool_result": ("output",),
    "reasoning": ("summary", "text"),
    "citation": ("title", "text"),
    "artifact": ("title", "content"),
    "system_error": ("text",),
}
COLUMNS = ("project", "model", "has_code", "has_attachments", "text_chars", "title_key", "derived_title")


class Facets(NamedTuple):  # not a dataclass: the archive is on the host's hello path
    project: str | None
    model: str | None
    has_code: int
    has_attachments: int
    text_chars: int  # characters of message text (the `length` order)
    title_key: str  # the title (else the derived title) case-folded (the `title` order)
    derived_title: str | None  # an untitled conversation's title from its first user message

    def values(self) -> tuple[Any, ...]:
        return tuple(self)


def title_key(title: str | None) -> str:
    return " ".join((title or "").casefold().split())


def _is_code(part: dict[str, Any]) -> bool:
    kind = part.get("type")
    if kind == "code":
        return True
    if kind == "artifact":
        return bool(part.get("language")) or "code" in str(part.get("kind") or "")
    if kind == "text":
        return bool(_FENCE.search(part.get("text") or ""))
    return False


def _model(document: dict[str, Any]) -> str | None:
    """The conversation's model, else the last model an assistant message names."""
    if document.get("default_model"):
        return str(document["default_model"])
    for message in reversed(document.get("messages") or []):
        if message.get("role") == "assistant" and message.get("model"):
            return str(message["model"])
    return None


def of_document(document: dict[str, Any]) -> Facets:
    derived = derived_title.of_document(document)
    has_code = has_attachments = False
    chars = 0
    for message in document.get("messages") or []:
        for part in message.get("parts") or []:
            kind = part.get("type")
            has_code = has_code or _is_code(part)
            has_attachments = has_attachments or kind == "attachment"
            chars += sum(len(part.get(name) or "") for name in _TEXT_FIELDS.get(kind, ()))
    return Facets(
        project=(document.get("source") or {}).get("project") or None,
        model=_model(document),
        has_code=int(has_code),
        has_attachments=int(has_attachments),
        text_chars=chars,
        title_key=title_key(document.get("title")) or title_key(derived),
        derived_title=derived,
    )


def of_json(document: str) -> Facets:
    return of_document(json.loads(document))
