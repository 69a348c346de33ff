"""Sync bookkeeping inside the archive: per site conversation, what the site's list said when it was last
saved (so a backup run skips what did not change), and the backup runs the extension reports.

The tables (migration m007_sync_state) live in the encrypted archive like everything else. A row of
sync_state is written in the same transaction as the save it describes."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, NamedTuple

from .db import Connection, Transaction

# Imports inside functions: the model (it loads pydantic: the sync_state and sync_log actions read and
# write marks without it).

ORIGINS = ("export", "backup", "keep-current")
RUN_STATES = ("running", "paused", "done", "cancelled")
COUNT_KEYS = ("done", "skipped", "failed", "left")


class SyncMark(NamedTuple):  # a NamedTuple: dataclasses (with inspect) is not on the host's hello path
    """What a save says about itself besides the conversation: the list's marker and who asked."""

    list_updated: str | None = None
    origin: str = "export"


def _now() -> str:
    from ..model import format_time  # (see the imports)

    return format_time(datetime.now(timezone.utc))


_RECORD = (
    "INSERT INTO sync_state (site, source_id, conversation_id, list_updated, complete, origin, saved_at)"
    " VALUES (?,?,?,?,?,?,?)"
    " ON CONFLICT (site, source_id) DO UPDATE SET conversation_id = excluded.conversation_id,"
    " list_updated = coalesce(excluded.list_updated, sync_state.list_updated),"
    " complete = excluded.complete, origin = excluded.origin, saved_at = excluded.saved_at"
)


def record_save(
    c: Connection, conv_id: str, site: str, source_id: str | None, complete: bool, mark: SyncMark
) -> None:
    """Upsert the sync row of a saved conversation (inside the save's transaction). A save that gives no
    list marker keeps the one recorded before; a conversation without a site id has no row."""
    record_saves(c, [(conv_id, site, source_id, complete, mark)])


def record_saves(c: Connection, saves: list[tuple[str, str, str | None, bool, SyncMark]]) -> None:
    """record_save for each (conversation id, site, site id, complete, mark), in one statement."""
    now = _now()
    rows = [
        (site, source_id, conv_id, mark.list_updated, int(complete), mark.origin, now)
        for conv_id, site, source_id, complete, mark in saves
        if source_id
    ]
    if rows:
        from .db import insert_rows  # (SQLCipher loads on use: the host's hello does not need it)

        insert_rows(c, _RECORD, rows)


def forget(c: Connection, conv_id: str) -> None:
    c.execute("DELETE FROM sync_state WHERE conversation_id = ?", (conv_id,))


def known(conn: Connection, site: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """{site id: {list_updated, complete, conversation_id}} for the ids the archive holds."""
    out: dict[str, dict[str, Any]] = {}
    if not ids:
        return out
    # (the ids as one JSON array: one statement whatever their number, not one prepared per count)
    rows = conn.execute(
        "SELECT s.source_id, s.list_updated, s.complete, s.conversation_id FROM sync_state s"
        " JOIN conversations c ON c.id = s.conversation_id"
        " WHERE s.site = ? AND s.source_id IN (SELECT value FROM json_each(?))",
        (site, json.dumps(ids)),
    )
    for source_id, marker, complete, conv_id in rows:
        out[source_id] = {"list_updated": marker, "complete": bool(complete), "conversation_id": conv_id}
    return out


def log_run(conn: Connection, run: dict[str, Any]) -> None:
    """Upsert one backup run by its id (the extension sends it at start, as it goes, and at the end)."""
    counts = {k: int(run["counts"].get(k, 0)) for k in COUNT_KEYS}
    with Transaction(conn) as c:
        c.execute(
            "INSERT INTO sync_runs (id, site, started_at, finished_at, state, counts, failures, recorded_at)"
            " VALUES (?,?,?,?,?,?,?,?)"
            " ON CONFLICT (id) DO UPDATE SET site = excluded.site, started_at = excluded.started_at,"
            " finished_at = excluded.finished_at, state = excluded.state, counts = excluded.counts,"
            " failures = excluded.failures, recorded_at = excluded.recorded_at",
            (
                run["id"],
                run["site"],
                run["started_at"],
                run.get("finished_at"),
                run["state"],
                json.dumps(counts),
                json.dumps(run.get("failures") or [], ensure_ascii=False),
                _now(),
            ),
        )


def runs(conn: Connection, limit: int = 10, site: str | None = None) -> list[dict[str, Any]]:
    """The latest runs, newest first by start time."""
    sql = "SELECT id, site, started_at, finished_at, state, counts, failures, recorded_at FROM sync_runs"
    args: list[Any] = []
    if site:
        sql += " WHERE site = ?"
        args.append(site)
    sql += " ORDER BY started_at DESC, recorded_at DESC LIMIT ?"
    out = []
    for rid, rsite, started, finished, state, counts, failures, recorded in conn.execute(sql, (*args, limit)):
        out.append(
            {
                "id": rid,
                "site": rsite,
                "started_at": started,
                "finished_at": finished,
                "state": state,
                "counts": json.loads(counts),
                "failures": json.loads(failures),
                "recorded_at": recorded,
            }
        )
    return out


def saved_counts(conn: Connection) -> dict[str, dict[str, int]]:
    """Per site: conversations held, and how many of them a backup, keep-current or export last saved."""
    out: dict[str, dict[str, int]] = {}
    for site, n in conn.execute("SELECT site, count(*) FROM conversations GROUP BY site ORDER BY site"):
        out[site] = {"conversations": n}
    rows = conn.execute(
        "SELECT s.site, s.origin, count(*), sum(1 - s.complete) FROM sync_state s"
        " JOIN conversations c ON c.id = s.conversation_id GROUP BY s.site, s.origin"
    )
    for site, origin, n, partial in rows:
        entry = out.setdefault(site, {"conversations": 0})
        entry[origin] = n
        entry["partial"] = entry.get("partial", 0) + int(partial or 0)
    return out
