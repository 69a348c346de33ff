"""What a build may keep between calls, handed to it by its caller: the engine itself keeps nothing.

A warm host builds the same conversation again and again (the preview, the paste, another target), so the
preparation layer keeps a conversation's units, corpora and token counts between builds and reads them back
from the archive (prepare/caches.py). A caller that keeps nothing (a test, a one-off build) passes `Fresh()`,
which makes everything for the one build.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

# (units and corpora load salience and digest: a build that fits by its byte count loads none of them)
if TYPE_CHECKING:
    from .corpus import Corpus
    from .counting import CountMemo
    from .turns import Turn
    from .units import TextUnits


def _keep_all() -> bool:
    return True


class Memory(Protocol):
    """Where a build gets its texts' units (a units.UnitSource), its corpus and its token counts from."""

    def units_of_texts(
        self, texts: list[str], keep_going: Callable[[], bool] = _keep_all
    ) -> dict[str, TextUnits]:
        """The units of each of `texts` (shared: read only), by text. `texts` are a path's in order. Stops
        when `keep_going()` says so: the texts not made by then are missing."""
        ...

    @property
    def counts(self) -> CountMemo:
        """Token counts of texts by base encoding, read and added to by the build's meters."""
        ...

    def corpus_of(
        self,
        turns: list[Turn],
        query: dict[str, str],
        skip: set[int],
        owner: str = "",
        default: bool = False,
        made: dict[str, TextUnits] | None = None,
    ) -> Corpus:
        """The corpus of `turns` scored against `query` (`skip`: the turns the query came from); `owner`:
        the id of their conversation; `default`: the query is the conversation's own (no focus). `made`:
        the units of the turns' texts made already, by text."""
        ...

    def kept(self, turns: list[Turn], query: dict[str, str], skip: set[int]) -> Corpus | None:
        """The corpus of these turns and query kept from an earlier build, if any."""
        ...

    def settle(self) -> None:
        """A build or a preparation is done: what is kept may shrink to what is worth keeping."""
        ...


class Fresh:
    """A Memory that keeps nothing: every text split here, every corpus made for its build."""

    def __init__(self) -> None:
        self.counts: CountMemo = {}

    def units_of_texts(
        self, texts: list[str], keep_going: Callable[[], bool] = _keep_all
    ) -> dict[str, TextUnits]:
        from .units import SplitHere  # (see the imports)

        return SplitHere().units_of_texts(texts, keep_going)

    def corpus_of(
        self,
        turns: list[Turn],
        query: dict[str, str],
        skip: set[int],
        owner: str = "",
        default: bool = False,
        made: dict[str, TextUnits] | None = None,
    ) -> Corpus:
        from .corpus import Corpus  # (see the imports)

        return Corpus(turns, owner, query, skip, default, made=made, source=self)

    def kept(self, turns: list[Turn], query: dict[str, str], skip: set[int]) -> Corpus | None:
        return None

    def settle(self) -> None:
        return None
