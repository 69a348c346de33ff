"""Mnemosyne documents themselves: one document, a list, or JSON Lines."""

from __future__ import annotations

from collections.abc import Iterator

from ..canonical import from_dict, is_document
from ..errors import InputError
from ..model import Conversation
from .base import RawInput, ReadContext, ReadFailure

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

NAME = "portable"
DESCRIPTION = "Mnemosyne conversation documents (JSON or JSON Lines)"


def _items(raw: RawInput) -> list[Any]:
    return raw.data if isinstance(raw.data, list) else [raw.data]


def detect(raw: RawInput) -> bool:
    items = _items(raw)
    return bool(items) and is_document(items[0])


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    items = _items(raw)
    for i, item in enumerate(items):
        try:
            yield from_dict(item)
        except InputError as exc:
            if len(items) == 1:
                raise InputError(f"{raw.name}: {exc.message}", code=exc.code) from None
            yield ReadFailure(label=f"{raw.name}[{i}]", error=exc)
