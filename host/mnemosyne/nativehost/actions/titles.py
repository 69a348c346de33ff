"""An untitled conversation's title for a reply that names the conversation (`get`, `context`): the start of its
first user message as `list` gives it (archive/derived_title.py), redacted when the reply is."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session import HostSession


def first_words(session: HostSession, conv_id: str, redact: bool) -> str | None:
    """None when the conversation has a title (or no user text)."""
    derived = session.archive().derived_title(conv_id)
    if derived and redact:
        from ...redact import redact as redact_text  # (its patterns compile at import: a redacted reply only)

        derived = redact_text(derived)[0]
    return derived
