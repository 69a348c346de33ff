"""The MCP clients `mnemo install --mcp` configures: where each keeps its user-level server list, per OS,
and what our entry looks like there. Taken from each client's documentation:

- Claude Desktop: claude_desktop_config.json, `mcpServers` (macOS and Windows builds; the Linux path is
  where community builds read it).
- Claude Code: ~/.claude.json, top-level `mcpServers` (its "user" scope, every project).
- Cursor: ~/.cursor/mcp.json, `mcpServers`.
- VS Code: the user profile's mcp.json, `servers`, each with "type": "stdio".
- Codex: $CODEX_HOME/config.toml (default ~/.codex), one `[mcp_servers.NAME]` table each.
- Gemini CLI: ~/.gemini/settings.json, `mcpServers`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .launcher import current_env
from .locations import LINUX, MACOS, WINDOWS

SERVER_NAME = "mnemosyne"
JSON, TOML = "json", "toml"


@dataclass(frozen=True)
class McpClient:
    name: str  # the --mcp value
    label: str
    fmt: str  # JSON or TOML
    key: str  # the table of servers inside the file
    paths: dict[str, str]  # per OS; ~, %APPDATA%, $XDG_CONFIG_HOME and $CODEX_HOME are expanded
    stdio_type: bool = False  # the entry names its transport ("type": "stdio")


# The one table of per-OS locations (the README's table is written from it).
CLIENTS: dict[str, McpClient] = {
    c.name: c
    for c in (
        McpClient(
            "claude-desktop",
            "Claude Desktop",
            JSON,
            "mcpServers",
            {
                MACOS: "~/Library/Application Support/Claude/claude_desktop_config.json",
                WINDOWS: "%APPDATA%/Claude/claude_desktop_config.json",
                LINUX: "$XDG_CONFIG_HOME/Claude/claude_desktop_config.json",
            },
        ),
        McpClient(
            "claude-code",
            "Claude Code",
            JSON,
            "mcpServers",
            {MACOS: "~/.claude.json", WINDOWS: "~/.claude.json", LINUX: "~/.claude.json"},
            stdio_type=True,
        ),
        McpClient(
            "cursor",
            "Cursor",
            JSON,
            "mcpServers",
            {MACOS: "~/.cursor/mcp.json", WINDOWS: "~/.cursor/mcp.json", LINUX: "~/.cursor/mcp.json"},
        ),
        McpClient(
            "vscode",
            "VS Code",
            JSON,
            "servers",
            {
                MACOS: "~/Library/Application Support/Code/User/mcp.json",
                WINDOWS: "%APPDATA%/Code/User/mcp.json",
                LINUX: "$XDG_CONFIG_HOME/Code/User/mcp.json",
            },
            stdio_type=True,
        ),
        McpClient(
            "codex",
            "Codex",
            TOML,
            "mcp_servers",
            {
                MACOS: "$CODEX_HOME/config.toml",
                WINDOWS: "$CODEX_HOME/config.toml",
                LINUX: "$CODEX_HOME/config.toml",
            },
        ),
        McpClient(
            "gemini-cli",
            "Gemini CLI",
            JSON,
            "mcpServers",
            {
                MACOS: "~/.gemini/settings.json",
                WINDOWS: "~/.gemini/settings.json",
                LINUX: "~/.gemini/settings.json",
            },
        ),
    )
}
ALL = "all"


def _expand(template: str) -> Path:
    home = Path.home()
    variables = {
        "%APPDATA%": os.environ.get("APPDATA") or str(home / "AppData" / "Roaming"),
        "$XDG_CONFIG_HOME": os.environ.get("XDG_CONFIG_HOME") or str(home / ".config"),
        "$CODEX_HOME": os.environ.get("CODEX_HOME") or str(home / ".codex"),
    }
    for name, value in variables.items():
        if template.startswith(name):
            return Path(value) / template[len(name) + 1 :]
    if template.startswith("~/"):
        return home / template[2:]
    return Path(template)


def config_path(client: McpClient, system: str) -> Path:
    return _expand(client.paths[system])


def chosen(name: str) -> list[McpClient]:
    return list(CLIENTS.values()) if name == ALL else [CLIENTS[name]]


def entry(
    client: McpClient, interpreter: str | None = None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Our server entry: this Python running `mnemo mcp` (a client starts it with its own PATH, so the
    interpreter is named in full), with the data-folder settings this install uses."""
    found: dict[str, Any] = {"type": "stdio"} if client.stdio_type else {}
    found["command"] = interpreter or os.path.abspath(sys.executable)
    found["args"] = ["-m", "mnemosyne.cli.main", "mcp"]
    env = current_env() if env is None else env
    if env:
        found["env"] = dict(env)
    return found
