"""Merging a new capture into the stored copy of the same conversation.

A newer capture may hold more messages or another branch, or (a DOM capture)
only part of what an API capture saved. Union the trees by message id, the
newer capture winning where both have a message, so nothing saved is lost.
"""

from __future__ import annotations

from ..model import Conversation, Message


def _ordered(messages: dict[str, Message]) -> list[Message]:
    """Parents before children, keeping first-seen order among siblings."""
    out: list[Message] = []
    placed: set[str] = set()
    pending = list(messages.values())
    while pending:
        progressed = False
        rest = []
        for msg in pending:
            if msg.parent is None or msg.parent in placed or msg.parent not in messages:
                out.append(msg)
                placed.add(msg.id)
                progressed = True
            else:
                rest.append(msg)
        if not progressed:  # a cycle in hostile input: keep the messages, break the loop
            out.extend(rest)
            break
        pending = rest
    return out


def merge(stored: Conversation, new: Conversation) -> Conversation:
    if {m.id for m in stored.messages} <= {m.id for m in new.messages}:
        merged_messages = new.messages  # the usual case: the new capture already holds everything
    else:
        by_id: dict[str, Message] = {m.id: m for m in stored.messages}
        for msg in new.messages:
            by_id[msg.id] = msg
        merged_messages = _ordered(by_id)
    instructions = list(new.instructions)
    for ins in stored.instructions:
        if ins not in instructions:
            instructions.append(ins)
    return new.model_copy(
        update={
            "messages": merged_messages,
            "instructions": instructions,
            "title": new.title or stored.title,
            "created_at": stored.created_at or new.created_at,
            "default_model": new.default_model or stored.default_model,
        }
    )
