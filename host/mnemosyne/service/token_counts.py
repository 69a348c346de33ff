"""The one token-count policy: which counts the archive stores, and when a context may use them.

The archive stores per-message counts in one encoding (tokens.policy.COUNTED_ENCODING). The context engine
can reuse them only for a plain build: no redaction (redacted text counts differently), no extra kinds
(reasoning and tool calls change each message's text) and a target counted with that same encoding. Every
other build counts the text it actually assembles, so counts are computed and stored only for plain builds,
on first use, and never at save time for a build that would ignore them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .. import tokens
from ..context.turns import count_messages, parse_include
from ..errors import MnemosyneError
from ..tokens.policy import COUNTED_ENCODING

if TYPE_CHECKING:
    from ..archive import Archive
    from ..model import Conversation


def uses_stored_counts(tokenizer: str, include: Iterable[str] | str | None, redact: bool) -> bool:
    """Whether a build for this tokenizer, include set and redaction choice reads stored counts."""
    if redact or parse_include(include):
        return False
    return tokens.base_encoding(tokenizer) == COUNTED_ENCODING


def counts_for_context(
    arc: Archive, conv: Conversation, tokenizer: str, include: Iterable[str] | str | None, redact: bool
) -> dict[str, int] | None:
    """Stored counts for a plain build (counted and stored once if missing); None when they'd be ignored."""
    if not uses_stored_counts(tokenizer, include, redact):
        return None
    counts = arc.token_counts(conv.id, COUNTED_ENCODING)
    if len(counts) < len(conv.messages):  # saved without counts: count once, keep them
        counts = count_messages(conv, COUNTED_ENCODING)
        try:
            arc.store_token_counts(conv.id, COUNTED_ENCODING, counts)
        except MnemosyneError:  # derived data: counted again next time, this build has them
            pass
    return counts


def import_counter() -> Callable[[Conversation], dict[str, int]]:
    """What `mnemo import` stores counts with: the engine's own message counter, in COUNTED_ENCODING; a long
    text the import counted before (in any of its conversations) is not encoded again."""
    known: dict[bytes, int] = {}
    return lambda conv: count_messages(conv, COUNTED_ENCODING, known)
