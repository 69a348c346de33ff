"""The candidate conversations recall reads: their turns and label fields, straight from the stored documents.

A fresh `mnemo recall` process spent about a third of its time importing pydantic and validating the
candidates' documents into Conversation models, only to read each message's parts back out. The archive
stores every document as the model wrote it (canonical JSON without None fields), so a field a document
leaves out is None in the model too: an attribute view over the decoded JSON gives the context engine's
path_to and path_turns the same messages and parts, and so the same turns (tests/test_recall_documents.py
compares the two on every fixture conversation).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from .. import tree
from ..context.turns import Turn, path_turns
from ..errors import NotFoundError

if TYPE_CHECKING:
    from ..archive import Archive
    from ..model import Conversation


class _Fields:
    """A stored JSON object read by attribute, as the model would give it: absent fields are None, and a
    message's parts are views too."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict[str, Any]):
        self._fields = fields

    def __getattr__(self, name: str) -> Any:
        value = self._fields.get(name)
        if name == "parts" and isinstance(value, list):
            return [_Fields(p) for p in value]
        return value


@dataclass
class StoredConversation:
    """What recall needs of one conversation: its label fields (times as the archive spells them, UTC)
    and the turns of its active branch, unredacted."""

    id: str
    site: str
    title: str
    created_at: str | None
    updated_at: str | None
    turns: list[Turn]

    @property
    def when(self) -> str | None:
        return self.updated_at or self.created_at


def read(arc: Archive, conv_id: str) -> StoredConversation:
    """The conversation `conv_id` (a full id, as the search index gives it)."""
    row = arc.conn.execute("SELECT document FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no conversation {conv_id!r}")
    doc = json.loads(row[0])
    view = cast("Conversation", _Fields({**doc, "messages": [_Fields(m) for m in doc.get("messages", ())]}))
    turns = path_turns(tree.path_to(view, None), frozenset(), None)
    return StoredConversation(
        id=doc["id"],
        site=(doc.get("source") or {}).get("site", ""),
        title=doc.get("title") or "",
        created_at=doc.get("created_at"),
        updated_at=doc.get("updated_at"),
        turns=turns,
    )
