"""`mnemo convert INPUT --to FORMAT`: any input Mnemosyne reads, to any format it writes.

One conversation goes to stdout or to the file OUT. Several go one file each
into the folder OUT (safe names from filenames.py), or as JSON Lines on
stdout with `--to portable`. Bad input is one line on stderr and status 2; a
broken conversation inside a bigger input (or a bad line of JSON Lines) is
reported and skipped, and the status is then 1. An input with no
conversations (`[]`) writes nothing and says so, with status 0.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from ..errors import InputError, MnemosyneError
from ..filenames import conversation_filename, path_inside, unique_name
from ..model import Conversation
from ..readers import ReadFailure, read_raw, reader_names
from ..writers import ollama, portable, writer, writer_names

# Imports inside functions: the streaming reader loads with the first input, the redaction (its patterns
# compile at import) only with --redact.

PROG = "mnemo convert"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="INPUT", help="a file, an export zip, a folder, or '-' for stdin")
    parser.add_argument(
        "--from",
        dest="from_format",
        metavar="FORMAT",
        help=f"input format, detected when left out ({', '.join(reader_names())})",
    )
    parser.add_argument("--to", required=True, choices=writer_names(), help="output format")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (one conversation) or folder (several); stdout when left out",
    )
    parser.add_argument(
        "--branch",
        metavar="LEAF",
        help="write the branch that ends at this message id instead of the active one",
    )
    parser.add_argument(
        "--model", default=ollama.DEFAULT_MODEL, help="model name put in --to ollama requests"
    )
    parser.add_argument(
        "--redact",
        action="store_true",
        help="replace secrets, e-mail addresses and phone numbers (title included) in what is written",
    )


def _say(where: str, message: str) -> None:
    """One line: `mnemo convert: <where>: <what is wrong>` (messages often already name the file)."""
    text = message if message.startswith(where) else f"{where}: {message}"
    print(f"{PROG}: {' '.join(text.split())}", file=sys.stderr)


class _Read:
    """The input's conversations one at a time (a large export in batches, never parsed whole), so
    convert holds one batch and what it is writing, not every conversation of the export."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.failures = 0

    def __iter__(self) -> Iterator[Conversation]:
        from ..readers.streaming import iter_inputs  # (see the imports)

        for raw in iter_inputs(self.args.input):
            for item in read_raw(raw, fmt=self.args.from_format):
                if isinstance(item, ReadFailure):
                    print(f"{PROG}: {' '.join(item.describe().split())}", file=sys.stderr)
                    self.failures += 1
                elif self.args.redact:
                    from ..redact import redact_conversation  # (see the imports)

                    yield redact_conversation(item)[0]
                else:
                    yield item


def _render(out: ModuleType, conv: Conversation, args: argparse.Namespace) -> str:
    if out is ollama:
        return ollama.write(conv, branch=args.branch, model=args.model)
    text: str = out.write(conv, branch=args.branch)
    return text


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "replace")  # a lone surrogate from page text must not abort the write


def _write_file(path: Path, data: bytes) -> None:
    """Path.write_bytes without the buffered file object: open, write, close (a thousand files cost a
    thousand of each, so the three calls the file object adds to learn about the file are saved)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _write_folder(
    out: ModuleType, conversations: Iterable[Conversation], folder: Path, args: argparse.Namespace
) -> None:
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: exists and is not a folder (several conversations need a folder)")
    folder.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    count = 0
    base = folder.resolve()
    for conv in conversations:
        name = unique_name(conversation_filename(conv.title, conv.id, out.EXTENSION), used)
        _write_file(path_inside(folder, name, base), _encode(_render(out, conv, args)))
        count += 1
    print(f"{PROG}: wrote {count} file{'s' if count != 1 else ''} to {folder}", file=sys.stderr)


def _write(
    out: ModuleType, first: Conversation, rest: Iterator[Conversation], args: argparse.Namespace
) -> None:
    """`first` and then `rest` (already advanced past a second conversation when there is one)."""
    target = Path(args.output) if args.output else None
    second = next(rest, None)
    several = second is not None
    everything = itertools.chain([first], [second] if second is not None else [], rest)
    if target is not None and (several or target.is_dir()):
        _write_folder(out, everything, target, args)
    elif target is not None:
        target.write_bytes(_encode(_render(out, first, args)))
    elif not several:
        sys.stdout.buffer.write(_encode(_render(out, first, args)))
    elif out is portable:
        for conv in everything:
            sys.stdout.buffer.write(_encode(portable.write_line(conv)))
    else:
        raise InputError(
            "several conversations: use -o FOLDER to write one "
            f"{out.NAME} file each (or --to portable for JSON Lines on stdout)"
        )
    sys.stdout.flush()


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Convert makes millions of short-lived containers (each conversation's parsed JSON) and almost no
    reference cycles: the collector's default pace (every 700 new containers, and full passes over every
    object the imports made) cost 0.06-0.1 s of a 1,000-conversation convert. While it runs, what exists
    already is left out of every pass and a pass comes every 100,000 new containers (the peak memory of
    that convert stayed the same); both are undone after, for a caller in the same process."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, threshold[1], threshold[2])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def run(args: argparse.Namespace) -> int:
    with _fewer_collections():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    out = writer(args.to)
    read = _Read(args)
    try:
        conversations = iter(read)
        first = next(conversations, None)
        if first is None:
            if not read.failures:  # an empty export (`[]`) is not an error: there is nothing to write
                _say(args.input, "no conversations in the input; nothing written")
            return 1 if read.failures else 0
        if args.branch:
            second = next(conversations, None)
            if second is not None:
                raise InputError("--branch needs an input with one conversation, this one has several")
            conversations = iter([])
        _write(out, first, conversations, args)
    except MnemosyneError as exc:
        _say(args.input, exc.message)
        return 2
    except BrokenPipeError:
        raise  # the reader of stdout went away (`| head`): main() ends quietly
    except OSError as exc:
        _say(str(exc.filename or args.output or "-"), f"cannot write ({exc.strerror or exc})")
        return 2
    return 1 if read.failures else 0
