"""get: one conversation in a writer's format, paged under the 1 MiB limit; `redact` applies redact.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...filenames import conversation_filename
from ...writers import writer
from .. import paging
from . import params as p
from .titles import first_words

FORMATS = ("portable", "markdown", "text", "html", "openai", "anthropic", "ollama")

if TYPE_CHECKING:
    from ..session import HostSession


def renderer(
    session: HostSession, conv_id: str, fmt: str, branch: str | None, redact: bool
) -> Callable[[], tuple[str, dict[str, Any]]]:
    """What renders the conversation in `fmt`: its text and the reply's fields besides the page."""

    def render() -> tuple[str, dict[str, Any]]:
        conv = session.preparation.conversation(session.archive(), conv_id)
        extra: dict[str, Any] = {}
        if redact:  # copy, export and download: the same policy as context, title included
            from ...redact import redact_conversation  # (its patterns compile at import: a redacted get only)

            conv, redactor = redact_conversation(conv)
            extra["redactions"] = redactor.report()
        mod = writer(fmt)
        text = mod.write(conv, branch=branch)
        if not conv.title:  # what the view shows as its title, as the library does
            extra["first_words"] = first_words(session, conv.id, redact)
        return text, {
            **extra,
            "conversation_id": conv.id,
            "format": fmt,
            "media_type": mod.MEDIA_TYPE,
            "extension": mod.EXTENSION,
            "filename": conversation_filename(conv.title, conv.id, mod.EXTENSION),
        }

    return render


def first_page(session: HostSession, conv_id: str, fmt: str, redact: bool, budget: int) -> dict[str, Any]:
    """The first page of `get` for `conv_id` in `fmt` within `budget` bytes of chunk (the `export` of a save).
    The text is kept as `get`'s own render of {conversation_id, format, redact}, so the next pages of a long
    one (a `get` with those parameters and the cursor) slice it instead of rendering it again."""
    params = {"conversation_id": conv_id, "format": fmt, "redact": redact}
    rendered = session.renders.text(
        paging.request_key("get", params), None, renderer(session, conv_id, fmt, None, redact)
    )
    return rendered.page(None, budget)


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    conv_id = p.conversation_id(params)
    fmt = p.choice(params, "format", FORMATS, default="portable")
    branch = p.string(params, "branch", default=None, max_len=200)
    cursor = p.string(params, "cursor", default=None, max_len=200)
    redact = p.boolean(params, "redact", False)
    render = renderer(session, conv_id, fmt, branch, redact)
    rendered = session.renders.text(paging.request_key("get", params), cursor, render)
    return rendered.page(cursor)
