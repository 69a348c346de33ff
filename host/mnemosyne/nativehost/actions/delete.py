"""delete: remove one conversation and everything indexed from it."""

from __future__ import annotations

from . import params as p


def run(params: dict, ctx) -> dict:
    conv_id = p.conversation_id(params)
    ctx.archive().delete(conv_id)
    return {"deleted": True, "conversation_id": conv_id}
