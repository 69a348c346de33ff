"""doctor: the same checks as `mnemo doctor`, for the extension's options page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...doctor import report

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict, session: HostSession) -> dict:
    return report()
