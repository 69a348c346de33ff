"""A message text's units as bytes, so the archive can keep them: a text is split and termed once, at the
save that brings it (after the reply) or at its first context, and every later process reads it back.

The archive stores the bytes with FORMAT and knows nothing else of them; this module owns the layout.
Reading back checks every field's type and every kind against the engine's own names, so a damaged or
foreign row is refused (None: the text is split again) instead of steering a build.
"""

from __future__ import annotations

import zlib
from hashlib import blake2b
from sys import intern
from typing import Literal, cast

import msgspec

from ..context.salience import KIND_OF_CODE
from ..context.units import TextUnits, held_of
from ..runtime.utf8 import without_utf8_copy

# Bump when splitting or terming changes what a text's units are: rows of another format are split again.
# 2: no Chinese pairs with a function character (salience.terms); 3: a unit's terms as keys and kind letters;
# 4: English clauses joined by a semicolon are units of their own; 5: 地 pairs are terms (地址, 地暖)
FORMAT = 5

PartKind = Literal["sentence", "item", "row", "code", "table", "list"]
_Layout = tuple[
    list[
        tuple[PartKind, str, list[str], str, list[str]]
    ],  # kind, text, terms' keys, their kinds' letters (salience.KIND_CODE), names a code block defines
    list[int],  # UTF-8 bytes of each unit
    list[int],  # table pipes of each unit
    list[bool],  # the unit is a question
    list[bool],  # the unit is in CJK script
    list[int],  # each unit's token count in tokens.policy.COUNTED_ENCODING
]
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Layout)
_CODES = frozenset(KIND_OF_CODE)
MAX_UNPACKED = 64 << 20  # bytes: a stored row never inflates past this (a text is at most a few MB)


def key(text: str) -> bytes:
    """What a text's units are stored under: 16 bytes of its BLAKE2b digest."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def pack(units: TextUnits, counts: list[int]) -> bytes | None:
    """`units`, with each unit's token count in tokens.policy.COUNTED_ENCODING, as compressed
    MessagePack; None for a text MessagePack cannot hold (a lone surrogate)."""
    # (the texts are those the unit cache holds: msgpack is given copies to attach its UTF-8 to, utf8.py)
    parts = [[kind, without_utf8_copy(text), *rest] for kind, text, *rest in units.parts]
    try:
        raw = _encoder.encode((parts, units.sizes, units.pipes, units.questions, units.cjk, counts))
    except (UnicodeEncodeError, msgspec.EncodeError):
        return None
    return zlib.compress(raw, 1)  # (level 1: a third of the size, 15 ms a MB; reading back costs 3 ms)


def inflate(blob: bytes, limit: int) -> bytes | None:
    """A row's compressed bytes inflated; None when they are not zlib's, or would inflate past `limit`."""
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(blob, limit)
    except zlib.error:
        return None
    return None if inflater.unconsumed_tail or not inflater.eof else raw


def unpack(blob: bytes) -> TextUnits | None:
    """The units `pack` wrote; None when `blob` is not such a row."""
    raw = inflate(blob, MAX_UNPACKED)
    if raw is None:
        return None
    try:
        checked, sizes, pipes, questions, cjk, counts = _decoder.decode(raw)
    except msgspec.DecodeError:
        return None
    # (its kinds checked: the engine reads them as the plain strings they are)
    parts = cast("list[tuple[str, str, list[str], str, list[str]]]", checked)
    n = len(parts)
    if not (len(sizes) == len(pipes) == len(questions) == len(cjk) == len(counts) == n) or (
        counts and min(counts) < 0
    ):
        return None
    # every term's kind a letter the engine knows (checked at once, in C), one per key
    if not set("".join([p[3] for p in parts])) <= _CODES or any(len(p[2]) != len(p[3]) for p in parts):
        return None
    # the terms' keys interned, as a split's are: the decoder shares a few hundred short ASCII keys at most,
    # and every other term was a string of its own in each unit holding it (a host that read back the
    # units of 5 MB of Chinese held 58 MB more, of English 17 MB)
    shaped = tuple(
        (kind, text, tuple(map(intern, terms)), intern(kinds), tuple(names))
        for kind, text, terms, kinds, names in parts
    )
    return TextUnits(
        shaped, tuple(sizes), tuple(pipes), tuple(questions), tuple(cjk), held_of(shaped), tuple(counts)
    )
