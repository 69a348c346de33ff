"""context: a context trimmed to a target's budget, paged (see service.preparation.Preparation.context); `focus` (what the
user wants to do next) makes the engine prefer what bears on it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...context import get_target
from .. import paging
from . import params as p
from .titles import first_words

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    conv_id = p.conversation_id(params)
    target = get_target(p.string(params, "target", max_len=60))
    budget = p.integer(params, "budget", None, 64, 2_000_000)
    branch = p.string(params, "branch", default=None, max_len=200)
    include = p.string_list(params, "include", ("reasoning", "tools"))
    redact = p.boolean(params, "redact", False)
    focus = p.string(params, "focus", default=None, max_len=2000)
    cursor = p.string(params, "cursor", default=None, max_len=200)

    def render() -> tuple[str, dict[str, Any]]:
        conv, result = session.preparation.context(
            session.archive(),
            conv_id,
            target,
            budget=budget,
            branch=branch,
            include=include,
            redact=redact,
            focus=focus,
            exact_tokens=True,  # the extension shows the count: a long-lived host loads the tokenizer once
        )
        return result.text, {
            "conversation_id": conv.id,
            "title": result.title or first_words(session, conv.id, redact),
            "target": target.name,
            "shape": result.shape,
            "report": result.report,
        }

    rendered = session.renders.text(paging.request_key("context", params), cursor, render)
    return rendered.page(cursor)
