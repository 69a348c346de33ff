"""The message tree: active path, branches, leaves."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: recall walks stored documents' messages without the models
    from .model import Conversation, Message


def by_id(conv: Conversation) -> dict[str, Message]:
    return {m.id: m for m in conv.messages}


def children(conv: Conversation) -> dict[str | None, list[Message]]:
    kids: dict[str | None, list[Message]] = {}
    for m in conv.messages:
        kids.setdefault(m.parent, []).append(m)
    return kids


def leaves(conv: Conversation) -> list[Message]:
    parents = {m.parent for m in conv.messages}
    return [m for m in conv.messages if m.id not in parents]


def active_leaf(conv: Conversation) -> str | None:
    """The one active-branch rule: `active_leaf` when it names a message of the conversation, else the
    last leaf in document order (None only for a conversation without messages).

    Every reader sets `active_leaf` to a leaf (tests/test_active_branch.py), so the fallback is for
    documents written by other tools; the extension's transcript view follows the same rule."""
    if conv.active_leaf is not None and any(m.id == conv.active_leaf for m in conv.messages):
        return conv.active_leaf
    found = leaves(conv)
    return found[-1].id if found else None


def path_to(conv: Conversation, leaf_id: str | None) -> list[Message]:
    """Root-to-leaf messages ending at `leaf_id` (the active branch by default, see active_leaf)."""
    index = by_id(conv)
    leaf = leaf_id if leaf_id in index else active_leaf(conv)
    if leaf is None:
        return []
    path: list[Message] = []
    seen: set[str] = set()
    node: str | None = leaf
    while node is not None and node in index and node not in seen:
        seen.add(node)
        msg = index[node]
        path.append(msg)
        node = msg.parent
    path.reverse()
    return path


def active_path(conv: Conversation) -> list[Message]:
    return path_to(conv, conv.active_leaf)


def branch_points(conv: Conversation) -> int:
    """How many messages have more than one child (edits and regenerations)."""
    return sum(1 for kids in children(conv).values() if len(kids) > 1)
