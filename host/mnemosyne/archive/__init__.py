"""The encrypted local archive (SQLCipher + FTS5).

Archive, SaveResult and open_archive are loaded on first use (PEP 562): importing a submodule such as
archive.opening (the host's hello) does not import store.py."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from .store import Archive, open_archive
    from .writes import SaveResult

__all__ = ["Archive", "SaveResult", "open_archive"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import store  # (on first use: see the module)

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
