"""list: archived conversations, newest (or oldest) first, optionally within a date range, paged with a cursor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict, session: HostSession) -> dict:
    limit = p.integer(params, "limit", 50, 1, 100)
    cursor = p.string(params, "cursor", default=None, max_len=500)
    source = p.string(params, "source", default=None, max_len=40)
    order = p.choice(params, "order", ("newest", "oldest"), "newest")
    since = p.string(params, "since", default=None, max_len=40)
    until = p.string(params, "until", default=None, max_len=40)
    items, next_cursor = session.archive().list(
        limit=limit, cursor=cursor, site=source, order=order, since=since, until=until
    )
    return {"items": items, "next_cursor": next_cursor}
