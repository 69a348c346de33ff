"""A long conversation's texts handed to the host's split worker (split_worker.py) while the host saves it,
so that the context asked for the instant the save replies finds most of its units made
(UnitCache.split_ahead): guessed from the site's JSON before the read (`split_texts_ahead`), else after the
read (`split_ahead`)."""

from __future__ import annotations

from collections.abc import Callable

from .. import tree
from ..context.turns import path_turns
from ..model import Conversation
from ..text import text_chars
from .caches import Caches
from .shared_work import MIN_CHARS

# Above this much text a conversation is not split ahead: the worker's records would take about 2.5 bytes
# of shared memory per character of text while they wait, and such a context takes seconds anyway.
MAX_AHEAD_CHARS = 8_000_000


def split_ahead(caches: Caches, conv: Conversation) -> None:
    """The host's worker process splits the texts of `conv`'s default context into units while this process
    goes on (a host storing a long conversation never seen: Continue in asks for its context the instant the
    save replies). Its plain texts: a redacted context's are the same but for the few a redaction changes,
    which the build splits itself. Kept when its texts were guessed before the read (split_texts_ahead)."""
    plain = lambda: [t.text for t in path_turns(tree.path_to(conv, None), frozenset(), None)]  # noqa: E731
    handed = _hand_over(caches, conv.id, text_chars(conv), plain, keep=True)
    if not handed and caches.units.splitting_ahead(conv.id):
        caches.units.end_ahead()  # (a guess of its size let it start)


def split_texts_ahead(caches: Caches, owner: str, texts: list[str]) -> None:
    """split_ahead of the conversation `owner` before it is read: `texts` guessed from the site's JSON
    (readers.texts_ahead), so that the worker starts while this process reads the conversation, about
    half of a save's time."""
    _hand_over(caches, owner, sum(map(len, texts)), lambda: texts, keep=False)


def _hand_over(caches: Caches, owner: str, chars: int, texts: Callable[[], list[str]], keep: bool) -> bool:
    """Hand `texts()` to the worker for `owner` when `chars` lies between shared_work.MIN_CHARS and
    MAX_AHEAD_CHARS (`keep`: unless it has a job of `owner` already); whether it does."""
    if not MIN_CHARS <= chars <= MAX_AHEAD_CHARS:
        return False
    caches.hold_only(owner)  # (the host turns to it: what is in memory now stays, and is not split again)
    if not (keep and caches.units.splitting_ahead(owner)):
        caches.units.split_ahead(owner, texts)
    return True
