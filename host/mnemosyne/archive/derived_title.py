"""The title an untitled conversation is shown and sorted by: the start of its first user message, as the
plain words a reader sees (no Markdown marks), at most TITLE_CHARS characters, cut at a word.

Computed from the stored document's JSON (as facets.py is), at save time and by migration m011 for
conversations saved before it: the library lists a page of them without reading their messages.
"""

from __future__ import annotations

import re
from typing import Any

TITLE_CHARS = 80
# what is read of a long first message: enough for the title once its Markdown marks are gone
_READ_CHARS = 2000

# Markdown a person types into a chat box, removed so the words read as a title: code fences (their
# language tag too), images and links (their text stays), heading hashes, quote marks, list bullets and
# numbers, emphasis and inline-code marks.
_FENCE = re.compile(r"(?:```|~~~)[^\s`~]*")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LINE_MARK = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+)", re.MULTILINE)
_EMPHASIS = re.compile(r"\*\*|__|~~|`")
_SINGLE_OPEN = re.compile(r"(^|\s)[*_](?=\S)")
_SINGLE_CLOSE = re.compile(r"(?<=\S)[*_](?=\s|$|[.,;:!?)])")


def plain_words(text: str) -> str:
    """`text` without its Markdown marks, whitespace collapsed to single spaces."""
    text = _FENCE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    for _ in range(3):  # a quoted list item: "> - item"
        text = _LINE_MARK.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _SINGLE_OPEN.sub(r"\1", text)
    text = _SINGLE_CLOSE.sub("", text)
    return " ".join(text.split())


def shortened(words: str, limit: int = TITLE_CHARS) -> str:
    """At most `limit` characters: cut at the last space that keeps half of it, with an ellipsis."""
    if len(words) <= limit:
        return words
    cut = words[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def _first_user_text(document: dict[str, Any]) -> str:
    """The text parts of the first shown user message that has text."""
    for message in document.get("messages") or []:
        if message.get("role") != "user" or message.get("hidden"):
            continue
        texts = [
            str(part.get("text") or "") for part in message.get("parts") or [] if part.get("type") == "text"
        ]
        text = "\n".join(t for t in texts if t.strip())
        if text.strip():
            return text
    return ""


def of_document(document: dict[str, Any]) -> str | None:
    """The derived title of an untitled conversation; None when it has a title or no user text."""
    if " ".join(str(document.get("title") or "").split()):
        return None
    words = plain_words(_first_user_text(document)[:_READ_CHARS])
    return shortened(words) if words else None
