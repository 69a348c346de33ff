"""Typed views of untrusted JSON values: a field that should be an object, a list, a string or
an integer, and is whatever the input says. Each view returns the value when it has the expected
type and an empty (or None) stand-in otherwise, so a reader narrows once instead of re-checking."""

from __future__ import annotations

from typing import Any

from ..model import AttachmentKind, Role

_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
_ATTACHMENT_KINDS: dict[str, AttachmentKind] = {"image": "image", "audio": "audio", "video": "video"}


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def as_int(value: Any) -> int | None:
    """An integer that is not a bool, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def media_kind(top_level_type: str | None) -> AttachmentKind:
    """The attachment kind of a MIME top-level type (`image`, `audio`, `video`); anything else is a file."""
    return _ATTACHMENT_KINDS.get(top_level_type or "", "file")


def as_role(value: Any) -> Role | None:
    """One of the model's message roles, else None."""
    return _ROLES.get(value) if isinstance(value, str) else None
