"""doctor: the same checks as `mnemo doctor`, for the extension's options page."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict, session: HostSession) -> dict:
    from ...doctor import report

    return report()
