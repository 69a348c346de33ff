"""A canary string saved through the real host and through `mnemo import`
must not appear in plain text anywhere on disk: the database, its WAL and SHM
files, the logs, or temp files (TMPDIR points into the test's folder).

The canary is searched as UTF-8, UTF-16 and in its JSON-escaped form, while the
host is still running (WAL and SHM present) and again after it exits."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from support.hostproc import HostProcess

from .figures import record
from .hostio import capture_payload

pytestmark = pytest.mark.robustness

MNEMO = str(Path(sys.executable).with_name("mnemo"))


def needles(canary: str) -> list[bytes]:
    return [
        canary.encode("utf-8"),
        canary.encode("utf-16-le"),
        canary.encode("utf-16-be"),
        json.dumps(canary).encode()[1:-1],
        canary[: len(canary) // 2].encode("utf-8"),
    ]


def scan(folders: list[Path], canary: str) -> tuple[int, int, list[str]]:
    """(files scanned, hits, where)."""
    files = hits = 0
    where = []
    for folder in folders:
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            files += 1
            data = path.read_bytes()
            found = sum(data.count(n) for n in needles(canary))
            if found:
                hits += found
                where.append(f"{path.name}: {found}")
    return files, hits, where


def chatgpt_export(canary: str) -> list[dict]:
    """A minimal official-export conversation with the canary in its text."""
    return [
        {
            "title": f"Import {canary}",
            "create_time": 1732549284.5,
            "update_time": 1732549290.1,
            "conversation_id": "6925e174-6714-832f-8946-84bdb22f6d2f",
            "current_node": "b",
            "mapping": {
                "root": {"id": "root", "message": None, "parent": None, "children": ["a"]},
                "a": {
                    "id": "a",
                    "parent": "root",
                    "children": ["b"],
                    "message": {
                        "id": "a",
                        "author": {"role": "user"},
                        "create_time": 1732549284.5,
                        "content": {"content_type": "text", "parts": [f"my secret is {canary}"]},
                    },
                },
                "b": {
                    "id": "b",
                    "parent": "a",
                    "children": [],
                    "message": {
                        "id": "b",
                        "author": {"role": "assistant"},
                        "create_time": 1732549290.1,
                        "content": {"content_type": "text", "parts": [f"noted: {canary}"]},
                    },
                },
            },
        }
    ]


def test_canary_never_reaches_the_disk_in_plain_text(env, home, tmp_path):
    canary = "CANARY-" + secrets.token_hex(12)
    temp = Path(env["TMPDIR"])
    host = HostProcess(env)
    try:
        saved = host.data(
            "save",
            kind="capture",
            payload=capture_payload(
                "canary1", f"Title {canary}", [f"question {canary}", f"answer {canary} " * 50]
            ),
        )
        hits = host.data("search", query=canary)["items"]
        page = host.data("get", conversation_id=saved["conversation_id"], format="markdown")["chunk"]
        for _ in range(20):  # more traffic so the WAL holds several frames
            host.data("search", query=canary[:12])
        files_live, live_hits, live_where = scan([home, temp], canary)
        wal_live = (home / "archive.db-wal").exists()
    finally:
        host.close()
    export = tmp_path / "in" / "conversations.json"
    export.parent.mkdir()
    export.write_text(json.dumps(chatgpt_export(canary)), encoding="utf-8")
    done = subprocess.run(
        [MNEMO, "import", str(export)], env=env, capture_output=True, text=True, timeout=120
    )
    assert scan([export.parent], canary)[1] > 0, "the scanner finds the canary in plain text"
    export.unlink()  # the plain input file is the user's; only Mnemosyne's files are scanned
    found = subprocess.run(
        [MNEMO, "search", canary, "--json"], env=env, capture_output=True, text=True, timeout=120
    )
    files_after, after_hits, after_where = scan([home, temp], canary)
    record(
        "encryption canary", "files scanned while the host ran (db, WAL, SHM, logs, key, TMPDIR)", files_live
    )
    record("encryption canary", "files scanned after host exit and `mnemo import`", files_after)
    record("encryption canary", "canary occurrences on disk", live_hits + after_hits, "0")
    assert hits and canary in page, "the canary must really be in the archive"
    assert wal_live, "the WAL file should exist while the host runs"
    assert done.returncode == 0 and "imported 1" in done.stdout, done.stderr
    assert len(json.loads(found.stdout)) == 2  # the host's save and the import
    assert live_hits + after_hits == 0, live_where + after_where
