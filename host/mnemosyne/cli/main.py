"""`mnemo` entry point. COMMANDS names, for each command, the function that adds its arguments and the
one that runs it (cli/<module>.py); only the chosen command's module is imported, so `mnemo host`
starts without loading what it does not need."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from .. import __version__
from ..errors import MnemosyneError
from ..runtime import appenv
from ..runtime.lazy import load

_CLI = "mnemosyne.cli"


@dataclass(frozen=True)
class Command:
    """One `mnemo` command: its one-line help and the functions that define and run it."""

    help: str
    add_arguments: str  # "module:function" taking the subparser
    run: str  # "module:function" taking the parsed args, returning the exit code


def _cmd(module: str, help: str, add: str = "add_arguments", run: str = "run") -> Command:
    return Command(help, f"{_CLI}.{module}:{add}", f"{_CLI}.{module}:{run}")


COMMANDS: dict[str, Command] = {
    "convert": _cmd("convert", "convert a conversation file, export or zip to another format"),
    "schema": _cmd("schema", "print the JSON Schema of the Mnemosyne conversation format"),
    "import": _cmd(
        "archive_cmds",
        "import files, folders or export zips into the archive",
        "add_import_arguments",
        "run_import",
    ),
    "list": _cmd(
        "archive_cmds", "list archived conversations, newest first", "add_list_arguments", "run_list"
    ),
    "search": _cmd("archive_cmds", "full-text search the archive", "add_search_arguments", "run_search"),
    "show": _cmd("archive_cmds", "show one archived conversation", "add_show_arguments", "run_show"),
    "delete": _cmd("archive_cmds", "delete an archived conversation", "add_delete_arguments", "run_delete"),
    "export": _cmd(
        "archive_cmds",
        "export the whole archive, one file per conversation",
        "add_export_arguments",
        "run_export",
    ),
    "sync-status": _cmd("sync_cmd", "what the extension's backups saved, when, and what failed"),
    "context": _cmd(
        "context_cmd",
        "build a token-trimmed context for another tool",
        "add_context_arguments",
        "run_context",
    ),
    "recall": _cmd("recall_cmd", "recall passages about a query from the whole archive, within a budget"),
    "mcp": _cmd("mcp_cmd", "serve the archive to AI tools over MCP (stdio; read-only)"),
    "targets": _cmd(
        "context_cmd", "list the tools a context can be built for", "add_targets_arguments", "run_targets"
    ),
    "host": _cmd("host_cmd", "run the native-messaging host (started by the browser)"),
    "install": _cmd(
        "install_cmd", "register the native host with your browsers", "add_install_arguments", "run_install"
    ),
    "uninstall": _cmd(
        "install_cmd", "remove the native host registrations", "add_uninstall_arguments", "run_uninstall"
    ),
    "doctor": _cmd(
        "install_cmd",
        "check manifests, launcher, keyring, archive and tokenizer",
        "add_doctor_arguments",
        "run_doctor",
    ),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mnemo",
        description="Mnemosyne: carry AI conversations between tools. Local-first, encrypted archive.",
    )
    parser.add_argument("--version", action="version", version=f"mnemo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help)
        if only == name:  # only the chosen command's module is imported
            load(command.add_arguments)(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    appenv.apply()
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen if chosen in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    runner = load(COMMANDS[args.command].run)
    try:
        return int(runner(args) or 0)
    except MnemosyneError as exc:
        print(f"mnemo {args.command}: {exc.message} [{exc.code}]", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
