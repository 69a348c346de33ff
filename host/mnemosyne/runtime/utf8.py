"""Strings a long-lived process keeps, without the UTF-8 copies C code attaches to them.

C code that reads a Python string as UTF-8 (msgspec writing JSON, SQLite binding a parameter, tiktoken's
Rust encoder) asks CPython for its UTF-8 form, and CPython keeps that copy attached to the string for as
long as the string lives: about 1.5 bytes per character of Chinese beside the string's own 2, and most of
an emoji-laden English text. The host keeps a saved conversation and the context engine's units while it
builds contexts, so what it keeps is given fresh strings after such work, or the C code a throwaway
copy. An ASCII string's UTF-8 is its own data, never a copy.
"""

from __future__ import annotations


def without_utf8_copy(s: str) -> str:
    """`s`, or an equal new string (one without a UTF-8 copy) when it holds non-ASCII text."""
    return s if s.isascii() else "".join((s, ""))  # (join makes a new string of two items)
