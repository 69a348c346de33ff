"""Opening (or creating) the archive's database: its key, the file's mode, the connection, migrations.

Apart from store.py so the host's `hello` (which only counts conversations) opens the archive without
importing the Archive class and what its methods need (hashing, attachments, facets, the search index)."""

from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from ..errors import ArchiveError, NotFoundError
from . import keys, migrations
from .db import connect, sqlite


def open_database(path: Path | None = None, *, create: bool = True) -> tuple[sqlite.Connection, Path]:
    """The migrated connection and its path. A database without its key is an error, never replaced;
    without `create`, a missing archive is NotFoundError (reading commands never make one)."""
    path = path or paths.archive_path()
    exists = path.exists() and path.stat().st_size > 0
    if not exists and not create:
        raise NotFoundError(f"no archive at {path} yet")
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
        _create(path, key)
    conn = connect(path, key)
    try:
        migrations.migrate(conn)
    except sqlite.Error as exc:
        conn.close()
        raise ArchiveError(f"cannot prepare the archive {path}: {exc}") from None
    return conn, path


def _create(path: Path, key: bytes) -> None:
    """Build a new archive under a private temporary name, then link it into place.

    Another process (the host beside `mnemo import`) never opens a half-made database: switching a new
    file to WAL needs an exclusive lock that SQLite takes without waiting on the busy timeout, so a
    reader arriving in that instant failed the creator with 'database is locked'. Of two creators,
    the second finds the first one's archive and opens it."""
    tmp = path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    os.close(os.open(tmp, flags, 0o600))  # SQLite gives the -wal and -shm files the database's mode
    try:
        conn = connect(tmp, key)
        try:
            migrations.migrate(conn)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all in the file itself before it is linked
        except sqlite.Error as exc:
            raise ArchiveError(f"cannot create the archive {path}: {exc}") from None
        finally:
            conn.close()
        if path.exists() and path.stat().st_size == 0:
            path.unlink()  # an empty file left by an older version or a crash: not an archive yet
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first: open theirs
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
            leftover.unlink(missing_ok=True)
