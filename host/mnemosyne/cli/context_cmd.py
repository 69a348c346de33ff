"""`mnemo context ID|FILE --target NAME` and `mnemo targets`.

An argument that is an existing path is read as a file (anything the readers
take); otherwise it is an archive id, and the archive's stored per-message
token counts make the build fast. The context goes to stdout; a one-line
summary goes to stderr (or everything as JSON with --json).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MnemosyneError
from ..runtime.cycles import collector_held

if TYPE_CHECKING:
    from ..context import ContextResult

# Imports inside functions: `mnemo --help` loads this module to add its arguments; the engine, the
# tokenizer, the service and the archive load only when `mnemo context` or `mnemo targets` runs (the archive
# only for an ID).


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", metavar="ID|FILE", help="an archived conversation id, or a conversation file"
    )
    parser.add_argument(
        "--target", "-t", required=True, metavar="NAME", help="where the context goes (see `mnemo targets`)"
    )
    parser.add_argument("--budget", "-b", type=int, metavar="N", help="token budget (default: the target's)")
    parser.add_argument("--branch", metavar="LEAF", help="build from the branch ending at this message id")
    parser.add_argument("--include", metavar="KINDS", default="", help="also carry: reasoning,tools")
    parser.add_argument(
        "--redact", action="store_true", help="replace secrets, e-mail addresses and phone numbers"
    )
    parser.add_argument(
        "--pick", metavar="ID|N", help="which conversation of a file holding several (id or 1-based number)"
    )
    parser.add_argument(
        "--focus",
        metavar="TEXT",
        help='what you want to do next ("fix the export bug"): prefer what bears on it '
        "(default: the last user messages)",
    )
    parser.add_argument("--json", action="store_true", help="print {payload, report} as JSON")


def add_targets_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the registry as JSON")


def run_context(args: argparse.Namespace) -> int:
    # One build, then the process ends: reading the file is held off from the cycle collector too (cycles.py;
    # about 25 ms of a 100 KB chat's command), and leaves next to no cyclic garbage (the same peak memory
    # without it, 1 MB chat included).
    with collector_held():
        return _run_context(args)


def _run_context(args: argparse.Namespace) -> int:
    from .. import tokens  # (see the imports)
    from ..context import get_target  # (see the imports)
    from ..service import context_for, conversation_from_file  # (see the imports)

    tokens.one_off = True  # one build, then the process ends: its tokenizer needs only this text's ranks

    target = get_target(args.target)
    options = dict(
        budget=args.budget, branch=args.branch, include=args.include, redact=args.redact, focus=args.focus
    )
    if Path(args.source).exists() or args.source == "-":
        _print(context_for(conversation_from_file(args.source, args.pick), target, **options), args.json)
        return 0
    from ..archive import open_archive  # (see the imports)
    from ..prepare.caches import Caches  # (see the imports)
    from ..service.context import store_corpora, store_units  # (see the imports)

    caches = Caches()  # what the build makes, stored after the output for the next command
    with open_archive(create=False) as arc:
        # this command only reads; what it stores (the token counts before the build, the units after the
        # output) is derived data: it does not wait out another process's write, nor fail for it
        arc.conn.execute(f"PRAGMA busy_timeout = {STORE_WAIT_MS}")
        conv = arc.get(args.source)
        _print(context_for(conv, target, arc=arc, caches=caches, **options), args.json)
        sys.stdout.flush()
        try:  # the units of its texts and its corpus, for the next command (this one made them)
            store_units(arc, conv, caches)
            store_corpora(arc, conv, caches)
        except MnemosyneError:
            pass
    return 0


STORE_WAIT_MS = 200  # how long `mnemo context ID` waits for another writer before leaving its stores undone


def _print(result: ContextResult, as_json: bool) -> None:
    report = result.report
    if as_json:
        json.dump({"payload": result.payload, "report": report}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    sys.stdout.write(result.text if result.text.endswith("\n") else result.text + "\n")
    c = report["counts"]
    note = " (estimate)" if report["estimate"] else ""
    used = report["tokens"] if report.get("tokens_exact", True) else f"at most {report['tokens']}"
    summary = (
        f"mnemo context: {used}/{report['limit']} tokens{note} with {report['tokenizer']} for "
        f"{report['target']}; {c['kept']} kept, {c['compressed']} compressed, {c['dropped']} dropped"
    )
    if "redactions" in report:
        summary += "; redacted " + (
            ", ".join(f"{k} {v}" for k, v in report["redactions"].items()) or "nothing"
        )
    print(summary, file=sys.stderr)


def run_targets(args: argparse.Namespace) -> int:
    from ..context import describe_all  # (see the imports)

    rows = describe_all()
    if args.json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{'name':14} {'window':>9} {'budget':>8}  {'tokenizer':16} {'shape':10} label")
    for r in rows:
        tok = r["tokenizer"] + (" ~" if r["estimate"] else "")
        print(
            f"{r['name']:14} {r['window']:>9} {r['default_budget']:>8}  {tok:16} {r['shape']:10} {r['label']}"
        )
    print(
        "~ estimate: counted as o200k_base x a factor, with a 5% margin held back (see --json for the basis)"
    )
    return 0
