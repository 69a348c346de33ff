"""`mnemo` entry point. Commands live in their own modules (cli/<name>.py), each
with `add_arguments(parser)` and `run(args) -> int`; only the chosen one is
imported, so `mnemo host` starts without loading what it does not need."""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import MnemosyneError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "convert": ("convert", "convert a conversation file, export or zip to another format"),
    "schema": ("schema", "print the JSON Schema of the Mnemosyne conversation format"),
    "import": ("archive_cmds", "import files, folders or export zips into the archive"),
    "list": ("archive_cmds", "list archived conversations, newest first"),
    "search": ("archive_cmds", "full-text search the archive"),
    "show": ("archive_cmds", "show one archived conversation"),
    "delete": ("archive_cmds", "delete an archived conversation"),
    "export": ("archive_cmds", "export the whole archive, one file per conversation"),
    "context": ("context_cmd", "build a token-trimmed context for another tool"),
    "targets": ("context_cmd", "list the tools a context can be built for"),
    "host": ("host_cmd", "run the native-messaging host (started by the browser)"),
    "install": ("install_cmd", "register the native host with your browsers"),
    "uninstall": ("install_cmd", "remove the native host registrations"),
    "doctor": ("install_cmd", "check manifests, launcher, keyring, archive and tokenizer"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mnemo",
        description="Mnemosyne: carry AI conversations between tools. Local-first, encrypted archive.",
    )
    parser.add_argument("--version", action="version", version=f"mnemo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only == name:  # only the chosen command's module is imported
            mod = importlib.import_module(f"{__package__}.{module}")
            getattr(mod, f"add_{name}_arguments", getattr(mod, "add_arguments", None))(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen if chosen in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    module = importlib.import_module(f"{__package__}.{COMMANDS[args.command][0]}")
    runner = getattr(module, f"run_{args.command}", getattr(module, "run", None))
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
