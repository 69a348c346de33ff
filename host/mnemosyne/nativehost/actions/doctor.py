"""doctor: the same checks as `mnemo doctor`, for the extension's options page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...doctor import report

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    return report()
