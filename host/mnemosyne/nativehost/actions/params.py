"""Checking request parameters: wrong types get BAD_REQUEST naming the field."""

from __future__ import annotations

from typing import Any, overload

from ...errors import MnemosyneError


class BadRequest(MnemosyneError):
    code = "BAD_REQUEST"


_MISSING = object()


def string(params: dict[str, Any], name: str, default: Any = _MISSING, max_len: int = 10_000) -> Any:
    value = params.get(name, default)
    if value is _MISSING:
        raise BadRequest(f"{name} is required")
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be a string")
    if len(value) > max_len:
        raise BadRequest(f"{name} is longer than {max_len} characters")
    return value


@overload
def integer(params: dict[str, Any], name: str, default: int, lo: int, hi: int) -> int: ...
@overload
def integer(params: dict[str, Any], name: str, default: None, lo: int, hi: int) -> int | None: ...
def integer(params: dict[str, Any], name: str, default: int | None, lo: int, hi: int) -> int | None:
    value = params.get(name, default)
    if value is default:
        return value
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise BadRequest(f"{name} must be an integer from {lo} to {hi}")
    return value


def boolean(params: dict[str, Any], name: str, default: bool = False) -> bool:
    value = params.get(name, default)
    if not isinstance(value, bool):
        raise BadRequest(f"{name} must be true or false")
    return value


def choice(params: dict[str, Any], name: str, options: tuple[str, ...], default: Any = _MISSING) -> Any:
    value = string(params, name, default, max_len=100)
    if value is not default and value not in options:
        raise BadRequest(f"{name} must be one of {', '.join(options)}")
    return value


def string_list(params: dict[str, Any], name: str, options: tuple[str, ...]) -> list[str]:
    value = params.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v in options for v in value):
        raise BadRequest(f"{name} must be a list of {', '.join(options)}")
    return value


def conversation_id(params: dict[str, Any]) -> str:
    conv_id: str = string(params, "conversation_id", max_len=64)
    return conv_id
