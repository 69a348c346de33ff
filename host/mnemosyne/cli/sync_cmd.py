"""`mnemo sync-status`: what the extension's backups saved, when, and what failed (archive/sync.py)."""

from __future__ import annotations

import argparse
import json
import sys

from .archive_cmds import _archive, _oneline

# Imports inside functions: `mnemo --help` loads this module to add its arguments; the archive loads when it runs.


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--site",
        choices=("chatgpt", "claude", "grok", "perplexity", "gemini", "deepseek"),
        help="only this site's runs",
    )
    p.add_argument("--runs", type=int, default=5, metavar="N", help="how many recent runs (default 5)")
    p.add_argument("--json", action="store_true", help="JSON output for scripts")


def _origins(entry: dict[str, int]) -> str:
    parts = [f"{k} {entry[k]}" for k in ("backup", "keep-current", "export", "import") if entry.get(k)]
    partial = f"; {entry['partial']} partial" if entry.get("partial") else ""
    return f" ({', '.join(parts)}{partial})" if parts or partial else ""


def run(args: argparse.Namespace) -> int:
    from ..archive import sync  # (see the imports)

    with _archive() as arc:
        sites = sync.saved_counts(arc.conn)
        runs = sync.runs(arc.conn, limit=max(1, min(args.runs, 1000)), site=args.site)
    if args.json:
        json.dump({"sites": sites, "runs": runs}, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    print("Saved conversations:")
    for site, entry in sites.items():
        print(f"  {site:<10} {entry['conversations']:>6}{_origins(entry)}")
    if not sites:
        print("  none yet")
    print("Last backup runs:" if runs else "No backup runs recorded yet.")
    for r in runs:
        c = r["counts"]
        finished = f", finished {r['finished_at']}" if r["finished_at"] else ""
        print(
            f"  {r['started_at']}  {r['site']:<8} {r['state']:<9} done {c['done']}, skipped {c['skipped']},"
            f" failed {c['failed']}, left {c['left']}{finished}"
        )
        for f in r["failures"]:
            print(f"      failed {_oneline(f['id'])} {_oneline(f['title'])!r}: {_oneline(f['reason'])}")
        shown = len(r["failures"])
        if c["failed"] > shown:
            print(f"      ... and {c['failed'] - shown} more failures not listed")
    return 0
