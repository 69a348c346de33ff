"""grok.com: one conversation as the extension sends it (`response-node?includeThreads=true` for the turn
tree, `load-responses` for the turns, the conversation's own record), the answer stream the site sends
(`conversations/new`, `reconnect-response-v2`: one JSON object a line) and a network capture (HAR) of
the site holding any of these. A body the capture cut short is read as far as it goes, and the
conversation is marked partial with a warning."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..model import Conversation, Message, Part, Role, TextPart, UnknownPart
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, dump_raw, parse_time, raw_json
from .cut_json import parse_body, parse_lines
from .grok_parts import as_response, response_parts
from .json_values import as_dict, as_list, as_str

NAME = "grok"
DESCRIPTION = "grok.com conversation (response-node + load-responses JSON), its answer stream, HAR captures"

CHAT_URL = "https://grok.com/c/{}"
_API = re.compile(r"^https://(?:www\.)?grok\.com/rest/app-chat/conversations/(?P<rest>[^?#]*)")
_STREAMS = ("new", "reconnect-response-v2", "reconnect-response")  # answer streams: one JSON object a line
_TURN_ENDPOINTS = ("load-responses", "response-node")
_ROLES: dict[str, Role] = {"human": "user", "user": "user", "assistant": "assistant", "grok": "assistant"}


@dataclass
class _Chat:
    """What is known of one conversation, gathered from whichever responses hold it."""

    conversation_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # response ids as response-node lists them
    responses: dict[str, dict[str, Any]] = field(default_factory=dict)
    thinking: dict[str, list[str]] = field(default_factory=dict)  # streamed tokens, by response id
    tokens: dict[str, list[str]] = field(default_factory=dict)
    kept: dict[str, list[Part]] = field(default_factory=dict)  # stream frames this reader cannot type
    warnings: Warnings = field(default_factory=Warnings)
    partial: bool = False

    def add_response(self, response: dict[str, Any]) -> None:
        rid = response["responseId"]
        known = self.responses.setdefault(rid, {})
        older = known.get("message")
        known.update({k: v for k, v in response.items() if v not in (None, "", [], {})})
        if isinstance(older, str) and len(older) > len(as_str(known.get("message")) or ""):
            known["message"] = older  # a cut copy never replaces a longer one

    def add_nodes(self, body: dict[str, Any]) -> None:
        for node in as_list(body.get("responseNodes")) + as_list(body.get("inflightResponses")):
            response = as_response(node)
            if response is None:
                continue
            if response["responseId"] not in self.order:
                self.order.append(response["responseId"])
            self.add_response({k: v for k, v in response.items() if k != "status"})
            if as_str(node.get("status")) == "RESPONSE_STATUS_ACTIVE":
                self.responses[response["responseId"]]["_streaming"] = True

    def cut(self, what: str) -> None:
        self.partial = True
        self.warnings.add("GROK_CUT_SHORT", f"{what} was cut short in the capture: read as far as it goes")


def _stream_result(record: Any) -> dict[str, Any] | None:
    result = as_dict(record).get("result") if isinstance(record, dict) else None
    if not isinstance(result, dict):
        return None
    response = as_dict(result.get("response"))
    if (
        "conversation" in result
        or "title" in result
        or any(k in response for k in ("responseId", "userResponse", "modelResponse", "token"))
    ):
        return result
    return None


def _is_har(data: Any) -> bool:
    entries = as_list(as_dict(as_dict(data).get("log")).get("entries"))
    return any(_API.match(str(as_dict(as_dict(e).get("request")).get("url", ""))) for e in entries)


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, dict):
        if _is_har(data):
            return True
        return any(as_response(r) for r in as_list(data.get("responses"))[:5]) and "entries" not in data
    if isinstance(data, list) and raw.jsonl:
        return any(_stream_result(r) for r in data[:5])
    return False


def read_stream(records: list[Any], chat: _Chat) -> None:
    """The answer stream: the conversation's record, the user turn, then the answer token by token (thinking
    tokens apart), and the finished answer. A token frame cut before its responseId and isThinking belongs
    to the answer the stream was writing, and is thinking when the token before it was."""
    last: str | None = None
    thinking = False
    for record in records:
        result = _stream_result(record)
        if result is None:
            if record not in ({}, None):
                chat.warnings.add(
                    "GROK_UNKNOWN_FRAME", "a grok.com stream frame of an unknown shape was kept"
                )
                chat.kept.setdefault("", []).append(
                    UnknownPart(source_type="grok.frame", raw=raw_json(record))
                )
            continue
        conversation = as_dict(result.get("conversation"))
        if conversation:
            chat.meta.update(conversation)
            chat.conversation_id = chat.conversation_id or as_str(conversation.get("conversationId"))
        title = as_dict(result.get("title")).get("newTitle")
        if isinstance(title, str) and title:
            chat.meta["title"] = title
        response = as_dict(result.get("response"))
        for key in ("userResponse", "modelResponse"):
            found = as_response(response.get(key))
            if found is not None:
                chat.add_response(found)
        token, rid = response.get("token"), as_str(response.get("responseId")) or last
        last = rid
        thinking = bool(response.get("isThinking", thinking))
        if isinstance(token, str) and rid:
            (chat.thinking if thinking else chat.tokens).setdefault(rid, []).append(token)
            chat.responses.setdefault(rid, {"responseId": rid, "sender": "assistant"})


def _body_text(entry: dict[str, Any]) -> str:
    content = as_dict(as_dict(entry.get("response")).get("content"))
    text = content.get("text")
    if not isinstance(text, str):
        return ""
    if content.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            raise InputError("a grok.com body in the capture is not valid base64") from None
    return text


def read_har(data: dict[str, Any], name: str) -> list[_Chat]:
    """Each conversation a capture of grok.com holds, from every response of its API the capture kept."""
    chats: dict[str, _Chat] = {}
    loose = _Chat()  # streams whose URL names no conversation (reconnect-response-v2/{response id})
    for n, entry in enumerate(as_list(as_dict(data.get("log")).get("entries"))):
        match = _API.match(str(as_dict(as_dict(entry).get("request")).get("url", "")))
        text = _body_text(as_dict(entry)) if match else ""
        if not match or not text.strip():
            continue
        rest = match.group("rest").split("/")
        label = f"entry {n + 1} ({'/'.join(rest[:2])})"
        first, stream = rest[0], rest[0] in _STREAMS
        if not stream and (len(rest) > 2 or (len(rest) == 2 and rest[1] not in _TURN_ENDPOINTS)):
            continue  # another endpoint of the conversation (sharing, files ...): no turns in it
        target = loose if stream else chats.setdefault(first, _Chat(conversation_id=first))
        if stream:
            records, cut = parse_lines(text, f"{name}: {label}")
            read_stream(records, target)
            if target.conversation_id and target is loose:
                chats.setdefault(target.conversation_id, _Chat(conversation_id=target.conversation_id))
        else:
            body, cut = parse_body(text, f"{name}: {label}")
            body = as_dict(body)
            for response in as_list(body.get("responses")):
                if as_response(response):
                    target.add_response(response)
            target.add_nodes(body)
            if as_str(body.get("conversationId")) and not body.get("responses"):
                target.meta.update(body)
        if cut:
            target.cut(label)
    return _merge_loose(chats, loose)


def _merge_loose(chats: dict[str, _Chat], loose: _Chat) -> list[_Chat]:
    """Turns of streams whose URL names no conversation join the one their stream's own record names, else the
    capture's only conversation; with several and none named, they stay a conversation of their own."""
    if not loose.responses and not loose.meta:
        return list(chats.values())
    home = chats.get(loose.conversation_id or "") or (next(iter(chats.values())) if len(chats) == 1 else None)
    if home is None:
        return [*chats.values(), loose]
    home.meta = {**loose.meta, **home.meta}
    for response in loose.responses.values():
        home.add_response(response)
    for rid, tokens in loose.tokens.items():
        home.tokens.setdefault(rid, []).extend(tokens)
    for rid, tokens in loose.thinking.items():
        home.thinking.setdefault(rid, []).extend(tokens)
    for rid, kept in loose.kept.items():
        home.kept.setdefault(rid, []).extend(kept)
    home.partial = home.partial or loose.partial
    for w in loose.warnings.as_list():
        for _ in range(w.count):
            home.warnings.add(w.code, w.message)
    return list(chats.values())


