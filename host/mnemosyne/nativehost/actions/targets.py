"""targets: the tools a context can be built for, from the target registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict, session: HostSession) -> dict:
    from ...context.targets import describe_all

    return {"targets": describe_all()}
