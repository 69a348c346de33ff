"""Messages as plain text turns: what of each part a context carries.

Reasoning and tool traffic are left out unless asked for (`include`), because
they are the noise a continuation needs least. Attachments and citations stay
as one-line references; the bytes never travel.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import tokens
from ..errors import InputError
from .shapes import quote_title

if TYPE_CHECKING:
    from ..model import Conversation, Message  # (annotations only: recall reads turns without the models)
    from ..redact import Redactor  # its patterns compile at import: only a redacting build pays for them

INCLUDE_CHOICES = ("reasoning", "tools")
# ChatGPT wraps citations in private-use characters ("\ue200cite\ue202turn0search1\ue201"): markup, not text
_PUA_CITATION = re.compile("\ue200[^\ue201]{0,200}\ue201")
_PUA = re.compile("[\ue000-\uf8ff]")


@dataclass
class Turn:
    index: int  # position on the path
    id: str
    role: str  # user / assistant / tool
    text: str


def parse_include(values: Iterable[str] | str | None) -> frozenset[str]:
    if not values:
        return frozenset()
    items = (
        values.split(",") if isinstance(values, str) else [v for item in values for v in str(item).split(",")]
    )
    chosen = {v.strip().lower() for v in items if v.strip()}
    unknown = sorted(chosen - set(INCLUDE_CHOICES))
    if unknown:
        raise InputError(
            f"unknown --include value {', '.join(unknown)}; choose from {', '.join(INCLUDE_CHOICES)}"
        )
    return frozenset(chosen)


def _args_text(arguments: object) -> str:
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True)


def _fence(body: str, language: str | None = None) -> str:
    fence = "````" if "```" in body else "```"
    return f"{fence}{language or ''}\n{body.rstrip()}\n{fence}"


def render_message(msg: Message, include: frozenset[str] = frozenset()) -> str:
    """The text of one message as a context carries it (empty when nothing is kept)."""
    tools = "tools" in include
    if msg.role == "tool" and not tools:
        return ""
    pieces: list[str] = []
    for part in msg.parts:
        if part.type == "text":
            pieces.append(part.text)
        elif part.type == "artifact":
            head = (
                f"[artifact: {part.title or part.artifact_id or 'untitled'}"
                + (f" v{part.version}" if part.version else "")
                + "]"
            )
            pieces.append(head + ("\n" + _fence(part.content, part.language) if part.content else ""))
        elif part.type == "attachment":
            # an asset pointer (sediment://file_…) names the file only inside the site it came from
            pieces.append(f"[{part.kind} attached: {part.name}]" if part.name else f"[{part.kind} attached]")
            if part.extracted_text:
                pieces.append(part.extracted_text)
        elif part.type == "citation":
            ref = " ".join(x for x in (part.title, f"<{part.url}>" if part.url else None) if x)
            if ref:
                pieces.append(f"[source: {ref}]")
        elif part.type == "reasoning":
            if "reasoning" in include:
                body = part.text or part.summary or ""
                if body:
                    pieces.append(f"[reasoning]\n{body}")
        elif not tools:
            continue
        elif part.type == "code":
            pieces.append(_fence(part.code, part.language))
        elif part.type == "code_output":
            pieces.append(f"[output]\n{part.text}")
        elif part.type == "tool_call":
            pieces.append(f"[tool call {part.name}] {_args_text(part.arguments)}".rstrip())
        elif part.type == "tool_result":
            pieces.append(
                f"[tool result{' ' + part.name if part.name else ''}{' (error)' if part.is_error else ''}]\n{part.output}"
            )
        elif part.type == "system_error":
            pieces.append(f"[error] {part.text}")
    text = "\n\n".join(p.strip("\n") for p in pieces if p and p.strip())
    return _PUA.sub("", _PUA_CITATION.sub("", text)) if _PUA.search(text) else text


def instruction_texts(conv: Conversation, path: list[Message]) -> list[tuple[str, str]]:
    """(label, text) of every instruction: declared ones, then system messages on the path."""
    found: list[tuple[str, str]] = []
    for ins in conv.instructions:
        if ins.text.strip():
            # a title is a name anyone can set (a project's, a document's): quoted on one line, as the title is
            label = ins.kind.replace("_", " ") + (f" {quote_title(ins.title, 80)}" if ins.title else "")
            found.append((label, ins.text.strip()))
    for msg in path:
        if msg.role == "system":
            text = render_message(msg).strip()
            if text and all(text != t for _, t in found):
                found.append(("system prompt", text))
    return found


def path_turns(path: list[Message], include: frozenset[str], redactor: Redactor | None) -> list[Turn]:
    """The user/assistant (and, with tools, tool) turns of a path that have text."""
    shown = [
        (i, msg, text)
        for i, msg in enumerate(path)
        if msg.role != "system" and not (msg.hidden and msg.role != "assistant")
        if (text := render_message(msg, include).strip())
    ]
    texts = [text for _, _, text in shown]
    if redactor is not None:
        texts = redactor.redact_all(texts)
    return [Turn(index=i, id=msg.id, role=msg.role, text=text) for (i, msg, _), text in zip(shown, texts)]


# A message text at least this long is counted once per import (count_messages' `known`): ChatGPT quotes an
# uploaded file in full each time it reads it again, people paste the same file into several chats, and
# custom instructions open every chat made after they were set. Shorter texts cost less than their key.
REPEAT_MIN_CHARS = 1024
KNOWN_MAX = 100_000  # keys `known` holds (about 10 MB), then it starts again


def count_messages(
    conv: Conversation, encoding: str = "o200k_base", known: dict[bytes, int] | None = None
) -> dict[str, int]:
    """Tokens of every message as a context carries it by default; the archive stores these. `known`: the
    counts of long texts by their digest, shared by the calls of one run (an import), so a text held again,
    in this conversation or another, is not encoded again (the same text, the same tokens)."""
    enc = tokens.encoding(tokens.base_encoding(encoding))
    texts = {m.id: render_message(m).strip() for m in conv.messages}
    counts = {k: 0 for k in texts}
    todo: dict[str, list[str]] = {}  # a text to encode -> the messages holding it
    keys: dict[str, bytes] = {}
    for mid, text in texts.items():
        if not text:
            continue
        if known is not None and len(text) >= REPEAT_MIN_CHARS and text not in todo:
            key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            found = known.get(key)
            if found is not None:
                counts[mid] = found
                continue
            keys[text] = key
        todo.setdefault(text, []).append(mid)
    for text, ids in zip(todo, enc.encode_ordinary_batch(list(todo))):
        for mid in todo[text]:
            counts[mid] = len(ids)
        if text in keys and known is not None:
            if len(known) >= KNOWN_MAX:
                known.clear()
            known[keys[text]] = len(ids)
    return counts
