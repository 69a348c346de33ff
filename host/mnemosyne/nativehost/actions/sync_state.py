"""sync-state: what the archive holds of a site's conversations, for a backup run to skip the unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...archive import sync
from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession

SITES = ("chatgpt", "claude", "grok", "perplexity", "gemini", "deepseek")
MAX_IDS = 500


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    site = p.choice(params, "site", SITES)
    ids = params.get("ids")
    if (
        not isinstance(ids, list)
        or not 1 <= len(ids) <= MAX_IDS
        or not all(isinstance(i, str) and 0 < len(i) <= 200 for i in ids)
    ):
        raise p.BadRequest(f"ids must be a list of 1 to {MAX_IDS} site conversation ids (strings)")
    return {"known": sync.known(session.archive().conn, site, list(dict.fromkeys(ids)))}
