"""Opening (or creating) the archive's database: its key, the file's mode, the connection, migrations.

Apart from store.py so the host's `hello` (which only counts conversations) opens the archive without
importing the Archive class and what its methods need (hashing, attachments, facets, the search index)."""

from __future__ import annotations

from pathlib import Path

from .. import paths
from ..errors import ArchiveError, NotFoundError
from . import keys, migrations
from .db import connect, sqlite


def open_database(path: Path | None = None, *, create: bool = True) -> tuple[sqlite.Connection, Path]:
    """The migrated connection and its path. A database without its key is an error, never replaced."""
    path = path or paths.archive_path()
    exists = path.exists() and path.stat().st_size > 0
    key = keys.load_key(create=not exists and create)
    if key is None:
        if exists:
            raise ArchiveError(
                f"the archive {path} exists but its key is missing from the {keys.where()}; nothing was changed. "
                "Restore the key, or move the archive away to start a new one",
                code="ARCHIVE_KEY_MISSING",
            )
        raise NotFoundError(f"no archive at {path} yet")
    paths.ensure_dir(path.parent)
    if not exists:
        path.touch(mode=0o600)  # SQLite gives the -wal and -shm files the database's mode
        path.chmod(0o600)
    conn = connect(path, key)
    try:
        migrations.migrate(conn)
    except sqlite.Error as exc:
        conn.close()
        raise ArchiveError(f"cannot prepare the archive {path}: {exc}") from None
    return conn, path
