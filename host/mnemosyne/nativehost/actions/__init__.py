"""The host's closed set of verbs. One module per action, imported on first
use so `hello` never pays for pydantic, the archive or the tokenizer.
host/PROTOCOL.md documents each; tests/unit/test_protocol_doc.py keeps them equal."""

from __future__ import annotations

from ...runtime.lazy import load
from ..envelope import Request, RequestError

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from ..session import HostSession

# action -> the function that runs it: run(params, session) -> reply data
ACTIONS: dict[str, str] = {
    "hello": "mnemosyne.nativehost.actions.hello:run",
    "save": "mnemosyne.nativehost.actions.save:run",
    "sync-state": "mnemosyne.nativehost.actions.sync_state:run",
    "sync-log": "mnemosyne.nativehost.actions.sync_log:run",
    "save-attachment": "mnemosyne.nativehost.actions.save_attachment:run",
    "get-attachment": "mnemosyne.nativehost.actions.get_attachment:run",
    "list": "mnemosyne.nativehost.actions.listing:run",
    "search": "mnemosyne.nativehost.actions.search:run",
    "get": "mnemosyne.nativehost.actions.get:run",
    "context": "mnemosyne.nativehost.actions.context:run",
    "delete": "mnemosyne.nativehost.actions.delete:run",
    "targets": "mnemosyne.nativehost.actions.targets:run",
    "doctor": "mnemosyne.nativehost.actions.doctor:run",
}


def dispatch(request: Request, session: HostSession) -> dict[str, Any]:
    ref = ACTIONS.get(request.action)
    if ref is None:
        raise RequestError("UNKNOWN_ACTION", f"unknown action {request.action[:60]!r}", request.id)
    session.check_caller()
    reply: dict[str, Any] = load(ref)(request.params, session)
    return reply
