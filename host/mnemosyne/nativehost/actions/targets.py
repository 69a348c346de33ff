"""targets: the tools a context can be built for, from the target registry."""

from __future__ import annotations


def run(params: dict, ctx) -> dict:
    from ...context.targets import describe_all

    return {"targets": describe_all()}
