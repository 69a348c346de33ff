"""`mnemo schema`: print the JSON Schema of the Mnemosyne conversation format."""

from __future__ import annotations

import argparse
import sys

from ..schema_gen import schema_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = "The same schema is committed as host/mnemosyne/schema/conversation.v1.json."


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_text())
    return 0
