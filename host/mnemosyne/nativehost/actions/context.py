"""context: a context trimmed to a target's budget, built from stored token counts, paged;
`focus` (what the user wants to do next) makes the engine prefer what bears on it."""

from __future__ import annotations

from .. import paging
from . import params as p

COUNTED_ENCODING = "o200k_base"  # what save stores; the engine counts the final result with the target's own


def run(params: dict, ctx) -> dict:
    from ...context import build_context, count_messages, get_target

    conv_id = p.conversation_id(params)
    target = get_target(p.string(params, "target", max_len=60))
    budget = p.integer(params, "budget", None, 64, 2_000_000)
    branch = p.string(params, "branch", default=None, max_len=200)
    include = p.string_list(params, "include", ("reasoning", "tools"))
    redact = p.boolean(params, "redact", False)
    focus = p.string(params, "focus", default=None, max_len=2000)
    cursor = p.string(params, "cursor", default=None, max_len=200)
    arc = ctx.archive()
    conv = arc.get(conv_id)
    counts = arc.token_counts(conv.id, COUNTED_ENCODING)
    if len(counts) < len(conv.messages):  # saved before its counts were stored: count once, keep them
        counts = count_messages(conv, COUNTED_ENCODING)
        arc.store_token_counts(conv.id, COUNTED_ENCODING, counts)
    result = build_context(
        conv,
        target,
        budget=budget,
        branch=branch,
        include=include,
        redact=redact,
        token_counts=counts,
        focus=focus,
    )
    return {
        "conversation_id": conv.id,
        "target": target.name,
        "shape": result.shape,
        "report": result.report,
        **paging.page(result.text, cursor),
    }