def _role(response: dict[str, Any], warnings: Warnings) -> Role:
    sender = str(response.get("sender") or "").lower()
    role = _ROLES.get(sender)
    if role is None:
        warnings.add(
            "GROK_UNKNOWN_SENDER",
            f"a grok.com turn from sender {sender or '(none)'!r} was read as the assistant's",
        )
    return role or "assistant"


def _ordered(chat: _Chat) -> list[dict[str, Any]]:
    listed = [chat.responses[r] for r in chat.order if r in chat.responses]
    rest = [r for rid, r in chat.responses.items() if rid not in chat.order]
    rest.sort(key=lambda r: (str(r.get("createTime") or ""), r["responseId"]))
    return listed + rest


def convert(chat: _Chat, raw: bytes, ctx: ReadContext, identity: bytes | None = None) -> Conversation:
    messages: list[Message] = []
    known: set[str] = set()
    for response in _ordered(chat):
        rid = response["responseId"]
        if response.get("_streaming") and not response.get("message") and rid not in chat.tokens:
            chat.cut(f"response {rid}, still being written when read,")
        streamed = "".join(chat.tokens.get(rid, []))
        if not as_str(response.get("message")) and streamed:
            response = {**response, "message": streamed}
        elif streamed.strip() and streamed.strip() not in str(response.get("message")):
            chat.warnings.add(
                "GROK_STREAM_DIFFERS", "streamed answer text that the saved answer lacks was kept"
            )
            chat.kept.setdefault(rid, []).append(TextPart(text=streamed))
        if not as_str(response.get("thinkingTrace")) and chat.thinking.get(rid):
            response = {**response, "thinkingTrace": "".join(chat.thinking[rid])}
        parts = response_parts({k: v for k, v in response.items() if k != "_streaming"}, chat.warnings)
        parts.extend(chat.kept.get(rid, []))
        parent = as_str(response.get("parentResponseId"))
        if parent not in known:
            parent = messages[-1].id if messages else None
        messages.append(
            Message(
                id=rid,
                parent=parent,
                role=_role(response, chat.warnings),
                created_at=parse_time(response.get("createTime")),
                model=as_str(response.get("model")),
                parts=parts,
            )
        )
        known.add(rid)
    if chat.kept.get("") and messages:
        messages[-1].parts.extend(chat.kept[""])
    if not messages:
        raise InputError(
            "the grok.com input holds no turns (response-node lists them; load-responses holds them)"
        )
    models = [m.model for m in messages if m.role == "assistant" and m.model]
    return build(
        site="grok",
        source_id=chat.conversation_id,
        identity=identity,
        reader=f"{NAME}.site_api",
        method="site_api",
        raw=raw,
        ctx=ctx,
        messages=messages,
        title=as_str(chat.meta.get("title")),
        url=CHAT_URL.format(chat.conversation_id) if chat.conversation_id else None,
        created_at=parse_time(chat.meta.get("createTime")),
        updated_at=parse_time(chat.meta.get("modifyTime")),
        default_model=models[-1] if models else None,
        warnings=chat.warnings,
        partial=chat.partial,
    )


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    data = raw.data
    if isinstance(data, dict) and _is_har(data):
        for n, chat in enumerate(read_har(data, raw.name)):
            try:
                yield convert(
                    chat, raw.raw, ctx, identity=None if chat.conversation_id else dump_raw([n, data])
                )
            except InputError as exc:
                yield ReadFailure(label=f"{raw.name} conversation {n + 1}", error=exc)
        return
    chat = _Chat()
    if isinstance(data, list) and raw.jsonl:
        read_stream(data, chat)
    elif isinstance(data, dict):
        meta = as_dict(data.get("conversation"))
        chat.meta.update(meta)
        chat.conversation_id = as_str(meta.get("conversationId")) or as_str(data.get("conversationId"))
        chat.add_nodes(data)
        for response in as_list(data.get("responses")):
            if as_response(response) is None:
                chat.warnings.add("GROK_UNKNOWN_RESPONSE", "a grok.com response with no responseId was kept")
                chat.kept.setdefault("", []).append(
                    UnknownPart(source_type="grok.response", raw=raw_json(response))
                )
                continue
            chat.add_response(response)
    else:
        raise InputError(f"{raw.name}: not a grok.com conversation")
    yield convert(chat, raw.raw, ctx)
