"""Adding our entry to an MCP client's config file, and taking it out, without touching anything else.

JSON files are read, our one key of the servers table set or removed, and written back (2-space indent).
Codex's TOML is edited as text (our table removed, then appended), and the result is parsed again: it
must equal the old file with only our entry changed, else nothing is written. A file that does not parse
is refused with BAD_CLIENT_CONFIG and left as it is; so is a JSON file with comments (JSONC), which
cannot be rewritten without losing them.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..settings import ConfigError, parse_toml
from . import InstallError
from .launcher import write_file_atomic
from .mcp_clients import JSON, SERVER_NAME, McpClient


class ClientConfigError(InstallError):
    code = "BAD_CLIENT_CONFIG"


@dataclass
class Change:
    path: Path
    text: str | None  # the new file; None when nothing changes
    existed: bool


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ClientConfigError(f"cannot read {path}: {exc}") from None


def load(client: McpClient, path: Path) -> tuple[str | None, dict[str, Any]]:
    """(the file's text, its data); (None, {}) when there is no file."""
    text = _read(path)
    if text is None or not text.strip():
        return text, {}
    if client.fmt == JSON:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ClientConfigError(
                f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); it was left unchanged. "
                f"Fix it, or add the entry `mnemo install --mcp {client.name} --dry-run` prints by hand"
            ) from None
    else:
        try:
            data = parse_toml(text.encode("utf-8"), path)
        except ConfigError as exc:
            raise ClientConfigError(f"{exc.message}; it was left unchanged") from None
    if not isinstance(data, dict):
        raise ClientConfigError(f"{path} does not hold a JSON object; it was left unchanged")
    servers = data.get(client.key, {})
    if not isinstance(servers, dict):
        raise ClientConfigError(f"{path}: {client.key} is not a table of servers; it was left unchanged")
    return text, data


def current_entry(client: McpClient, path: Path) -> Any:
    """Our entry in the file, None when there is none."""
    return load(client, path)[1].get(client.key, {}).get(SERVER_NAME)


# ---------------------------------------------------------------- TOML as text

_OUR_TABLE = re.compile(
    r"^\s*\[\s*" + r"mcp_servers\s*\.\s*(?:" + SERVER_NAME + r'|"' + SERVER_NAME + r'")\s*(?:\.[^\]]*)?\]'
)
_ANY_TABLE = re.compile(r"^\s*\[")


def _without_our_tables(text: str) -> str:
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if _ANY_TABLE.match(line):
            skipping = bool(_OUR_TABLE.match(line))
        if not skipping:
            out.append(line)
    return re.sub(r"\n{3,}", "\n\n", "".join(out))


def _toml_string(value: str) -> str:
    return json.dumps(value)  # JSON's escapes (\\ \" \n \uXXXX) are TOML basic-string escapes


def toml_block(entry: dict[str, Any]) -> str:
    lines = [f"[mcp_servers.{SERVER_NAME}]", f"command = {_toml_string(entry['command'])}"]
    lines.append("args = [" + ", ".join(_toml_string(a) for a in entry["args"]) + "]")
    if entry.get("env"):
        lines += ["", f"[mcp_servers.{SERVER_NAME}.env]"]
        lines += [f"{name} = {_toml_string(value)}" for name, value in entry["env"].items()]
    return "\n".join(lines) + "\n"


def _servers_normalised(data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if data.get("mcp_servers") == {}:
        del data["mcp_servers"]
    return data


def _checked_toml(client: McpClient, path: Path, new: str, expected: dict[str, Any]) -> str:
    try:
        parsed = parse_toml(new.encode("utf-8"), path)
    except ConfigError:
        parsed = None
    if parsed is None or _servers_normalised(parsed) != _servers_normalised(expected):
        raise ClientConfigError(
            f"{path} declares the {SERVER_NAME} server in a way this command does not edit; it was left "
            f"unchanged. Edit it by hand (`mnemo install --mcp {client.name} --dry-run` prints the table)"
        )
    return new


# ---------------------------------------------------------------- changes


def install_change(client: McpClient, path: Path, entry: dict[str, Any]) -> Change:
    text, data = load(client, path)
    existed = text is not None
    if data.get(client.key, {}).get(SERVER_NAME) == entry:
        return Change(path, None, existed)
    expected = copy.deepcopy(data)
    expected.setdefault(client.key, {})[SERVER_NAME] = entry
    if client.fmt == JSON:
        return Change(path, json.dumps(expected, indent=2, ensure_ascii=False) + "\n", existed)
    base = _without_our_tables(text or "").rstrip("\n")
    new = (base + "\n\n" if base.strip() else "") + toml_block(entry)
    return Change(path, _checked_toml(client, path, new, expected), existed)


def uninstall_change(client: McpClient, path: Path) -> Change:
    text, data = load(client, path)
    if text is None or SERVER_NAME not in data.get(client.key, {}):
        return Change(path, None, text is not None)
    expected = copy.deepcopy(data)
    del expected[client.key][SERVER_NAME]
    if client.fmt == JSON:
        return Change(path, json.dumps(expected, indent=2, ensure_ascii=False) + "\n", True)
    new = _without_our_tables(text).rstrip("\n") + "\n"
    return Change(path, _checked_toml(client, path, new, expected), True)


def apply(change: Change) -> None:
    """Write the new file atomically, keeping an existing file's permissions (a new one is 0600: it may
    hold other servers' keys)."""
    if change.text is None:
        return
    mode = change.path.stat().st_mode & 0o777 if change.existed else 0o600
    write_file_atomic(change.path, change.text.encode("utf-8"), mode)
