"""The archive commands as a user runs them: import exports, list, search, show, delete, export."""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from support.cli import mnemo, run_cli

FIX = Path(__file__).parents[1] / "fixtures"


@pytest.fixture
def env(tmp_path):
    import os

    return dict(
        os.environ, MNEMOSYNE_HOME=str(tmp_path / "home"), MNEMOSYNE_KEY_FILE=str(tmp_path / "home" / "key")
    )


def export_zip(tmp_path: Path, name: str, members: dict[str, Path]) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as zf:
        for member, source in members.items():
            zf.write(source, member)
        zf.writestr("chat.html", "<html></html>")
    return path


def test_import_exports_then_search_list_show_delete_export(env, tmp_path):
    chatgpt_zip = export_zip(
        tmp_path,
        "chatgpt-export.zip",
        {"conversations.json": FIX / "chatgpt_export" / "librechat_chatgpt-export.json"},
    )
    claude_zip = export_zip(
        tmp_path,
        "claude-export.zip",
        {"conversations.json": FIX / "claude_export" / "echomine_claude_sample_export.json"},
    )
    first = run_cli(env, "import", str(chatgpt_zip), str(claude_zip))
    assert "imported 7, updated 0, unchanged 0, failed 0" in first.stdout
    again = run_cli(env, "import", str(chatgpt_zip))
    assert "imported 0, updated 0, unchanged 2, failed 0" in again.stdout

    items = json.loads(run_cli(env, "list", "--json").stdout)
    assert len(items) == 7 and {i["site"] for i in items} == {"chatgpt", "claude"}
    claude_only = json.loads(run_cli(env, "list", "--json", "--source", "claude").stdout)
    assert len(claude_only) == 5

    hits = json.loads(run_cli(env, "search", "--json", "python").stdout)
    assert hits and all("«" in h["snippet"] for h in hits)
    text_hits = run_cli(env, "search", "python").stdout
    assert hits[0]["id"] in text_hits

    conv_id = items[0]["id"]
    shown = run_cli(env, "show", conv_id[:6]).stdout
    assert shown.startswith("---\n") and "## " in shown
    portable = json.loads(run_cli(env, "show", conv_id, "--json").stdout)
    assert portable["id"] == conv_id and portable["format"] == "mnemosyne.conversation"

    out = tmp_path / "exported"
    run_cli(env, "export", "--to", "markdown", str(out))
    files = sorted(out.iterdir())
    assert len(files) == 7 and all(f.suffix == ".md" and len(f.name.encode()) <= 255 for f in files)
    if os.name == "posix":  # what leaves the encrypted archive stays private to the user
        assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {0o600}
        assert stat.S_IMODE(out.stat().st_mode) == 0o700

    run_cli(env, "delete", conv_id)
    assert len(json.loads(run_cli(env, "list", "--json").stdout)) == 6
    missing = run_cli(env, "show", conv_id, check=False)
    assert missing.returncode == 2 and "NOT_FOUND" in missing.stderr and "Traceback" not in missing.stderr


def test_import_reports_broken_inputs_and_keeps_going(env, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    good = FIX / "claude_export" / "echomine_claude_sample_export.json"
    done = run_cli(env, "import", str(broken), str(good), check=False)
    assert done.returncode == 1
    assert "broken.json" in done.stderr and "Traceback" not in done.stderr
    assert "imported 5" in done.stdout


def test_every_command_has_help_and_is_in_the_readme(env):
    from mnemosyne.cli.main import COMMANDS

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        done = run_cli(env, name, "--help")
        assert done.stdout.startswith(f"usage: mnemo {name}")
        assert f"mnemo {name}" in readme, f"README does not mention `mnemo {name}`"


def test_redact_applies_to_show_export_context_and_convert_title_included(env, tmp_path):
    title_secret = "glpat-" + "Xy7Kq2Lm9Nb4Vc8Zt1Rw"
    body = "deploy with DB_PASSWORD=Tr0ub4dor-and-3 and card 4539148803436467"
    capture = {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": "claude",
        "url": "https://claude.ai/chat/k1",
        "conversation_id": "k1",
        "title": f"rotate {title_secret}",
        "captured_at": "2026-11-30T10:00:00Z",
        "complete": True,
        "turns": [
            {"key": "a", "order": 0, "role": "user", "model": None, "markdown": body, "attachments": []},
            {
                "key": "b",
                "order": 1,
                "role": "assistant",
                "model": None,
                "markdown": "Done.",
                "attachments": [],
            },
        ],
    }
    source = tmp_path / "capture.json"
    source.write_text(json.dumps(capture), encoding="utf-8")
    run_cli(env, "import", str(source))
    conv_id = json.loads(run_cli(env, "list", "--json").stdout)[0]["id"]
    secrets = (title_secret, "Tr0ub4dor-and-3", "4539148803436467")

    outputs = {
        "show": run_cli(env, "show", conv_id, "--redact").stdout,
        "show --json": run_cli(env, "show", conv_id, "--json", "--redact").stdout,
        "context": run_cli(env, "context", conv_id, "--target", "claude", "--redact").stdout,
        "convert": mnemo(
            env, "convert", str(source), "--to", "markdown", "--redact"
        ).stdout,  # writes bytes: a real process
    }
    out = tmp_path / "redacted"
    run_cli(env, "export", "--to", "markdown", "--redact", str(out))
    [exported] = list(out.iterdir())
    outputs["export"] = exported.name + "\n" + exported.read_text(encoding="utf-8")
    for where, text in outputs.items():
        for value in secrets:
            assert value not in text, (where, value)
        assert "[REDACTED:" in text, where
    assert title_secret in run_cli(env, "show", conv_id).stdout  # without --redact the archive text is shown
