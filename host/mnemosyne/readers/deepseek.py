"""DeepSeek: the site's GET /api/v0/chat/history_messages?chat_session_id=… JSON (chat.deepseek.com).

The reply is {"code": 0, "data": {"biz_code": 0, "biz_data": {"chat_session": {...}, "chat_messages":
[...]}}} (the bare biz_data is read too). A message has an integer message_id and parent_id (edits and
regenerations branch), a role (USER / ASSISTANT) and its text as `fragments` ({type: REQUEST | RESPONSE |
THINK | SEARCH | ..., content, references, results, elapsed_secs}) or, in older replies, as `content`,
`thinking_content` and `search_results`. A fragment type this reader does not know is kept as an
`unknown` part and counted; text anywhere else in a message is kept too (leftover.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..model import (
    AttachmentKind,
    AttachmentPart,
    Citation,
    CitationPart,
    Conversation,
    Message,
    Part,
    ReasoningPart,
    Role,
    TextPart,
    UnknownPart,
)
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, parse_time
from .leftover import TextLedger

NAME = "deepseek"
DESCRIPTION = "DeepSeek chat/history_messages JSON (site API)"

CHAT_URL = "https://chat.deepseek.com/a/chat/s/{}"
_ROLES: dict[str, Role] = {"USER": "user", "ASSISTANT": "assistant", "SYSTEM": "system"}
_IMAGE_EXT = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".heic")
# message fields that hold no words of the conversation (ids, flags, states, the model's name)
_META_KEYS = (
    "message_id",
    "parent_id",
    "role",
    "model",
    "status",
    "inserted_at",
    "feedback",
    "conversation_mode",
)


def _biz_data(data: Any) -> Any:
    if isinstance(data, dict) and isinstance(data.get("data"), dict) and "biz_data" in data["data"]:
        return data["data"]["biz_data"]
    return data


def detect(raw: RawInput) -> bool:
    biz = _biz_data(raw.data)
    return isinstance(biz, dict) and "chat_messages" in biz and "chat_session" in biz


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    data = raw.data
    if isinstance(data, dict) and isinstance(data.get("data"), dict):
        envelope = data["data"]
        if data.get("code") not in (0, None) or envelope.get("biz_code") not in (0, None):
            why = envelope.get("biz_msg") or data.get("msg") or "no reason given"
            raise InputError(f"{raw.name}: the site answered with an error ({why})")
    biz = _biz_data(data)
    if not isinstance(biz, dict) or not isinstance(biz.get("chat_session"), dict):
        raise InputError(f"{raw.name}: not a DeepSeek history (no data.biz_data.chat_session object)")
    listed = biz.get("chat_messages")
    if not isinstance(listed, list):
        raise InputError(f"{raw.name}: chat_messages is a {type(listed).__name__}, not a list of messages")
    if not listed:  # the site answers an empty list when the page holds the conversation in its own cache
        raise InputError(
            f"{raw.name}: the history holds no message (cache_valid: {biz.get('cache_valid')!r})"
        )
    yield convert(biz["chat_session"], listed, raw.raw, ctx)


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or value == "":
        return None
    return str(value)


def convert(session: dict[str, Any], listed: list[Any], raw: bytes, ctx: ReadContext) -> Conversation:
    warnings = Warnings()
    records = [r for r in listed if isinstance(r, dict)]
    if len(records) < len(listed):
        warnings.add("SKIPPED_MESSAGES", "chat_messages entries that are not objects were skipped")
        if not records:
            raise InputError(f"none of the {len(listed)} chat_messages is an object")
    messages: list[Message] = []
    seen: set[str] = set()
    for n, record in enumerate(_parents_first(records)):
        message = _message(record, n, seen, warnings)
        seen.add(message.id)
        messages.append(message)
    session_id = _id(session.get("id"))
    leaf = _id(session.get("current_message_id"))
    models = [m.model for m in messages if m.model]
    return build(
        site="deepseek",
        source_id=session_id,
        reader="deepseek.api",
        method="site_api",
        raw=raw,
        ctx=ctx,
        messages=messages,
        title=_str(session.get("title")),
        url=CHAT_URL.format(session_id) if session_id else None,
        created_at=parse_time(session.get("inserted_at")),
        updated_at=parse_time(session.get("updated_at")),
        default_model=models[-1] if models else None,
        active_leaf=leaf if leaf in seen else None,
        warnings=warnings,
    )


def _parents_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ids grow as messages are written, so a parent comes before its children; the list order breaks ties."""

    def key(item: tuple[int, dict[str, Any]]) -> tuple[int, int]:
        value = item[1].get("message_id")
        return (value if type(value) is int else 1 << 62, item[0])

    return [record for _, record in sorted(enumerate(records), key=key)]


