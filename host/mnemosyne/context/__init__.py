"""The context engine: a token-budgeted, target-shaped context built from a conversation."""

from __future__ import annotations

from .engine import ContextResult, build_context
from .targets import TARGETS, Target, describe_all, get_target, target_names
from .turns import count_messages

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
