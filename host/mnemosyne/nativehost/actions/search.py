"""search: ranked full-text search with snippets (« » mark the hits)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    query = p.string(params, "query", max_len=500)
    limit = p.integer(params, "limit", 20, 1, 100)
    source = p.string(params, "source", default=None, max_len=40)
    return {"items": session.archive().search(query, limit=limit, site=source)}
