"""Readers turn what people have (site JSON, official exports, other tools'
files, the extension's page capture) into Mnemosyne conversations.

Each reader module exposes NAME, DESCRIPTION, `detect(raw) -> bool` and
`read(raw, ctx) -> Iterator[Conversation | ReadFailure]`. Detection tries them
in READER_MODULES order, most specific first.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from ..errors import InputError, UnknownFormatError
from ..model import Conversation
from .base import RawInput, ReadContext, ReadFailure
from .loading import load_bytes, load_path

READER_MODULES = (
    "portable",  # Mnemosyne documents (single or JSON Lines)
    "capture",  # the extension's page capture
    "chatgpt",  # backend-api conversation, official export (json, split, zip)
    "claude",  # chat_conversations tree JSON, official export
    "openwebui",
    "librechat",
    "sillytavern",
    "anthropic",  # Messages API request/response bodies
    "openai",  # Chat Completions message lists
    "sharegpt",
    "grok",  # grok.com response-node + load-responses, answer stream, HAR capture
    "perplexity",  # www.perplexity.ai /rest/thread/{slug} entries, answer stream
    "gemini",  # batchexecute hNvQHb responses (site API)
    "deepseek",  # chat/history_messages JSON (site API)
)

# The site conversation JSONs the extension saves, whose texts a host guesses before reading them
AHEAD_READERS = ("chatgpt", "claude")

__all__ = [
    "RawInput",
    "ReadContext",
    "ReadFailure",
    "reader",
    "reader_names",
    "detect",
    "read_raw",
    "load_path",
    "load_bytes",
    "texts_ahead",
]


def reader(name: str) -> ModuleType:
    if name not in READER_MODULES:
        raise UnknownFormatError(f"unknown input format {name!r}; known: {', '.join(READER_MODULES)}")
    return importlib.import_module(f"{__name__}.{name}")


def reader_names() -> list[str]:
    return list(READER_MODULES)


def detect(raw: RawInput) -> ModuleType:
    for name in READER_MODULES:
        mod = reader(name)
        try:
            if mod.detect(raw):
                return mod
        except (TypeError, KeyError, AttributeError, IndexError):
            continue
    raise UnknownFormatError(f"{raw.name}: not a conversation format Mnemosyne knows")


def read_raw(
    raw: RawInput, ctx: ReadContext | None = None, fmt: str | None = None
) -> Iterator[Conversation | ReadFailure]:
    """Every conversation in one input; a broken one (or a JSON Lines line that did not
    parse) is yielded as a ReadFailure. An empty list is an export with no conversations."""
    if raw.data != []:
        yield from _read(raw, ctx or ReadContext(), fmt)
    for lineno, why in raw.bad_lines:
        label = f"{raw.name} line {lineno}"
        yield ReadFailure(label=label, error=InputError(f"{label}: not valid JSON ({why})"))


def _read(raw: RawInput, ctx: ReadContext, fmt: str | None) -> Iterator[Conversation | ReadFailure]:
    mod = reader(fmt) if fmt else detect(raw) if raw.shared is None else _streamed_reader(raw)
    if mod is None:
        for i in range(len(raw.data)):
            label = f"{raw.name}[{raw.first_index + i}]"
            yield ReadFailure(label, UnknownFormatError(f"{label}: not a conversation Mnemosyne knows"))
        return
    try:
        yield from mod.read(raw, ctx)
    except InputError:
        raise
    except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
        raise InputError(f"{raw.name}: not a valid {mod.NAME} input ({type(exc).__name__}: {exc})") from None


def _streamed_reader(raw: RawInput) -> ModuleType | None:
    """The reader of a batch of a streamed export array: the one that recognised an earlier batch of it. A
    long conversation can fill a batch alone, and a broken one is recognised by no reader: that is then its
    own failure (None), not the whole input's."""
    assert raw.shared is not None
    mod = raw.shared.get("reader")
    if mod is None:
        try:
            mod = raw.shared["reader"] = detect(raw)
        except UnknownFormatError:
            return None
    return mod


def texts_ahead(payload: Any) -> tuple[str, list[str]] | None:
    """The conversation id and a guess of the texts a context of it splits, from a site conversation's JSON
    before it is read (the reader of AHEAD_READERS that knows its shape; None for any other input). For
    a head start only: a host hands the texts to its split worker while it reads and stores the
    conversation (prepare: UnitCache.split_ahead); the split is keyed by text, so a guess the reader does not
    confirm costs only that text's split, never a wrong context."""
    for name in AHEAD_READERS:
        found: tuple[str, list[str]] | None = reader(name).texts_ahead(payload)
        if found is not None:
            return found
    return None
