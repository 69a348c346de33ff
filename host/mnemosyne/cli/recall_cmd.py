"""`mnemo recall QUERY`: the passages of the whole archive that bear on a query, within a token budget.

The context goes to stdout and a one-line summary to stderr (or everything as JSON with --json).
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..recall import DEFAULT_BUDGET, DEFAULT_TARGET  # `mnemo --help` loads no engine

    parser.add_argument("query", help='what to recall ("the retry policy we settled on")')
    parser.add_argument(
        "--budget", "-b", type=int, metavar="N", help=f"token budget (default {DEFAULT_BUDGET})"
    )
    parser.add_argument(
        "--target",
        "-t",
        default=DEFAULT_TARGET,
        metavar="NAME",
        help=f"whose tokenizer counts the budget (see `mnemo targets`; default {DEFAULT_TARGET})",
    )
    parser.add_argument(
        "--site", metavar="S", help="only conversations from this site (chatgpt, claude, ...)"
    )
    parser.add_argument(
        "--since",
        metavar="DATE",
        help="only conversations active at or after DATE (2026-03-01 or an ISO time)",
    )
    parser.add_argument(
        "--no-redact",
        action="store_true",
        help="keep secrets, e-mail addresses and phone numbers (redacted by default)",
    )
    parser.add_argument("--json", action="store_true", help="print {text, passages, report} as JSON")


def run(args: argparse.Namespace) -> int:
    from .. import tokens
    from ..archive import open_archive
    from ..recall import recall  # these wait for the command itself: `mnemo --help` loads none of them

    tokens.one_off = True  # one recall, then the process ends: its tokenizer needs only these texts' ranks
    with open_archive(create=False) as arc:
        result = recall(
            arc,
            args.query,
            budget=args.budget,
            target=args.target,
            site=args.site,
            since=args.since,
            redact=not args.no_redact,
        )
    report = result.report
    if args.json:
        out = {"text": result.text, "passages": result.passages, "report": report}
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if result.text:
        sys.stdout.write(result.text + "\n")
    note = " (estimate)" if report["estimate"] else ""
    print(
        f"mnemo recall: {report['tokens']}/{report['limit']} tokens{note} with {report['tokenizer']}; "
        f"{report['passages']} passages from {report['candidates']} conversations",
        file=sys.stderr,
    )
    return 0 if result.text else 1
