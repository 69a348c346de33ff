"""Building a context from an archived conversation or a file."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .. import tree
from ..context import build_context, get_target
from ..context.counting import Meter
from ..context.turns import path_turns
from ..errors import InputError, MnemosyneError
from ..prepare.caches import Caches
from ..prepare.redaction_memo import RedactionMemo
from ..tokens.policy import COUNTED_ENCODING
from .token_counts import counts_for_context

# Imports inside functions: the archive's modules (a context of a file opens no archive), the stored forms
# of units and corpora (they load the engine's units: a context that fits by its byte count needs none),
# the redaction (its patterns compile at import) and the readers (a file's or a save's payload only).
if TYPE_CHECKING:
    from ..archive import Archive
    from ..context import ContextResult, Target
    from ..model import Conversation


def context_for(
    conv: Conversation,
    target: Target | str,
    *,
    budget: int | None = None,
    branch: str | None = None,
    include: Iterable[str] | str = (),
    redact: bool = False,
    focus: str | None = None,
    arc: Archive | None = None,
    caches: Caches | None = None,
    exact_tokens: bool = False,
) -> ContextResult:
    """The context for `target`. With `arc` (the conversation is archived) a plain build reuses, or
    stores once, the per-message token counts (the token policy decides when counts are used at all), and
    reads back the units and corpus the archive holds of it. `caches`: what this process keeps between
    builds (a host's); none: what this build makes is kept for this call only."""
    if caches is None:
        caches = Caches()

    target = get_target(target) if isinstance(target, str) else target
    counts = None if arc is None else counts_for_context(arc, conv, target.tokenizer, include, redact)
    pre = None
    if redact:  # the one redaction policy: the title and instructions too, not only the transcript
        from ..redact import redact_conversation  # (see the imports)

        conv, pre = redact_conversation(conv, memo=caches.redactions)
    with stored_units(arc, conv.id, caches):
        result = build_context(
            conv,
            target,
            budget=budget,
            branch=branch,
            include=include,
            redact=False,  # redacted above, title and instructions too: a second pass would find nothing
            token_counts=counts,
            focus=focus,
            exact_tokens=exact_tokens,
            memory=caches,
        )
    if pre is not None:
        from ..redact import merge_reports  # (see the imports)

        result.report["redactions"] = merge_reports(pre.report(), result.report.get("redactions", {}))
    return result


@contextmanager
def stored_units(arc: Archive | None, conv_id: str, caches: Caches) -> Iterator[None]:
    """While the block runs, `caches` reads the units the archive holds for `conv_id`'s texts back instead
    of splitting them, and its corpora instead of making them (nothing without `arc`, or when the archive
    cannot be read); the rows are read when the first text is not in memory."""
    if arc is None:
        yield
        return
    # (see the imports)
    from ..archive import context_units
    from ..prepare import corpus_store, unit_store

    def read(fmt: int) -> dict[bytes, bytes]:
        try:
            return context_units.stored(arc.conn, conv_id, fmt)
        except MnemosyneError:  # derived data: the texts are split instead
            return {}

    with caches.offered(lambda: read(unit_store.FORMAT), lambda: read(corpus_store.FORMAT)):
        yield


def split_ahead(arc: Archive, caches: Caches, conv: Conversation) -> None:
    """Before `conv` is stored: a helper process splits its texts into the context engine's units while
    this one stores it (prepare.ahead.split_ahead), unless the archive holds units of it (a re-save: its
    units are read back, a third of the time a split takes)."""
    # (see the imports)
    from ..archive import context_units
    from ..prepare import ahead, unit_store

    try:
        if context_units.holds_any(arc.conn, conv.id, unit_store.FORMAT):
            return
    except MnemosyneError:  # derived data: the context splits what it needs
        return
    ahead.split_ahead(caches, conv)


def split_ahead_of_payload(arc: Archive, caches: Caches, payload: object) -> None:
    """split_ahead before the save reads `payload`: the texts of a site conversation's JSON, guessed
    (readers.texts_ahead), unless the archive holds units of it."""
    # (see the imports)
    from ..archive import context_units
    from ..prepare import ahead, unit_store
    from ..readers import texts_ahead

    found = texts_ahead(payload)
    if found is None:
        return
    conv_id, texts = found
    try:
        if context_units.holds_any(arc.conn, conv_id, unit_store.FORMAT):
            return
    except MnemosyneError:
        return
    ahead.split_texts_ahead(caches, conv_id, texts)


def unit_texts(conv: Conversation, memo: RedactionMemo) -> list[str]:
    """The texts a default context of `conv` splits into units, redacted and plain, each once (those of
    context.engine.unit_texts, the redactions read from `memo`: the host made them ahead of the context)."""
    from ..redact import redact_conversation  # (see the imports)

    redacted, _ = redact_conversation(conv, memo=memo)
    return list(dict.fromkeys([*_default_texts(redacted), *_default_texts(conv)]))


def _default_texts(conv: Conversation) -> list[str]:
    """The texts of a default context of `conv`: its active path, nothing extra."""
    return [t.text for t in path_turns(tree.path_to(conv, None), frozenset(), None) if t.text]


# Packed units written per transaction: what storing a conversation holds at once (4 MB was 1 MB more of
# a 5 MB conversation's host peak, after its reply).
STORE_CHUNK_BYTES = 1 << 20


def store_units(
    arc: Archive, conv: Conversation, caches: Caches, keep_going: Callable[[], bool] = lambda: True
) -> int:
    """Store the units of the texts a default context of `conv` splits (its active path, redacted and
    plain) that the archive does not hold yet, and drop the conversation's rows no text has now; the units
    in `caches` are packed, the others split first. Written a few MB per transaction; stops when
    `keep_going()` says so (what was packed is stored). Returns the rows written."""
    # (see the imports)
    from ..archive import context_units
    from ..prepare import unit_store

    keys = {unit_store.key(text): text for text in unit_texts(conv, caches.redactions)}
    have = context_units.stored_keys(arc.conn, conv.id, unit_store.FORMAT)
    rows: list[tuple[bytes, bytes]] = []
    written = held = 0
    complete = True
    meter = Meter(
        COUNTED_ENCODING, texts=keys.values(), memo=caches.counts
    )  # (the units are made of the texts' characters)
    for key, text in keys.items():
        if key in have:
            continue
        if not keep_going():
            complete = False
            break
        units = caches.units.text_units(text)
        counts = list(units.counts or (meter.base_count(part[1], keep=False) for part in units.parts))
        blob = unit_store.pack(units, counts)
        if blob is None:
            continue
        rows.append((key, blob))
        held += len(blob)
        if held >= STORE_CHUNK_BYTES:
            written += context_units.store(arc.conn, conv.id, unit_store.FORMAT, rows)
            rows, held = [], 0
    if rows or (complete and not have <= keys.keys()):
        written += context_units.store(
            arc.conn, conv.id, unit_store.FORMAT, rows, set(keys) if complete else None
        )
    return written


def store_corpora(arc: Archive, conv: Conversation, caches: Caches) -> int:
    """Store the corpora of `conv` kept in `caches` for its own query (a redacted and a plain path: see
    prepare/corpus_store.py) that the archive does not hold yet, beside at most STORED_CORPORA in all.
    Returns the rows written."""
    # (see the imports)
    from ..archive import context_units
    from ..prepare import corpus_store

    kept = {corpus_store.key(c.turns, c.query, c.skip): c for c in caches.storable(conv.id)}
    have = context_units.stored_keys(arc.conn, conv.id, corpus_store.FORMAT)
    if not kept or kept.keys() <= have:
        return 0
    rows = [(key, blob) for key, c in kept.items() if (blob := corpus_store.pack(c)) is not None]
    if not rows:
        return 0
    # the rows stored before stay while there are two at most (the other version's: the CLI builds plain
    # contexts, the extension redacted ones); past that, only the ones stored now
    keep = set(kept) | have
    return context_units.store(
        arc.conn, conv.id, corpus_store.FORMAT, rows, keep if len(keep) <= STORED_CORPORA else set(kept)
    )


STORED_CORPORA = 2  # corpora stored per conversation: its redacted and its plain path


def conversation_from_file(path: str, pick: str | None = None) -> Conversation:
    """The one conversation of a file (or the one `pick` names: its id or a 1-based number)."""
    from ..readers import ReadFailure, load_path, read_raw  # (see the imports)

    found: list[Conversation] = []
    for raw in load_path(path):
        found.extend(c for c in read_raw(raw) if not isinstance(c, ReadFailure))
    return _pick(found, pick, path)


def _pick(conversations: list[Conversation], choice: str | None, name: str) -> Conversation:
    if not conversations:
        raise InputError(f"{name}: no readable conversation")
    if choice is None:
        if len(conversations) > 1:
            raise InputError(
                f"{name} holds {len(conversations)} conversations; choose one with --pick ID or --pick N"
            )
        return conversations[0]
    for conv in conversations:
        if choice in (conv.id, conv.source.conversation_id):
            return conv
    if choice.isdigit() and 1 <= int(choice) <= len(conversations):
        return conversations[int(choice) - 1]
    raise InputError(f"{name}: no conversation {choice!r} (it holds {len(conversations)})")
