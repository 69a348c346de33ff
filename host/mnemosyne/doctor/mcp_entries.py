"""Doctor checks of the MCP clients' entries (`mnemo install --mcp`): for each client, whether its config
file has our server, and whether that entry still starts an interpreter that exists."""

from __future__ import annotations

from pathlib import Path

from ..errors import MnemosyneError
from ..install import mcp_clients, mcp_config
from .checks import OK, WARN, Check


def check_client(client: mcp_clients.McpClient, system: str) -> Check:
    name = f"mcp client: {client.label}"
    path = mcp_clients.config_path(client, system)
    fix = f"mnemo install --mcp {client.name}"
    try:
        found = mcp_config.current_entry(client, path)
    except MnemosyneError as exc:
        return Check(name, WARN, exc.message, f"fix {path} by hand, then {fix}")
    if found is None:
        where = "no file" if not path.exists() else "no mnemosyne entry"
        return Check(name, OK, f"not configured ({where} in {path})", fix)
    command = found.get("command") if isinstance(found, dict) else None
    if not command or not Path(command).exists():
        return Check(name, WARN, f"{path}: the mnemosyne entry runs {command!r}, which does not exist", fix)
    if found.get("args") != mcp_clients.entry(client)["args"]:
        return Check(name, WARN, f"{path}: the mnemosyne entry does not run `mnemo mcp`", fix)
    return Check(name, OK, f"configured in {path} ({command})")


def check_clients(system: str) -> list[Check]:
    return [check_client(c, system) for c in mcp_clients.CLIENTS.values()]
