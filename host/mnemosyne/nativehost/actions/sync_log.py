"""sync-log: record (upsert by id) one backup run the extension reports, for `mnemo sync-status`."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...archive import sync
from ...archive.sync import COUNT_KEYS, RUN_STATES
from . import params as p
from .sync_state import SITES

if TYPE_CHECKING:
    from ..session import HostSession

MAX_FAILURES = 1000  # a run's failures kept; the counts still say how many there were


def _time(run: dict[str, Any], name: str, required: bool) -> str | None:
    value: str | None = (
        p.string(run, name, max_len=64) if required else p.string(run, name, default=None, max_len=64)
    )
    if value is None:
        return None
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise p.BadRequest(f"run.{name} must be an ISO 8601 time") from None
    return value


def _failure(item: Any) -> dict[str, str]:
    if not isinstance(item, dict) or not all(
        isinstance(item.get(k, ""), str) for k in ("id", "title", "reason")
    ):
        raise p.BadRequest("run.failures must be a list of {id, title, reason} strings")
    return {k: item.get(k, "")[:500] for k in ("id", "title", "reason")}


def check_run(run: Any) -> dict[str, Any]:
    if not isinstance(run, dict):
        raise p.BadRequest("run must be an object")
    counts = run.get("counts", {})
    if not isinstance(counts, dict) or not all(
        isinstance(counts.get(k, 0), int) and not isinstance(counts.get(k, 0), bool) and counts.get(k, 0) >= 0
        for k in COUNT_KEYS
    ):
        raise p.BadRequest(f"run.counts must hold non-negative integers {', '.join(COUNT_KEYS)}")
    failures = run.get("failures", [])
    if not isinstance(failures, list):
        raise p.BadRequest("run.failures must be a list")
    return {
        "id": p.string(run, "id", max_len=200),
        "site": p.choice(run, "site", SITES),
        "started_at": _time(run, "started_at", True),
        "finished_at": _time(run, "finished_at", False),
        "state": p.choice(run, "state", RUN_STATES),
        "counts": counts,
        "failures": [_failure(f) for f in failures[:MAX_FAILURES]],
    }


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    checked = check_run(params.get("run"))
    sync.log_run(session.archive().conn, checked)
    return {"recorded": True}
