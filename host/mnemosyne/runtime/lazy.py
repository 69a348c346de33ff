"""Explicit registries with lazy imports: a table names "package.module:function" in full, so a reader
(or grep) finds the function from its name, and only the chosen entry's module is ever imported."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any


def load(ref: str) -> Any:
    """The object `ref` ("package.module:attribute") names, importing its module on first use."""
    module_name, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module_name), attr)