def _message(record: dict[str, Any], n: int, seen: set[str], warnings: Warnings) -> Message:
    message_id = _id(record.get("message_id"))
    if message_id is None or message_id in seen:
        warnings.add(
            "MISSING_MESSAGE_ID", "a message without a message_id (or a reused one) got an id of its own"
        )
        message_id = f"{message_id or 'message'}-{n}"
    parent = _id(record.get("parent_id"))
    if parent is not None and parent not in seen:
        warnings.add(
            "MISSING_PARENT", "a message whose parent is not in the history starts a branch of its own"
        )
        parent = None
    role = _ROLES.get(str(record.get("role") or "").upper())
    if role is None:
        raise InputError(f"message {message_id}: role {record.get('role')!r} is not USER or ASSISTANT")
    ledger = TextLedger()
    parts = _parts(record, role, ledger, warnings)
    parts += _files(record.get("files"), ledger)
    kept = {k: v for k, v in record.items() if k not in _META_KEYS}
    for text in ledger.missing(kept):
        warnings.add(
            "DEEPSEEK_UNKNOWN_TEXT", "text at a place of a DeepSeek message this reader does not know (kept)"
        )
        parts.append(UnknownPart(source_type="deepseek.text", raw=text))
    status = _str(record.get("status"))
    return Message(
        id=message_id,
        parent=parent,
        role=role,
        model=_str(record.get("model")),
        status=status.lower() if status else None,
        created_at=parse_time(record.get("inserted_at")),
        parts=parts,
    )


def _parts(record: dict[str, Any], role: Role, ledger: TextLedger, warnings: Warnings) -> list[Part]:
    fragments = record.get("fragments")
    if isinstance(fragments, list) and fragments:
        parts: list[Part] = []
        for fragment in fragments:
            parts += _fragment(fragment, role, ledger, warnings)
        return parts
    if fragments not in (None, []):
        raise InputError(
            f"message {record.get('message_id')}: fragments is a {type(fragments).__name__}, not a list"
        )
    out: list[Part] = []
    thinking = record.get("thinking_content")
    if isinstance(thinking, str) and thinking.strip():
        out.append(ReasoningPart(text=thinking, duration_sec=_seconds(record.get("thinking_elapsed_secs"))))
        ledger.note(thinking)
    content = record.get("content")
    if isinstance(content, str) and (content.strip() or not out):
        out.append(_text_part(content, role, _citations(record.get("search_results"), ledger)))
        ledger.note(content)
    return out


def _fragment(fragment: Any, role: Role, ledger: TextLedger, warnings: Warnings) -> list[Part]:
    if not isinstance(fragment, dict):
        warnings.add("DEEPSEEK_UNKNOWN_FRAGMENT", "a fragment that is not an object (kept)")
        return [UnknownPart(source_type="deepseek.fragment", raw=fragment)]
    kind = str(fragment.get("type") or "")
    content = fragment.get("content")
    text = content if isinstance(content, str) else ""
    if kind in ("REQUEST", "RESPONSE", "TEMPLATE_RESPONSE"):
        ledger.note(text)
        return [_text_part(text, role, _citations(fragment.get("references"), ledger))]
    if kind == "THINK":
        ledger.note(text)
        return [ReasoningPart(text=text, duration_sec=_seconds(fragment.get("elapsed_secs")))]
    if kind == "SEARCH":
        found = _citations(fragment.get("results"), ledger)
        ledger.note(text)
        parts: list[Part] = [CitationPart(title=c.title, url=c.url, text=c.snippet or "") for c in found]
        return parts + ([TextPart(text=text)] if text.strip() else [])
    warnings.add(
        "DEEPSEEK_UNKNOWN_FRAGMENT", f"a {kind or 'type-less'} fragment this reader does not know (kept)"
    )
    for value in fragment.values():
        ledger.note(value if isinstance(value, str) else None)
    return [UnknownPart(source_type=f"deepseek.{kind.lower() or 'fragment'}", raw=fragment)]


def _text_part(text: str, role: Role, citations: list[Citation]) -> TextPart:
    return TextPart(text=text, format="plain" if role == "user" else "markdown", citations=citations)


def _citations(value: Any, ledger: TextLedger) -> list[Citation]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if not isinstance(item, dict):
            continue
        cite = Citation(
            url=_str(item.get("url")), title=_str(item.get("title")), snippet=_str(item.get("snippet"))
        )
        if cite.url or cite.title or cite.snippet:
            ledger.note(cite.title)
            ledger.note(cite.snippet)
            ledger.note(_str(item.get("site_name")))
            out.append(cite)
    return out


def _files(value: Any, ledger: TextLedger) -> list[Part]:
    if not isinstance(value, list):
        return []
    out: list[Part] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        name = _str(item.get("file_name")) or _str(item.get("name"))
        size = item.get("file_size")
        kind: AttachmentKind = "image" if name and name.lower().endswith(_IMAGE_EXT) else "file"
        ledger.note(name)
        ledger.note(_str(item.get("status")))
        out.append(
            AttachmentPart(
                kind=kind,
                name=name,
                asset_pointer=_id(item.get("id")),
                size_bytes=size if type(size) is int and size >= 0 else None,
            )
        )
    return out


def _seconds(value: Any) -> float | None:
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
        else None
    )
