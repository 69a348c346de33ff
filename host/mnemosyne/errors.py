"""Typed errors. Each has a stable UPPER_SNAKE code that the CLI prints and the
native host sends back in `error.code` (the table lives in host/PROTOCOL.md)."""

from __future__ import annotations


class MnemosyneError(Exception):
    code = "INTERNAL"

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        if code:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code


class InputError(MnemosyneError):
    """The input is not something we can read: not JSON, wrong shape, truncated."""

    code = "BAD_INPUT"


class UnknownFormatError(InputError):
    code = "UNKNOWN_FORMAT"


class SchemaVersionError(InputError):
    code = "UNSUPPORTED_SCHEMA_VERSION"


class NotFoundError(MnemosyneError):
    code = "NOT_FOUND"


class ArchiveError(MnemosyneError):
    code = "ARCHIVE_ERROR"


class KeyringUnavailableError(ArchiveError):
    code = "KEYRING_UNAVAILABLE"


class UnsafeKeyFileError(ArchiveError):
    """The key file is a symlink, not a plain file, or readable by other users: never used."""

    code = "ARCHIVE_KEY_UNSAFE"


class WrongKeyError(ArchiveError):
    code = "ARCHIVE_KEY_MISMATCH"
