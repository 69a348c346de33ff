"""A message text's units (sentences, list items, table rows, code blocks) with their terms.

Splitting and terming a message is most of a build's cost, so a build asks a `UnitSource` (memory.py's
Memory) for the units of its texts: the preparation layer's (prepare/unit_cache.py) keeps them between
builds, reads them back from the archive and shares a long history's split with a helper process;
`SplitHere` splits each text in this process and keeps nothing. The corpora a selection reads are made of
them (corpus.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from sys import intern

from ..cjk import has_cjk
from . import digest
from . import salience as S

TYPE_CHECKING = False  # (typing is not loaded in the split worker: 0.5 MB of its memory); mypy reads True
if TYPE_CHECKING:
    from typing import Any, Protocol

    class UnitSource(Protocol):
        """Where a build gets the units of its texts."""

        def units_of_texts(
            self, texts: list[str], keep_going: Callable[[], bool] = ...
        ) -> dict[str, TextUnits]:
            """The units of each of `texts` (shared: read only), by text. `texts` are a path's in order.
            Stops when `keep_going()` says so: the texts not made by then are missing."""
            ...


# kind, text, its terms' keys, their kinds (salience.KIND_CODE: a letter each, upper case for a term the unit is
# the first of its text to use), the names a code block defines
Part = tuple[str, str, tuple[str, ...], str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class TextUnits:
    """The units of one message text and what the conversation's statistics need from them."""

    parts: tuple[Part, ...]
    sizes: tuple[int, ...]  # UTF-8 bytes of each unit's text
    pipes: tuple[int, ...]  # table pipes in each unit (markup, not information)
    questions: tuple[bool, ...]  # the unit is a question
    cjk: tuple[bool, ...]  # the unit is written (partly) in Chinese, Japanese or Korean script
    held: int  # terms held, for the cache's bound (held_of)
    # each unit's token count in tokens.policy.COUNTED_ENCODING, when known (units read back from the archive)
    counts: tuple[int, ...] | None = field(default=None, compare=False)


def split_units(text: str) -> TextUnits:
    """The units of `text`, split and termed here."""
    parts: list[Part] = []
    seen: set[str] = set()  # the terms of the text's units so far
    for kind, body in digest.split_text(text):
        if kind == "code":
            body, names = digest.code_unit(body)
            found = S.terms(body)
            for n in names:
                found[n.lower()] = "ident"
        else:
            body, names = S.compress(body), ()
            found = S.terms(body)
        parts.append((kind, body, *_coded(found, seen), names))
    return TextUnits(
        tuple(parts),
        tuple(len(p[1]) if p[1].isascii() else len(p[1].encode()) for p in parts),
        tuple(p[1].count("|") if p[0] in ("table", "row") else 0 for p in parts),
        tuple(p[0] == "sentence" and p[1].rstrip().endswith(digest.QUESTION_END) for p in parts),
        # (a unit's text is a piece of the message's, with "…" or "..." added: no CJK when it has none)
        tuple(has_cjk(p[1]) for p in parts) if has_cjk(text) else (False,) * len(parts),
        held_of(parts),
    )


def _coded(found: dict[str, str], seen: set[str]) -> tuple[tuple[str, ...], str]:
    """A unit's terms (key -> kind, salience.terms) as their keys and the string of their kinds' letters,
    upper case for the keys not in `seen` (the terms of the text's earlier units), which takes them in."""
    keys = tuple(found)
    if seen.isdisjoint(keys):
        kinds = "".join(map(S.FIRST_CODE.__getitem__, found.values()))
    else:
        first, code = S.FIRST_CODE, S.KIND_CODE
        kinds = "".join([code[k] if t in seen else first[k] for t, k in found.items()])
    seen.update(keys)
    # (interned: a few thousand distinct strings serve the units of a long conversation)
    return keys, intern(kinds)


def held_of(parts: Iterable[Part]) -> int:
    """A text's TextUnits.held, from its parts (a split, or units read back from the archive)."""
    return sum(len(p[2]) for p in parts) + 1


def fields_of(units: TextUnits) -> tuple[Any, ...]:
    """What a helper process sends of a text's units (the rest is made from it: from_fields)."""
    return units.parts, units.sizes, units.pipes, units.questions, units.cjk


def from_fields(fields: tuple[Any, ...]) -> TextUnits:
    """The units a helper process sent (fields_of)."""
    parts, sizes, pipes, questions, cjk = fields
    return TextUnits(parts, sizes, pipes, questions, cjk, held_of(parts))


def keep_all() -> bool:
    """A `keep_going` that never stops the work."""
    return True


class SplitHere:
    """Every text split in this process, every time: nothing is kept between builds."""

    def units_of_texts(
        self, texts: list[str], keep_going: Callable[[], bool] = keep_all
    ) -> dict[str, TextUnits]:
        out: dict[str, TextUnits] = {}
        for text in texts:
            if text not in out:
                out[text] = split_units(text)
                if not keep_going():
                    break
        return out
