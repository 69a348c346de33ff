"""A progress bar on stderr for long runs; silent when stderr is not a terminal."""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import TextIO


class Progress:
    def __init__(
        self, total: int, label: str = "", stream: TextIO | None = None, min_total: int = 20
    ) -> None:
        self.total, self.label, self.count = total, label[:30], 0
        self.stream = stream or sys.stderr
        self.enabled = total >= min_total and getattr(self.stream, "isatty", lambda: False)()
        self._last = 0.0

    def step(self, n: int = 1) -> None:
        self.count += n
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.count == self.total):
            self._last = now
            width = 30
            filled = int(width * self.count / max(self.total, 1))
            self.stream.write(
                f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.count}/{self.total}"
            )
            self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
