"""`mnemo sync-status` and `mnemo export --since` as a user runs them (in-process through main(argv))."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

from mnemosyne.archive import open_archive, sync
from mnemosyne.model import format_time
from mnemosyne.service.save import save_payload
from support.cli import run_cli
from support.data import load
from test_host_attachments import AI_ORIGIN, FILE_ID, SOURCE_ID
from test_host_sync import TIDE, capture_of

OLD = 1_600_000_000  # an mtime no export run can produce


def test_sync_status_prints_runs_failures_and_saved_counts(mnemo_home, fixtures):
    with open_archive() as arc:
        save_payload(arc, load(fixtures, TIDE), "chatgpt_api", list_updated="1", origin="backup")
        save_payload(arc, capture_of("other-id", complete=False), "capture", origin="keep-current")
        sync.log_run(
            arc.conn,
            {
                "id": "r1",
                "site": "chatgpt",
                "started_at": "2026-12-01T20:00:00Z",
                "finished_at": "2026-12-01T21:00:00Z",
                "state": "done",
                "counts": {"done": 1, "skipped": 0, "failed": 2, "left": 0},
                "failures": [{"id": "bad-1", "title": "Broken \x1b[31mred", "reason": "HTTP 500"}],
            },
        )
    env = dict(os.environ)
    data = json.loads(run_cli(env, "sync-status", "--json").stdout)
    assert data["sites"] == {"chatgpt": {"conversations": 2, "backup": 1, "keep-current": 1, "partial": 1}}
    assert [r["id"] for r in data["runs"]] == ["r1"] and data["runs"][0]["counts"]["failed"] == 2
    text = run_cli(env, "sync-status").stdout
    assert "chatgpt" in text and "backup 1" in text and "1 partial" in text
    assert "done 1, skipped 0, failed 2, left 0" in text and "HTTP 500" in text and "bad-1" in text
    assert "\x1b" not in text and "1 more failures not listed" in text


def test_export_writes_attachments_beside_markdown_and_rewrites_only_what_changed(
    mnemo_home, fixtures, tmp_path
):
    import base64
    import hashlib

    from mnemosyne.nativehost.actions.save_attachment import decode

    image = b"\xff\xd8\xff\xe0" + os.urandom(5000)
    with open_archive() as arc:
        ai = save_payload(arc, load(fixtures, AI_ORIGIN), "chatgpt_api")
        tide = save_payload(arc, load(fixtures, TIDE), "chatgpt_api")
        from mnemosyne.archive import attachments

        data = decode(base64.b64encode(image).decode())
        attachments.store(arc.conn, "chatgpt", SOURCE_ID, FILE_ID, "Photo (1).JPEG", "image/jpeg", data)
    env = dict(os.environ)
    vault = tmp_path / "vault"
    done = run_cli(env, "export", str(vault))
    assert "2 written, 0 unchanged, 1 attachment files written" in done.stdout
    [ai_md] = vault.glob(f"*-{ai.id}.md")
    [tide_md] = vault.glob(f"*-{tide.id}.md")
    files = vault / (ai_md.name[:-3] + ".files")
    [held] = list(files.iterdir())
    assert held.name == "4f172339-f8a9-4adf-b3f3-b0cc75fe2f38.jpeg" and held.read_bytes() == image
    text = ai_md.read_text(encoding="utf-8")
    assert text.startswith("---\n") and f'mnemosyne_id: "{ai.id}"' in text
    assert f"![4F172339-F8A9-4ADF-B3F3-B0CC75FE2F38.jpeg]({files.name}/{held.name})" in text
    assert hashlib.sha256(held.read_bytes()).hexdigest() in run_cli(env, "show", ai.id, "--json").stdout

    for path in (ai_md, tide_md, held):
        os.utime(path, (OLD, OLD))
    again = run_cli(env, "export", str(vault))
    assert "0 written, 2 unchanged, 0 attachment files written" in again.stdout
    assert {p.stat().st_mtime for p in (ai_md, tide_md, held)} == {OLD}

    since = format_time(datetime.now(timezone.utc))
    newer = load(fixtures, TIDE)
    newer["title"] = "Renamed on the site"
    newer["update_time"] = newer["update_time"] + 60
    with open_archive() as arc:
        assert save_payload(arc, newer, "chatgpt_api").status == "updated"
    incremental = run_cli(env, "export", "--since", since, str(vault))
    assert "exported 1 conversations" in incremental.stdout and "1 written" in incremental.stdout
    assert tide_md.exists() and "Renamed on the site" in tide_md.read_text(encoding="utf-8")  # same file name
    assert tide_md.stat().st_mtime != OLD and ai_md.stat().st_mtime == OLD
    assert sorted(p.name for p in vault.iterdir()) == sorted([ai_md.name, tide_md.name, files.name])
    nothing = run_cli(env, "export", "--since", "2999-01-01", str(vault))
    assert "exported 0 conversations" in nothing.stdout


def test_export_since_refuses_a_bad_date(mnemo_home, tmp_path):
    done = run_cli(dict(os.environ), "export", "--since", "last tuesday", str(tmp_path / "v"), check=False)
    assert done.returncode == 2 and "not a date" in done.stderr and "Traceback" not in done.stderr
