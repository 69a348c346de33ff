"""Gemini: the site's own read of one conversation, batchexecute rpc `hNvQHb` (gemini.google.com).

The reply is positional JSON, no keys: [turns, page token, ...]; a turn is
[[conversation id, response id], ..., user, response, [seconds, nanos]] with the prompt's text in
user[0] and the answer's candidates ("drafts") in response[0], each [rc id, [markdown], ...; 37:
[[thinking]]], the one shown in response[3] and the model's name in response[21]. Longer conversations
come in pages: the extension sends every page's response, as text, in one object:

    {"format": "batchexecute", "rpcid": "hNvQHb", "conversation_id": "c_…", "title": "…",
     "responses": [")]}'\\n\\n…", …]}

A response saved from the browser's devtools (the `)]}'` text itself) is read the same way. The
positions are what the site sent in 2026; text at any other place is kept (leftover.py), never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from ..errors import InputError
from ..model import (
    ArtifactPart,
    AttachmentPart,
    Citation,
    Conversation,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    UnknownPart,
)
from . import batchexecute
from .base import RawInput, ReadContext, ReadFailure, Warnings, build
from .leftover import TextLedger

NAME = "gemini"
DESCRIPTION = "Gemini conversation (batchexecute hNvQHb responses: the extension's save or a devtools copy)"

RPC_READ = "hNvQHb"
CHAT_URL = "https://gemini.google.com/app/{}"
_IMAGE_HOST = re.compile(r"^https://[a-z0-9.-]*googleusercontent\.com/", re.I)
_FAVICON = re.compile(r"^https://[a-z0-9.-]*gstatic\.com/favicon", re.I)
_URL = re.compile(r"^https?://\S+$")
_REPORT_MIN = 1500  # a Deep Research report is kept as a document of its own, not as an unknown blob


def wrap(text: str) -> dict[str, Any]:
    """A devtools copy of a response in the shape the extension sends."""
    return {"format": "batchexecute", "rpcid": RPC_READ, "responses": [text]}


def detect(raw: RawInput) -> bool:
    data = raw.data
    return isinstance(data, dict) and data.get("format") == "batchexecute" and data.get("rpcid") == RPC_READ


def at(value: Any, *path: int) -> Any:
    """value[p0][p1]... or None when a position is missing or not a list."""
    for index in path:
        if not isinstance(value, list) or not -len(value) <= index < len(value):
            return None
        value = value[index]
    return value


def _text(value: Any) -> str:
    """A text the site sends as a string or a list of string chunks."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return ""


def _time(value: Any) -> datetime | None:
    seconds = at(value, 0)
    if type(seconds) is not int or not 0 < seconds < 10**11:
        return None
    nanos = at(value, 1)
    micros = nanos // 1000 if type(nanos) is int and 0 <= nanos < 10**9 else 0
    return datetime.fromtimestamp(seconds, tz=timezone.utc).replace(microsecond=micros)


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    data = raw.data
    responses = data.get("responses") if isinstance(data, dict) else None
    if not isinstance(responses, list) or not responses:
        raise InputError(f"{raw.name}: no batchexecute responses (expected a non-empty list of texts)")
    turns: list[list[Any]] = []
    for n, text in enumerate(responses):
        if not isinstance(text, str):
            raise InputError(f"{raw.name}: response {n} is a {type(text).__name__}, not the response text")
        for reply in batchexecute.replies(text, RPC_READ, f"{raw.name} response {n}"):
            listed = at(reply, 0)
            if not isinstance(listed, list):
                raise InputError(f"{raw.name}: the {RPC_READ} reply holds no list of turns")
            turns.extend(listed)
    yield convert(turns, raw.raw, ctx, data)


def convert(turns: list[Any], raw: bytes, ctx: ReadContext, meta: dict[str, Any]) -> Conversation:
    warnings = Warnings()
    unique: dict[str, tuple[int, list[Any]]] = {}
    conversation: str | None = None
    for n, turn in enumerate(turns):
        ids = at(turn, 0)
        if not isinstance(ids, list) or not isinstance(at(ids, 1), str) or not isinstance(at(turn, 3), list):
            raise InputError(
                f"turn {n} is not a Gemini turn ([[conversation, response], …, user, answer, time])"
            )
        conversation = conversation or (ids[0] if isinstance(ids[0], str) else None)
        if ids[1] in unique:
            warnings.add("DUPLICATE_MESSAGE", "a turn sent in two pages was read once")
        unique.setdefault(ids[1], (n, turn))
    if not unique:
        raise InputError("the conversation holds no turns")
    # oldest first by the turn's time; the site's list order breaks ties
    ordered = sorted(unique.values(), key=lambda item: (_sort_time(item[1]), item[0]))
    messages: list[Message] = []
    parent: str | None = None
    leaf: str | None = None
    for _, turn in ordered:
        made, leaf = _turn_messages(turn, parent, warnings)
        messages.extend(made)
        parent = leaf
    source_id = _meta_str(meta, "conversation_id") or conversation
    models = [m.model for m in messages if m.model]
    return build(
        site="gemini",
        source_id=source_id,
        reader="gemini.api",
        method="site_api",
        raw=raw,
        ctx=ctx,
        messages=messages,
        title=_meta_str(meta, "title"),
        url=CHAT_URL.format(source_id.removeprefix("c_")) if source_id else None,
        created_at=messages[0].created_at,
        updated_at=max((m.created_at for m in messages if m.created_at), default=None),
        default_model=models[-1] if models else None,
        active_leaf=leaf,
        warnings=warnings,
    )


