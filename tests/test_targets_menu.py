"""The host's `targets` menu is all the extension knows of targets: every entry names a real target, and
every page it fills is one the extension may open and runs its filler on."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from mnemosyne.context.targets import get_target
from mnemosyne.nativehost.actions.targets import run

MANIFEST = json.loads(
    (Path(__file__).resolve().parents[1] / "extension" / "manifest.json").read_text("utf-8")
)


def test_every_menu_entry_is_a_target_with_its_budget_and_label():
    menu = run({}, None)["menu"]
    assert [entry["group"] for entry in menu] == ["web"] * 8 + ["agent", "local"]
    for entry in menu:
        target = get_target(entry["target"])
        assert target.name == entry["target"]  # a canonical name, no alias
        assert entry["label"] == target.label and entry["budget"] == target.default_budget
        assert entry["estimate"] is (not target.exact)


def test_fill_pages_are_sites_the_extension_fills():
    filled = [entry["fill_url"] for entry in run({}, None)["menu"] if entry["fill_url"]]
    assert len(filled) == 8
    matches = {m for script in MANIFEST["content_scripts"] for m in script["matches"]}
    for url in filled:
        parts = urlsplit(url)
        assert parts.scheme == "https"
        pattern = f"https://{parts.hostname}/*"
        assert pattern in MANIFEST["host_permissions"] and pattern in matches, url
    copied = [entry for entry in run({}, None)["menu"] if not entry["fill_url"]]
    assert {entry["group"] for entry in copied} == {"agent", "local"}
