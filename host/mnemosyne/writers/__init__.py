"""Writers turn a Mnemosyne conversation into another format.

Each module exposes NAME, EXTENSION, MEDIA_TYPE and
`write(conv, *, branch=None) -> str`; all but `portable` write the path that
ends at `branch` (the active path by default).
"""

from __future__ import annotations

from types import ModuleType

from ..errors import UnknownFormatError
from . import anthropic, html, markdown, ollama, openai, portable, text

WRITERS: dict[str, ModuleType] = {
    mod.NAME: mod for mod in (portable, markdown, text, html, openai, anthropic, ollama)
}


def writer(name: str) -> ModuleType:
    try:
        return WRITERS[name]
    except KeyError:
        raise UnknownFormatError(f"unknown output format {name!r}; known: {', '.join(WRITERS)}") from None


def writer_names() -> list[str]:
    return list(WRITERS)
