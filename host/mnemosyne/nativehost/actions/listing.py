"""list: archived conversations, newest first, paged with a cursor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict, session: HostSession) -> dict:
    limit = p.integer(params, "limit", 50, 1, 100)
    cursor = p.string(params, "cursor", default=None, max_len=500)
    source = p.string(params, "source", default=None, max_len=40)
    items, next_cursor = session.archive().list(limit=limit, cursor=cursor, site=source)
    return {"items": items, "next_cursor": next_cursor}
