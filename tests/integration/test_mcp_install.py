"""`mnemo install --mcp`, `mnemo uninstall --mcp` and `mnemo doctor` on copies of realistic config files
of every client (tests/fixtures/mcp_configs): our entry is added and removed, every other server and
setting is kept, a broken file is refused and left as it was, and --dry-run writes nothing."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import tomllib

from mnemosyne.install import mcp_clients
from support.cli import run_cli

FIX = Path(__file__).parents[1] / "fixtures" / "mcp_configs"
SAMPLES = {
    "claude-desktop": "claude_desktop_config.json",
    "claude-code": "claude.json",
    "cursor": "cursor_mcp.json",
    "vscode": "vscode_mcp.json",
    "codex": "codex_config.toml",
    "gemini-cli": "gemini_settings.json",
}


@pytest.fixture
def home(tmp_path):
    """A home folder with a copy of every client's sample config where this OS's client reads it."""
    home = tmp_path / "userhome"
    env = {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "APPDATA": str(home / "AppData" / "Roaming"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "MNEMOSYNE_HOME": str(tmp_path / "data"),
        "MNEMOSYNE_KEY_FILE": str(tmp_path / "data" / "key"),
        "PATH": "/usr/bin:/bin",
    }
    return home, env


def path_of(env, name: str) -> Path:
    from unittest import mock

    from mnemosyne.install.locations import current_os

    with mock.patch.dict("os.environ", env), mock.patch("pathlib.Path.home", return_value=Path(env["HOME"])):
        return mcp_clients.config_path(mcp_clients.CLIENTS[name], current_os())


def place(env, name: str) -> Path:
    path = path_of(env, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIX / SAMPLES[name], path)
    return path


def parse(name: str, path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if name == "codex" else json.loads(text)


def cli(env, *args, check=True):
    from unittest import mock

    with mock.patch("pathlib.Path.home", return_value=Path(env["HOME"])):
        return run_cli(env, *args, check=check)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_install_merges_then_uninstall_restores(home, name):
    _, env = home
    path = place(env, name)
    before = parse(name, path)
    client = mcp_clients.CLIENTS[name]

    out = cli(env, "install", "--mcp", name).stdout
    assert f"added mnemosyne to {path}" in out
    after = parse(name, path)
    ours = after[client.key].pop("mnemosyne")
    assert after == before  # every other server and setting kept
    assert ours["command"] == str(Path(sys.executable).absolute()) and Path(ours["command"]).exists()
    assert ours["args"] == ["-m", "mnemosyne.cli.main", "mcp"]
    assert ours["env"]["MNEMOSYNE_HOME"] == env["MNEMOSYNE_HOME"]
    assert ("type" in ours) == client.stdio_type

    assert "already configured" in cli(env, "install", "--mcp", name).stdout
    doctor = json.loads(cli(env, "doctor", "--json", check=False).stdout)
    check = next(c for c in doctor["checks"] if c["name"] == f"mcp client: {client.label}")
    assert check["status"] == "ok" and check["detail"].startswith("configured in")

    assert f"removed the mnemosyne entry from {path}" in cli(env, "uninstall", "--mcp", name).stdout
    assert parse(name, path) == before
    assert "no mnemosyne entry" in cli(env, "uninstall", "--mcp", name).stdout


@pytest.mark.parametrize("name", list(SAMPLES))
def test_dry_run_writes_nothing(home, name):
    _, env = home
    path = place(env, name)
    original = path.read_bytes()
    out = cli(env, "install", "--mcp", name, "--dry-run").stdout
    assert f"would add to {path}" in out and "mnemosyne.cli.main" in out
    assert path.read_bytes() == original
    cli(env, "install", "--mcp", name)
    installed = path.read_bytes()
    assert "would remove" in cli(env, "uninstall", "--mcp", name, "--dry-run").stdout
    assert path.read_bytes() == installed


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_broken_file_is_refused_and_kept(home, name):
    _, env = home
    path = place(env, name)
    broken = path.read_text(encoding="utf-8").replace("]", "", 1).encode()
    path.write_bytes(broken)
    done = cli(env, "install", "--mcp", name, check=False)
    assert done.returncode == 2 and "[BAD_CLIENT_CONFIG]" in done.stderr and "left unchanged" in done.stderr
    assert path.read_bytes() == broken
    doctor = json.loads(cli(env, "doctor", "--json", check=False).stdout)
    label = mcp_clients.CLIENTS[name].label
    assert next(c for c in doctor["checks"] if c["name"] == f"mcp client: {label}")["status"] == "warn"


def test_a_missing_file_is_created_and_all_skips_absent_clients(home):
    _, env = home
    cursor = path_of(env, "cursor")
    assert not cursor.exists()
    out = cli(env, "install", "--mcp", "all").stdout
    assert out.count("not found here") == len(SAMPLES) and not cursor.exists()
    cli(env, "install", "--mcp", "cursor")
    assert list(parse("cursor", cursor)["mcpServers"]) == ["mnemosyne"]
    assert cursor.stat().st_mode & 0o777 == 0o600
    codex = place(env, "codex")
    out = cli(env, "install", "--mcp", "all").stdout
    assert f"added mnemosyne to {codex}" in out and "Cursor: already configured" in out
    cli(env, "uninstall", "--mcp")
    assert parse("cursor", cursor)["mcpServers"] == {}
    assert "mnemosyne" not in parse("codex", codex)["mcp_servers"]


def test_codex_entry_written_elsewhere_is_not_edited(home):
    _, env = home
    path = place(env, "codex")
    odd = path.read_text() + '\n[mcp_servers]\nmnemosyne = { command = "old", args = [] }\n'
    path.write_text(odd)
    done = cli(env, "install", "--mcp", "codex", check=False)
    assert "[BAD_CLIENT_CONFIG]" in done.stderr and path.read_text() == odd


def test_jsonc_comments_are_refused(home):
    _, env = home
    path = place(env, "vscode")
    commented = "// my servers\n" + path.read_text()
    path.write_text(commented)
    done = cli(env, "install", "--mcp", "vscode", check=False)
    assert "[BAD_CLIENT_CONFIG]" in done.stderr and "not valid JSON" in done.stderr
    assert path.read_text() == commented


def test_browser_options_do_not_apply_to_mcp(home):
    _, env = home
    done = cli(env, "install", "--mcp", "cursor", "--system", check=False)
    assert done.returncode == 2 and "[INSTALL_FAILED]" in done.stderr and "do not apply" in done.stderr
    assert not path_of(env, "cursor").exists()
