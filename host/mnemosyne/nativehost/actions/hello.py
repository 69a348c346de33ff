"""hello: versions, limits and the archive's state. Loads no tokenizer and no pydantic."""

from __future__ import annotations

from ... import __version__
from ..envelope import PROTOCOL_VERSION
from ..framing import MAX_IN, MAX_OUT
from . import ACTIONS

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    return {
        "host_version": __version__,
        "protocol": PROTOCOL_VERSION,
        "format_version": "1.0",  # mnemosyne.model.SCHEMA_VERSION, not imported to keep hello light
        "limits": {"max_in": MAX_IN, "max_out": MAX_OUT},
        "archive": session.archive_state(),
        "actions": sorted(ACTIONS),
    }
