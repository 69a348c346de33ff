"""`mnemo mcp`: serve the archive to MCP clients (Claude Code, Claude Desktop, Cursor, VS Code, Codex,
Gemini CLI) over stdio. Clients start it themselves; `mnemo install --mcp CLIENT` writes their entry."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--list-tools", action="store_true", help="print the tools and their JSON schemas, then exit"
    )


def run(args: argparse.Namespace) -> int:
    if args.list_tools:
        from ..mcpserver import server  # the MCP SDK: 1-3 s of imports no other command pays

        sys.stdout.write(server.tool_listing() + "\n")
        return 0
    from ..mcpserver import startup  # (as above)

    warming = startup.start_warm_up()  # overlaps the SDK's import
    startup.import_lean()
    from ..mcpserver import server  # (as above)

    if sys.stdin.isatty():
        print(
            "mnemo mcp speaks MCP on stdin/stdout: an MCP client starts it. "
            "Run `mnemo install --mcp CLIENT` to add it to a client.",
            file=sys.stderr,
        )
    return server.serve(warming, startup.load_whole_encoding_when_idle)
