"""host/PROTOCOL.md and the code say the same thing (the sqlite-utils test_docs idea)."""

from __future__ import annotations

import re
from pathlib import Path

from mnemosyne.nativehost.actions import ACTIONS
from mnemosyne.nativehost.codes import ERROR_CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "host" / "PROTOCOL.md").read_text(encoding="utf-8")


def test_every_action_is_documented_and_every_documented_action_exists():
    documented = set(re.findall(r"^### `([a-z_-]+)`", DOC, flags=re.M))
    assert documented == set(ACTIONS)


def test_error_code_table_matches_the_code_list():
    section = DOC.split("## Error codes", 1)[1]
    table = re.findall(r"^\| `([A-Z_]+)` \|", section, flags=re.M)
    assert table == list(ERROR_CODES)


def test_every_code_raised_in_the_source_is_listed():
    package = ROOT / "host" / "mnemosyne"
    cli_only = (package / "install", package / "cli")  # codes printed by commands, never sent to the browser
    files = [p for p in package.rglob("*.py") if not any(d in p.parents for d in cli_only)]
    source = "\n".join(p.read_text(encoding="utf-8") for p in files)
    raised = set(re.findall(r"""code\s*=\s*["']([A-Z][A-Z_]+)["']""", source))
    raised |= set(re.findall(r"""RequestError\(\s*["']([A-Z][A-Z_]+)["']""", source))
    raised |= set(re.findall(r"""FrameError\(\s*["']([A-Z][A-Z_]+)["']""", source))
    not_sent = {"TRUNCATED_FRAME"}  # the host exits instead of replying when a frame cannot be read
    not_sent.add("BAD_CONFIG")  # settings.py: config.toml is read by `mnemo mcp` only, never by the host
    host_codes = raised - not_sent
    missing = {
        c
        for c in host_codes
        if c not in ERROR_CODES and not c.startswith(("UNKNOWN_CONTENT", "ORDER_", "ARTIFACT_", "DANGLING"))
    }
    assert not missing, f"codes raised but not in PROTOCOL.md: {sorted(missing)}"


def test_documented_request_examples_are_valid_json_with_known_actions():
    import json

    blocks = re.findall(r"```json\n(.*?)```", DOC, flags=re.S)
    requests = [json.loads(b) for b in blocks if '"action"' in b]
    assert {r["action"] for r in requests} == set(ACTIONS)
