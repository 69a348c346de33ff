"""A conversation's corpus as bytes, so the archive can keep it next to its units: what a build needs of every
unit (sizes, relevance to the default query, densities) and the term statistics, without the units.

A later process (`mnemo context ID`, a restarted host) builds the same conversation from it as from a slim
corpus kept in memory (corpus.Corpus): it reads back only the units of the turns it looks at, instead of every
unit to make the statistics again. A row is used only for the exact turns and query it was made of (`key`):
a conversation grown by a turn, or redacted otherwise, makes its corpus again. The archive stores the bytes in
context_units under FORMAT and knows nothing else of them; this module owns the layout. Reading back checks
every field's type and that the lengths agree, so a damaged or foreign row is refused (None: the corpus is made
again) instead of steering a build.
"""

from __future__ import annotations

import zlib
from hashlib import blake2b
from typing import TYPE_CHECKING, Literal, cast

import msgspec

from . import unit_store

if TYPE_CHECKING:
    from ..context.corpus import Corpus
    from ..context.turns import Turn

# Corpus rows share the context_units table with unit rows (whose formats stay below this); bump it when the
# corpus or its layout changes, or with unit_store.FORMAT (the statistics are made of the units).
FORMAT = 1_000_005

TermKind = Literal["word", "name", "number", "ident", "han", "hanword"]  # salience.terms' kinds


class Stored(msgspec.Struct, array_like=True):
    """The corpus of a path's turns, without its units."""

    parts: list[int]  # turn -> how many units it has
    sizes: list[int]  # unit -> UTF-8 bytes of its text
    df: dict[str, int]  # term -> units using it
    first_turn: dict[str, int]
    last_turn: dict[str, int]
    kind_of: dict[str, TermKind]
    relevance: dict[int, float]  # unit -> relevance to the query (units without any are left out)
    densities: list[tuple[float, list[float], list[bool | None]]]  # (focus weight, every unit's density, CJK)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Stored)
MAX_UNPACKED = 256 << 20  # bytes: a row never inflates past this


def key(turns: list[Turn], query: dict[str, str], skip: set[int]) -> bytes:
    """What a corpus is stored under: 16 bytes of the BLAKE2b digest of its turns (each text by its units'
    key), its query and the turns the query came from, with both formats."""
    h = blake2b(digest_size=16, person=b"mnemo-corpus")

    def feed(text: str) -> None:  # (length first: no two sequences of strings feed the same bytes)
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little") + data)

    feed(f"{FORMAT} {unit_store.FORMAT} {sorted(skip)} {len(query)}")
    for term, kind in query.items():
        feed(term)
        feed(kind)
    for t in turns:
        feed(f"{t.index} {t.role} {t.id}")
        h.update(unit_store.key(t.text))
    return h.digest()


def pack(corpus: Corpus) -> bytes | None:
    """`corpus` without its units, as compressed MessagePack; None for a corpus not scored for a build yet (no
    densities) or that MessagePack cannot hold (a lone surrogate in a term)."""
    if not corpus.densities:
        return None
    stats = corpus.stats
    stored = Stored(
        corpus.parts,
        corpus.sizes,
        stats.df,
        stats.first_turn,
        stats.last_turn,
        cast("dict[str, TermKind]", stats.kind_of),  # (the engine's kinds are TermKind's names)
        corpus.relevance,
        [(weight, density.tolist(), cjk) for weight, (density, cjk) in corpus.densities.items()],
    )
    try:
        return zlib.compress(_encoder.encode(stored), 1)
    except (UnicodeEncodeError, msgspec.EncodeError):
        return None


def unpack(blob: bytes) -> Stored | None:
    """The corpus `pack` wrote; None when `blob` is not such a row or its lengths disagree."""
    raw = unit_store.inflate(blob, MAX_UNPACKED)
    if raw is None:
        return None
    try:
        stored = _decoder.decode(raw)
    except msgspec.DecodeError:
        return None
    units = len(stored.sizes)
    if (
        sum(stored.parts) != units
        or min(stored.parts, default=0) < 0
        or not stored.df.keys()
        == stored.first_turn.keys()
        == stored.last_turn.keys()
        == stored.kind_of.keys()
        or any(not 0 <= k < units for k in stored.relevance)
        or any(len(density) != units or len(cjk) != units for _, density, cjk in stored.densities)
    ):
        return None
    return stored
