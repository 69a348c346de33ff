"""The encrypted local archive (SQLCipher + FTS5)."""

from .store import Archive, SaveResult, open_archive

__all__ = ["Archive", "SaveResult", "open_archive"]
