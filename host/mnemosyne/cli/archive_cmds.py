"""Archive commands: import, list, search, show, delete, export."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .progress import Progress

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from ..archive import Archive
    from ..model import Conversation

# Imports inside functions: `mnemo --help` and every other command load this module to add its arguments;
# the archive, the service, the writers and the redaction load only when one of these commands runs.

SHOW_FORMATS = ("markdown", "text", "html", "portable", "openai", "anthropic", "ollama")
EXPORT_FORMATS = ("markdown", "portable", "html", "text")


def _archive() -> Archive:
    from ..archive import open_archive  # (see the imports)

    return open_archive()


# ---------------------------------------------------------------- import


def add_import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="files, folders or export zips (ChatGPT, Claude, other tools)",
    )
    p.add_argument("--from", dest="fmt", metavar="FORMAT", help="input format (default: detect)")
    p.add_argument(
        "--no-tokens", action="store_true", help="skip storing token counts (faster; contexts count later)"
    )


def run_import(args: argparse.Namespace) -> int:
    from ..service import import_paths  # (see the imports)

    def warn(line: str) -> None:
        print(f"mnemo import: {line}", file=sys.stderr)

    with _archive() as arc:
        totals = import_paths(
            arc, args.paths, args.fmt, count_tokens=not args.no_tokens, on_failure=warn, progress=Progress
        )
    print(
        "imported {created}, updated {updated}, unchanged {unchanged}, failed {failed}".format(
            **totals.as_dict()
        )
    )
    return 1 if totals.failed else 0


# ---------------------------------------------------------------- list / search


def add_list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", help="only this site (chatgpt, claude, openai, ...)")
    p.add_argument("--limit", type=int, default=50, help="how many (default 50; 0 = all)")
    p.add_argument("--json", action="store_true", help="JSON output for scripts")


def run_list(args: argparse.Namespace) -> int:
    items: list[dict[str, Any]] = []
    with _archive() as arc:
        cursor = None
        while True:
            page, cursor = arc.list(limit=100, cursor=cursor, site=args.source)
            items.extend(page)
            if not cursor or (args.limit and len(items) >= args.limit):
                break
    if args.limit:
        items = items[: args.limit]
    if args.json:
        json.dump(items, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    for it in items:
        date = (it.get("updated_at") or it.get("created_at") or it.get("saved_at") or "")[:10]
        print(
            f"{it['id']}  {date:10}  {it['site']:<10} {it['message_count']:>4}  {_oneline(it.get('title'))}"
        )
    return 0


def add_search_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", help="words, or any text (Chinese/Japanese/Korean and substrings work)")
    p.add_argument("--source", help="only this site")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--json", action="store_true", help="JSON output for scripts")


def run_search(args: argparse.Namespace) -> int:
    with _archive() as arc:
        items = arc.search(args.query, limit=max(1, min(args.limit, 100)), site=args.source)
    if args.json:
        json.dump(items, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    for it in items:
        print(f"{it['id']}  {it['site']:<10} {_oneline(it.get('title'))}")
        print(f"    {_oneline(it.get('snippet'))}")
    if not items:
        print("no matches", file=sys.stderr)
    return 0 if items else 1


def _oneline(text: str | None) -> str:
    """Titles and snippets come from pages: no control characters reach the terminal."""
    text = text or "(untitled)"
    return "".join(ch if ch.isprintable() else " " for ch in text)[:200]


# ---------------------------------------------------------------- show / delete / export


REDACT_HELP = "replace secrets, e-mail addresses and phone numbers (title included) in what is written"


def _maybe_redacted(conv: Conversation, redact: bool) -> Conversation:
    if not redact:
        return conv
    from ..redact import redact_conversation  # (see the imports)

    return redact_conversation(conv)[0]


def add_show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="conversation id (or a unique prefix of 4+ characters)")
    p.add_argument("--format", choices=SHOW_FORMATS, default="markdown")
    p.add_argument("--branch", metavar="LEAF", help="show the branch ending at this message id")
    p.add_argument("--json", action="store_true", help="same as --format portable")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)


def run_show(args: argparse.Namespace) -> int:
    from ..writers import writer  # (see the imports)

    fmt = "portable" if args.json else args.format
    with _archive() as arc:
        conv = arc.get(args.id)
    conv = _maybe_redacted(conv, args.redact)
    sys.stdout.write(writer(fmt).write(conv, branch=args.branch))
    return 0


def add_delete_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="conversation id (or a unique prefix of 4+ characters)")


def run_delete(args: argparse.Namespace) -> int:
    with _archive() as arc:
        conv_id = arc.resolve(args.id)
        arc.delete(conv_id)
    print(f"deleted {conv_id}")
    return 0


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="where to write (created if missing)")
    p.add_argument("--to", choices=EXPORT_FORMATS, default="markdown")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p.add_argument(
        "--since",
        metavar="DATE",
        type=_since,
        help="only conversations saved (or given attachments) at or after DATE (2026-11-30 or an ISO time)",
    )


def _since(value: str) -> str:
    """An ISO date stays a date (compared as a prefix); a time becomes the archive's UTC spelling."""
    from datetime import date, datetime, timezone  # (see the imports)

    from ..model import format_time  # (see the imports)

    try:
        if len(value) == 10:
            return date.fromisoformat(value).isoformat()
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date (YYYY-MM-DD) or ISO 8601 time") from None
    return format_time(moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc))


def run_export(args: argparse.Namespace) -> int:
    from ..service.export import changed_ids, export_folder  # (see the imports)

    out = Path(args.folder)
    with _archive() as arc:
        ids = changed_ids(arc, args.since)
        progress = Progress(len(ids), label="export")
        totals = export_folder(arc, out, args.to, ids, redact=args.redact, step=progress.step)
        progress.done()
    print(
        f"exported {totals.conversations} conversations to {out}"
        f" ({totals.written} written, {totals.unchanged} unchanged, {totals.attachments} attachment files written)"
    )
    return 0
