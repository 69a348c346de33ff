"""Redaction covers every free text a conversation carries, not only its messages' texts: a project's name (the
Markdown front matter's `project`, the portable `source.project`), a project document's name, an attachment's
name. Over the real host's `get` in every format, `mnemo show --redact`, and a context."""

from __future__ import annotations

import json

import pytest

from support.cli import mnemo
from support.data import load
from support.hostproc import host_env

EMAIL = "alice.smith@corp.example"
KEY = "sk-proj-" + "Ab3dE5gH7jK9mN2pQ4rS6tU8vW0xY1z" * 2
SECRETS = (EMAIL, KEY, "sk-proj-")
ATTACHMENTS = "claude_export/echomine_claude_attachments.json"
FORMATS = ("markdown", "portable", "text", "html", "openai", "anthropic", "ollama")


def hostile_claude(fixtures) -> dict:
    [conv] = load(fixtures, ATTACHMENTS)
    conv["project"] = {
        "uuid": "0b9e2c3d-0000-4000-8000-00000000cccc",
        "name": f"Payroll {EMAIL} {KEY}",
        "prompt_template": "Answer briefly.",
        "docs": [{"filename": f"salaries-{EMAIL}.csv", "content": "name,salary"}],
    }
    first = next(m for m in conv["chat_messages"] if m.get("attachments"))
    first["attachments"][0]["file_name"] = f"contract for {EMAIL}.pdf"
    return conv


def hostile_chatgpt(fixtures) -> dict:
    conv = load(
        fixtures,
        "chatgpt_api/elinvoss/0119-Tide_anneal_crucible_explanation-6925e174-6714-832f-8946-84bdb22f6d2e.json",
    )
    conv["mnemosyne_project"] = {
        "id": conv["conversation_template_id"],
        "name": f"Payroll {EMAIL} {KEY}",
        "instructions": "Answer in Spanish.",
    }
    return conv


@pytest.mark.parametrize("site", ["claude", "chatgpt"])
def test_get_with_redact_leaves_no_secret_in_any_free_text_of_any_format(host, fixtures, site):
    payload = hostile_claude(fixtures) if site == "claude" else hostile_chatgpt(fixtures)
    saved = host.data("save", payload=payload, kind=f"{site}_api")
    plain = host.paged("get", conversation_id=saved["conversation_id"], format="markdown")[0]
    assert EMAIL in plain and KEY in plain  # what the test hides is there unredacted
    for fmt in FORMATS:
        text = host.paged("get", conversation_id=saved["conversation_id"], format=fmt, redact=True)[0]
        assert not [s for s in SECRETS if s in text], (
            fmt,
            [line for line in text.splitlines() if EMAIL in line],
        )
    portable = json.loads(host.paged("get", conversation_id=saved["conversation_id"], redact=True)[0])
    assert portable["source"]["project"].startswith("Payroll ")
    for target in ("chatgpt", "claude-md", "claude-api"):
        context = host.paged("context", conversation_id=saved["conversation_id"], target=target, redact=True)[
            0
        ]
        assert not [s for s in SECRETS if s in context], target


def test_mnemo_show_redact_covers_the_project_and_names(tmp_path, fixtures):
    from support.hostproc import HostProcess

    env = host_env(tmp_path / "home")
    host = HostProcess(env)
    try:
        saved = host.data("save", payload=hostile_claude(fixtures), kind="claude_api")
    finally:
        host.kill()
    for fmt in ("markdown", "portable", "text", "html"):
        shown = mnemo(env, "show", saved["conversation_id"], "--format", fmt, "--redact").stdout
        assert "Payroll" in shown or fmt in ("text", "html"), fmt
        assert not [s for s in SECRETS if s in shown], fmt
