"""The texts a process has redacted, kept with their results (redact.Redactor reads and fills it).

A host redacts the same conversation for every context (the extension's default) and after a save ahead of
the context (Preparation): about 0.13 s a MB each time without it. Least recently used texts go first once
`max_chars` characters are held (a conversation of 5 MB of Chinese or 8 MB of English text; a text without
secrets is held once, shared with its result), and a host turning to a conversation lets the others' go
(hold_only). Owned by Caches: redaction itself keeps nothing between calls.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection

# a text's redaction: the redacted text and the count per type found in it
Redacted = tuple[str, tuple[tuple[str, int], ...]]

MEMO_CHARS = 8_000_000


class RedactionMemo:
    """Text -> its redaction, bounded by the characters of the texts held (see the module)."""

    def __init__(self, max_chars: int = MEMO_CHARS) -> None:
        self.max_chars = max_chars
        self._done: OrderedDict[str, Redacted] = OrderedDict()
        self._chars = 0

    def get(self, text: str) -> Redacted | None:
        """The redaction of `text` when it is held (it becomes the most recently used)."""
        done = self._done.get(text)
        if done is not None:
            self._done.move_to_end(text)
        return done

    def put(self, text: str, done: Redacted) -> None:
        if text in self._done:
            self._done.move_to_end(text)
            self._done[text] = done
            return
        self._done[text] = done
        self._chars += len(text)
        while self._chars > self.max_chars:
            old, _ = self._done.popitem(last=False)
            self._chars -= len(old)

    def hold_only(self, keep: Collection[str]) -> None:
        """Let go of every text but those of `keep` (the texts of the conversation a host turns to: up to
        `max_chars` characters of others were held, 16 MB of English text)."""
        for text in [text for text in self._done if text not in keep]:
            del self._done[text]
            self._chars -= len(text)

    def clear(self) -> None:
        self._done.clear()
        self._chars = 0

    @property
    def chars(self) -> int:
        """The characters of the texts held."""
        return self._chars

    def __contains__(self, text: object) -> bool:
        return text in self._done

    def __len__(self) -> int:
        return len(self._done)

    def texts(self) -> list[str]:
        return list(self._done)
