"""Helpers shared by the readers of other tools' formats (openai, anthropic,
sharegpt, openwebui, librechat, sillytavern): tree linking, per-item reading
of multi-conversation files, loosely typed JSON values."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from ..errors import InputError
from ..model import Conversation, Message
from .base import ReadFailure, Warnings

# Errors a converter raises on a malformed item; each becomes a ReadFailure for that item.
ITEM_ERRORS = (TypeError, KeyError, AttributeError, IndexError, ValueError, ValidationError)


def each_item(
    name: str, items: list[Any], convert: Callable[[Any, int], Conversation], fmt: str
) -> Iterator[Conversation | ReadFailure]:
    """Convert every item; a broken one is a ReadFailure unless it is the only one."""
    for i, item in enumerate(items):
        label = name if len(items) == 1 else f"{name}[{i}]"
        try:
            yield convert(item, i)
        except InputError as exc:
            if len(items) == 1:
                raise InputError(f"{label}: {exc.message}", code=exc.code) from None
            yield ReadFailure(label=label, error=exc)
        except ITEM_ERRORS as exc:
            error = InputError(
                f"{label}: not a valid {fmt} conversation ({type(exc).__name__}: {_short(exc)})"
            )
            if len(items) == 1:
                raise error from None
            yield ReadFailure(label=label, error=error)


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text[:200]


def parse_json_text(value: Any) -> Any:
    """Tool arguments arrive as JSON strings: parse them when valid, keep them as given otherwise."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def as_text(value: Any) -> str:
    """Tool output as a string: strings stay, structured values become compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, dict) and "text" in v for v in value):
        return "\n".join(str(v.get("text") or "") for v in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def chain(messages: list[Message]) -> list[Message]:
    """A linear conversation: each message's parent is the one before it."""
    previous: str | None = None
    for msg in messages:
        msg.parent = previous
        previous = msg.id
    return messages


def link_tree(messages: Iterable[Message], warnings: Warnings, root_ids: Iterable[str] = ()) -> list[Message]:
    """Order a tree parents-first (the format's rule), keeping sibling order.

    Parents that are missing (or in `root_ids`, a tool's all-zero root) become
    roots with a warning for the missing ones; duplicate ids get a suffix; a
    cycle is cut where it closes.
    """
    roots = set(root_ids)
    unique: list[Message] = []
    seen: set[str] = set()
    for msg in messages:
        if msg.id in seen:
            warnings.add("DUPLICATE_MESSAGE_ID", "a message id appeared twice; the copy got a new id")
            n = 2
            while f"{msg.id}~{n}" in seen:
                n += 1
            msg.id = f"{msg.id}~{n}"
        seen.add(msg.id)
        unique.append(msg)
    for msg in unique:
        if msg.parent in roots:
            msg.parent = None
        elif msg.parent is not None and msg.parent not in seen:
            warnings.add(
                "DANGLING_PARENT", "a message pointed at a parent that is not in the input; it became a root"
            )
            msg.parent = None
        elif msg.parent == msg.id:
            warnings.add("PARENT_CYCLE", "a message was its own parent; it became a root")
            msg.parent = None
    kids: dict[str | None, list[Message]] = {}
    for msg in unique:
        kids.setdefault(msg.parent, []).append(msg)
    ordered: list[Message] = []
    placed: set[str] = set()
    stack = list(reversed(kids.get(None, [])))
    while stack:
        msg = stack.pop()
        if msg.id in placed:
            continue
        placed.add(msg.id)
        ordered.append(msg)
        stack.extend(reversed(kids.get(msg.id, [])))
    for msg in unique:  # messages only reachable through a cycle
        if msg.id not in placed:
            warnings.add("PARENT_CYCLE", "messages formed a parent cycle; it was cut")
            msg.parent = None
            placed.add(msg.id)
            ordered.append(msg)
            for kid in _descendants(msg.id, kids, placed):
                ordered.append(kid)
    return ordered


def _descendants(root: str, kids: dict[str | None, list[Message]], placed: set[str]) -> list[Message]:
    out: list[Message] = []
    stack = list(reversed(kids.get(root, [])))
    while stack:
        msg = stack.pop()
        if msg.id in placed:
            continue
        placed.add(msg.id)
        out.append(msg)
        stack.extend(reversed(kids.get(msg.id, [])))
    return out


def leaf_of(messages: list[Message], start: str | None) -> str | None:
    """Follow last children down from `start` to a leaf (a tool's 'current' message may be inner)."""
    if start is None:
        return None
    kids: dict[str | None, list[str]] = {}
    for msg in messages:
        kids.setdefault(msg.parent, []).append(msg.id)
    node, seen = start, set()
    while kids.get(node) and node not in seen:
        seen.add(node)
        node = kids[node][-1]
    return node


def str_or_none(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def require(raw: Any, recognized: bool, name: str, description: str) -> None:
    """`--from FORMAT` on another format's file: one clear error instead of a failure per item."""
    if not recognized:
        raise InputError(f"{raw.name}: not a {name} input (expected: {description})")
