"""The manifest templates have one copy (host/mnemosyne/install/templates/): `mnemo install` writes
exactly those templates, filled in, for each browser family."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mnemosyne.extension_ids import CHROMIUM_EXTENSION_ID, FIREFOX_ADDON_ID
from support.cli import run_cli

TEMPLATES = Path(__file__).resolve().parents[2] / "host" / "mnemosyne" / "install" / "templates"


def _filled(family: str, launcher: str) -> dict:
    text = (TEMPLATES / f"{family}.json").read_text("utf-8")
    values = {
        "{launcher_path}": launcher,
        "{chromium_extension_id}": CHROMIUM_EXTENSION_ID,
        "{firefox_addon_id}": FIREFOX_ADDON_ID,
    }

    def fill(value):
        if isinstance(value, str):
            for key, text in values.items():
                value = value.replace(key, text)
            return value
        if isinstance(value, list):
            return [fill(v) for v in value]
        return {k: fill(v) for k, v in value.items()} if isinstance(value, dict) else value

    return fill(json.loads(text))


def test_installed_manifests_are_the_single_template_copy_filled_in(tmp_path):
    home = tmp_path / "home"
    (home / ".mozilla").mkdir(parents=True)
    env = dict(
        os.environ,
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        MNEMOSYNE_HOME=str(tmp_path / "data"),
        MNEMOSYNE_KEY_FILE=str(tmp_path / "data" / "archive.key"),
    )
    (home / ".config" / "chromium").mkdir(parents=True)
    run_cli(env, "install", "--browser", "all")
    written = {
        "chromium": home / ".config" / "chromium" / "NativeMessagingHosts" / "org.mnemosyne.host.json",
        "firefox": home / ".mozilla" / "native-messaging-hosts" / "org.mnemosyne.host.json",
    }
    for family, path in written.items():
        installed = json.loads(path.read_text("utf-8"))
        launcher = Path(installed["path"])
        assert (
            launcher.is_absolute()
            and launcher.is_relative_to(tmp_path / "data")
            and os.access(launcher, os.X_OK)
        )
        assert installed == _filled(family, str(launcher)), family
    assert "allowed_origins" not in json.loads(written["firefox"].read_text("utf-8"))
    assert not list((Path(__file__).resolve().parents[2] / "manifests").glob("*.json"))  # no second copy
