"""list: archived conversations in an order (newest, oldest, title, length), filtered by site, date range,
project, model, has code and has attachments, paged with a cursor; the filter choices and the archive's total
on request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...archive.store import ORDERS
from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def _flag(params: dict[str, Any], name: str) -> bool | None:
    return p.boolean(params, name) if params.get(name) is not None else None


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    limit = p.integer(params, "limit", 50, 1, 100)
    cursor = p.string(params, "cursor", default=None, max_len=500)
    source = p.string(params, "source", default=None, max_len=40)
    order = p.choice(params, "order", tuple(ORDERS), "newest")
    since = p.string(params, "since", default=None, max_len=40)
    until = p.string(params, "until", default=None, max_len=40)
    project = p.string(params, "project", default=None, max_len=500)
    model = p.string(params, "model", default=None, max_len=200)
    archive = session.archive()
    items, next_cursor = archive.list(
        limit=limit,
        cursor=cursor,
        site=source,
        order=order,
        since=since,
        until=until,
        project=project,
        model=model,
        has_code=_flag(params, "has_code"),
        has_attachments=_flag(params, "has_attachments"),
    )
    reply: dict[str, Any] = {"items": items, "next_cursor": next_cursor}
    if p.boolean(params, "facets"):
        reply["facets"] = archive.facet_values()
        reply["total"] = archive.conversation_count()
    return reply
