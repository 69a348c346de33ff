"""`mnemo host`: the native-messaging host (what the browser's launcher runs)."""

from __future__ import annotations

import argparse

# Imports inside functions: `mnemo --help` loads this module to add its arguments; the host loads when it runs.


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "caller",
        nargs="*",
        help="what the browser passes: the caller origin (Chrome) or manifest + add-on id (Firefox)",
    )


def run(args: argparse.Namespace) -> int:
    from ..nativehost.server import main  # (see the imports)

    return main(args.caller)
