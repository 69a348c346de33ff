"""Archive commands: import, list, search, show, delete, export."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InputError, MnemosyneError
from .progress import Progress

SHOW_FORMATS = ("markdown", "text", "html", "portable", "openai", "anthropic", "ollama")
EXPORT_FORMATS = ("markdown", "portable", "html", "text")
COUNTED_ENCODING = "o200k_base"
SAVE_BATCH = 50  # conversations per transaction in `mnemo import`


def _archive():
    from ..archive import open_archive

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


def run_import(args) -> int:
    totals = {"created": 0, "updated": 0, "unchanged": 0, "failed": 0}
    counter = None if args.no_tokens else _token_counter()
    with _archive() as arc:
        for path in args.paths:
            try:
                _import_path(arc, path, args.fmt, totals, counter)
            except InputError as exc:
                print(f"mnemo import: {exc.message}", file=sys.stderr)
                totals["failed"] += 1
    print("imported {created}, updated {updated}, unchanged {unchanged}, failed {failed}".format(**totals))
    return 1 if totals["failed"] else 0


def _import_path(arc, path: str, fmt: str | None, totals: dict[str, int], counter) -> None:
    """Every input under `path`, lazily. A large export arrives in batches (never parsed whole);
    its progress bar counts the characters read, other files count their conversations."""
    from ..readers.streaming import iter_inputs

    bar: Progress | None = None
    for raw in iter_inputs(path):
        if raw.progress is None:
            whole = Progress(len(raw.data) if isinstance(raw.data, list) else 1, Path(raw.name).name)
            _import_raw(arc, raw, fmt, totals, counter, whole.step)
            whole.done()
            continue
        bar = bar or Progress(raw.progress[1], Path(raw.name.split(":")[-1]).name, min_total=0)
        _import_raw(arc, raw, fmt, totals, counter, lambda: None)
        bar.step(raw.progress[0] - bar.count)
        if raw.progress[0] >= raw.progress[1]:
            bar.done()
            bar = None


def _import_raw(arc, raw, fmt: str | None, totals: dict[str, int], counter, step) -> None:
    """Convert and save one input; conversations are committed in batches (one fsync per batch)."""
    from ..readers import ReadContext, ReadFailure, read_raw

    batch: list = []
    try:
        for item in read_raw(raw, ReadContext(), fmt):
            if isinstance(item, ReadFailure):
                print(f"mnemo import: {item.describe()}", file=sys.stderr)
                totals["failed"] += 1
            else:
                batch.append(item)
                if len(batch) >= SAVE_BATCH:
                    _save_batch(arc, batch, totals, counter)
                    batch = []
            step()
    except MnemosyneError as exc:
        where = "" if exc.message.startswith(raw.name) else f"{raw.name}: "  # the path once
        print(f"mnemo import: {where}{exc.message}", file=sys.stderr)
        totals["failed"] += 1
    if batch:
        _save_batch(arc, batch, totals, counter)


def _save_batch(arc, convs: list, totals: dict[str, int], counter) -> None:
    count = (lambda conv: counter(conv, COUNTED_ENCODING)) if counter else None
    try:
        results = arc.save_many(convs, count, COUNTED_ENCODING)
    except MnemosyneError:
        results = []
        for conv in convs:  # find the one that failed; the rest still go in
            try:
                results += arc.save_many([conv], count, COUNTED_ENCODING)
            except MnemosyneError as exc:
                print(f"mnemo import: {conv.title or conv.id}: {exc.message}", file=sys.stderr)
                totals["failed"] += 1
    for result in results:
        totals[result.status] += 1


def _token_counter():
    try:
        from ..context import count_messages
    except ImportError:
        return None
    return count_messages


# ---------------------------------------------------------------- list / search


def add_list_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", help="only this site (chatgpt, claude, openai, ...)")
    p.add_argument("--limit", type=int, default=50, help="how many (default 50; 0 = all)")
    p.add_argument("--json", action="store_true", help="JSON output for scripts")


def run_list(args) -> int:
    items: list[dict] = []
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


def run_search(args) -> int:
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


def add_show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="conversation id (or a unique prefix of 4+ characters)")
    p.add_argument("--format", choices=SHOW_FORMATS, default="markdown")
    p.add_argument("--branch", metavar="LEAF", help="show the branch ending at this message id")
    p.add_argument("--json", action="store_true", help="same as --format portable")


def run_show(args) -> int:
    from ..writers import writer

    fmt = "portable" if args.json else args.format
    with _archive() as arc:
        conv = arc.get(args.id)
    sys.stdout.write(writer(fmt).write(conv, branch=args.branch))
    return 0


def add_delete_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="conversation id (or a unique prefix of 4+ characters)")


def run_delete(args) -> int:
    with _archive() as arc:
        conv_id = arc.resolve(args.id)
        arc.delete(conv_id)
    print(f"deleted {conv_id}")
    return 0


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="where to write (created if missing)")
    p.add_argument("--to", choices=EXPORT_FORMATS, default="markdown")


def run_export(args) -> int:
    from ..filenames import conversation_filename, path_inside
    from ..writers import writer

    out = Path(args.folder)
    out.mkdir(parents=True, exist_ok=True)
    mod = writer(args.to)
    written = 0
    with _archive() as arc:
        ids = arc.all_ids()
        progress = Progress(len(ids), label="export")
        for conv_id in ids:
            conv = arc.get(conv_id)
            target = path_inside(out, conversation_filename(conv.title, conv.id, mod.EXTENSION))
            tmp = target.with_name(target.name + ".part")
            tmp.write_text(mod.write(conv), encoding="utf-8")
            tmp.replace(target)
            written += 1
            progress.step()
        progress.done()
    print(f"exported {written} conversations to {out}")
    return 0
