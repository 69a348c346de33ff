"""The host's closed set of verbs. One module per action, imported on first
use so `hello` never pays for pydantic, the archive or the tokenizer.
host/PROTOCOL.md documents each; tests/test_protocol_doc.py keeps them equal."""

from __future__ import annotations

import importlib
from typing import Any

from ..envelope import Request, RequestError

ACTIONS: dict[str, str] = {
    "hello": "hello",
    "save": "save",
    "list": "listing",
    "search": "search",
    "get": "get",
    "context": "context",
    "delete": "delete",
    "targets": "targets",
    "doctor": "doctor",
}


def dispatch(request: Request, ctx) -> dict[str, Any]:
    module_name = ACTIONS.get(request.action)
    if module_name is None:
        raise RequestError("UNKNOWN_ACTION", f"unknown action {request.action[:60]!r}", request.id)
    ctx.check_caller()
    module = importlib.import_module(f"{__name__}.{module_name}")
    return module.run(request.params, ctx)