def _meta_str(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _sort_time(turn: list[Any]) -> float:
    when = _time(at(turn, 4))
    return when.timestamp() if when else float("inf")


def _turn_messages(turn: list[Any], parent: str | None, warnings: Warnings) -> tuple[list[Message], str]:
    """The prompt and every answer candidate of one turn, and the id of the candidate the site shows."""
    ledger = TextLedger()
    response_id = turn[0][1]
    when = _time(at(turn, 4))
    user = at(turn, 2)
    prompt = _text(at(user, 0))
    ledger.note(prompt)
    user_parts: list[Part] = [TextPart(text=prompt, format="plain")] if prompt.strip() else []
    user_parts += _images(user)
    user_id = f"{response_id}:prompt"
    messages = [Message(id=user_id, parent=parent, role="user", created_at=when, parts=user_parts)]
    answer = turn[3]
    model = at(answer, 21) if isinstance(at(answer, 21), str) else None
    ledger.note(model)
    candidates = [c for c in (at(answer, 0) or []) if isinstance(at(c, 0), str)]
    shown = at(answer, 3) if isinstance(at(answer, 3), str) else None
    answers = [_candidate(c, user_id, model, when, ledger) for c in candidates]
    chosen = next((m for m in answers if m.id == shown), answers[0] if answers else None)
    if chosen is None:  # an answer the site has not written yet (or a shape it no longer sends)
        chosen = Message(
            id=f"{response_id}:answer", parent=user_id, role="assistant", model=model, created_at=when
        )
        answers.append(chosen)
        warnings.add("GEMINI_NO_ANSWER", "a turn without an answer candidate")
    for text in ledger.missing(turn):
        chosen.parts.append(_leftover(text, warnings))
    messages.extend(answers)
    return messages, chosen.id


def _candidate(
    candidate: list[Any], user_id: str, model: str | None, when: datetime | None, ledger: TextLedger
) -> Message:
    parts: list[Part] = []
    thinking = _text(at(candidate, 37, 0, 0))
    if thinking.strip():
        parts.append(ReasoningPart(text=thinking))
        ledger.note(thinking)
    markdown = _text(at(candidate, 1))
    citations = _citations(candidate)
    for cite in citations:
        ledger.note(cite.title)
        ledger.note(cite.snippet)
    if markdown.strip() or citations:
        parts.append(TextPart(text=markdown, citations=citations))
        ledger.note(markdown)
    parts += _images(candidate)
    return Message(
        id=candidate[0], parent=user_id, role="assistant", model=model, created_at=when, parts=parts
    )


def _lists(value: Any, depth: int = 0) -> Iterator[list[Any]]:
    if isinstance(value, list) and depth < 60:
        yield value
        for item in value:
            yield from _lists(item, depth + 1)


def _images(value: Any) -> list[Part]:
    """Uploaded or generated images: googleusercontent links anywhere in the record, each once."""
    seen: dict[str, None] = {}
    for found in _lists(value):
        for item in found:
            if isinstance(item, str) and _IMAGE_HOST.match(item) and not any(c.isspace() for c in item):
                seen.setdefault(item, None)
    return [AttachmentPart(kind="image", asset_pointer=url) for url in seen]


def _citations(candidate: list[Any]) -> list[Citation]:
    """Search sources: a list holding a web link and, beside it, the page's title (and snippet)."""
    out: dict[str, Citation] = {}
    for found in _lists(candidate[2:]):
        urls = [s for s in found if isinstance(s, str) and _URL.match(s) and not _IMAGE_HOST.match(s)]
        urls = [u for u in urls if not _FAVICON.match(u)]
        texts = [s for s in found if isinstance(s, str) and s.strip() and not _URL.match(s)]
        if len(urls) == 1 and texts and urls[0] not in out:
            out[urls[0]] = Citation(url=urls[0], title=texts[0], snippet=texts[1] if len(texts) > 1 else None)
    return list(out.values())


def _leftover(text: str, warnings: Warnings) -> Part:
    if len(text) >= _REPORT_MIN and "\n" in text and text.lstrip().startswith("#"):
        title = text.lstrip().splitlines()[0].lstrip("#").strip() or None
        return ArtifactPart(kind="text/markdown", title=title, content=text)
    warnings.add(
        "GEMINI_UNKNOWN_TEXT", "text at a place of the Gemini reply this reader does not know (kept)"
    )
    return UnknownPart(source_type="gemini.text", raw=text)
