"""doctor: the same checks as `mnemo doctor`, for the extension's options page."""

from __future__ import annotations


def run(params: dict, ctx) -> dict:
    from ...install.doctor import report

    return report()
