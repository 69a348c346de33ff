"""doctor: the same checks as `mnemo doctor`, for the extension's options page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    from ...doctor import report

    return report()
