"""delete: remove one conversation and everything indexed from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    conv_id = p.conversation_id(params)
    session.renders.clear()  # nothing of a deleted conversation is served from a kept render
    session.archive().delete(conv_id)
    return {"deleted": True, "conversation_id": conv_id}
