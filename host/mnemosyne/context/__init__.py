"""The context engine: a token-budgeted, target-shaped context built from a conversation.

A conversation, a target and a request in; a context and its report out. What a build keeps between calls is
handed to it (memory.py); the engine starts no process and keeps no state of its own.

What the package offers is loaded on first use (PEP 562): the split worker (prepare/split_worker.py) imports
the modules that split texts into units without the engine and the conversation models (half its memory).
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from .engine import ContextResult, build_context
    from .targets import TARGETS, Target, describe_all, get_target, target_names
    from .turns import count_messages

_OWNERS = {
    "ContextResult": "engine",
    "build_context": "engine",
    "count_messages": "turns",
    "TARGETS": "targets",
    "Target": "targets",
    "describe_all": "targets",
    "get_target": "targets",
    "target_names": "targets",
}
__all__ = [
    "ContextResult",
    "build_context",
    "count_messages",
    "TARGETS",
    "Target",
    "describe_all",
    "get_target",
    "target_names",
]


def __getattr__(name: str) -> Any:
    owner = _OWNERS.get(name)
    if owner is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module  # (PEP 562: the package loads a module on its first use)

    return getattr(import_module(f".{owner}", __name__), name)
