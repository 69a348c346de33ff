"""Opening the encrypted SQLite database.

SQLCipher with a raw 32-byte key (no PBKDF2: 1 ms per open instead of 100 ms).
WAL and a busy timeout let two browsers and the CLI share the archive;
synchronous=FULL so an acknowledged save survives a SIGKILL or power cut (the search index, derived
data, commits without the fsync: see Archive._index_pending);
temp_store=MEMORY so no plaintext spills into temp files.
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlcipher3 import dbapi2 as sqlite

from ..errors import ArchiveError, WrongKeyError

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

BUSY_TIMEOUT_MS = 10_000
# The page cache of a connection: searches of a 500,000-message archive are about 2x slower with SQLite's 2 MB
# default, and took the same time with 8 MiB as with 32 MiB (each kind of query, paired; 4 MiB: two-word p95
# 1.8x), as did saves, their index and list. A host's cache fills up to it: 32 MiB was 23 MB of its peak.
CACHE_KIB = 8 * 1024
WRITE_CACHE_KIB = 1024  # while a host stores derived rows (Archive.small_page_cache)

# A connection of the driver, which ships no type information (typing stays off the host's hello path)
Connection = sqlite.Connection
DatabaseError = sqlite.DatabaseError
OperationalError = sqlite.OperationalError


def connect(path: Path, key: bytes) -> sqlite.Connection:
    conn = sqlite.connect(
        str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA key = \"x'{key.hex()}'\"")
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite.DatabaseError:
            raise WrongKeyError(
                f"{path} cannot be opened with the archive key (wrong key, or not a Mnemosyne archive). "
                "Nothing was changed. Restore the key (OS keyring entry 'mnemosyne/archive-key' or MNEMOSYNE_KEY_FILE) "
                "or move the file away to start a new archive"
            ) from None
        for pragma in (
            "journal_mode = WAL",
            "synchronous = FULL",
            "foreign_keys = ON",
            "temp_store = MEMORY",
            f"cache_size = -{CACHE_KIB}",
        ):
            conn.execute(f"PRAGMA {pragma}")
        return conn
    except (WrongKeyError, ArchiveError):
        conn.close()
        raise
    except sqlite.Error as exc:
        conn.close()
        raise ArchiveError(f"cannot open the archive {path}: {exc}") from None


CHECKPOINT_PAGES = 1000  # SQLite's own auto-checkpoint threshold


def defer_checkpoints(conn: sqlite.Connection) -> None:
    """No auto-checkpoint inside this connection's commits: a checkpoint copies the WAL into the
    database and fsyncs it, which a save's reply should not wait for. The owner calls
    Archive.checkpoint_deferred() when no request waits."""
    conn.execute("PRAGMA wal_autocheckpoint = 0")


_ONE_ROW = re.compile(r"VALUES \((?:(?:\?|CAST\(\? AS TEXT\)),)*(?:\?|CAST\(\? AS TEXT\))\)")
MAX_PARAMETERS = 32_766  # SQLite's bound on a statement's parameters (SQLITE_MAX_VARIABLE_NUMBER)
# Rows per statement at most. A connection keeps the last 128 statements it prepared, by their text, and a
# prepared statement of N rows holds about N x 500 bytes: one statement per row count kept ~2 MB more for
# every conversation whose context units a host stored (4,000 rows), to hundreds of MB.
MAX_STATEMENT_ROWS = 256


def insert_rows(c: sqlite.Connection, statement: str, rows: list[tuple[Any, ...]]) -> None:
    """`statement` (one `VALUES (?,...)` row) for every row, as few statements of many rows each. Beside
    an import's reading thread, executemany's return to Python after each row was a wait for the GIL (a
    batch of 100 conversations spent ~20 ms waiting): one statement takes its rows in one call. Each
    statement takes a power of two of rows, up to MAX_STATEMENT_ROWS: whatever the row counts, a connection
    prepares at most 9 statements of each kind."""
    one = _ONE_ROW.search(statement)
    if one is None or not rows:
        raise ValueError("insert_rows needs a statement with one VALUES row, and rows")
    width = one.group(0).count("?")
    most = min(MAX_STATEMENT_ROWS, MAX_PARAMETERS // width)
    start = 0
    while start < len(rows):
        count = 1 << (min(most, len(rows) - start).bit_length() - 1)
        part = rows[start : start + count]
        many = (
            statement[: one.start()]
            + "VALUES "
            + ",".join([one.group(0)[7:]] * count)
            + statement[one.end() :]
        )
        c.execute(many, [value for row in part for value in row])
        start += count


def wal_unbackfilled(conn: sqlite.Connection) -> int:
    """WAL pages not yet copied into the database. Not the -wal file's size: after a checkpoint the file
    keeps its size and is written again from its start (NOOP, SQLite 3.51+, only reads the counters)."""
    _, log, done = conn.execute("PRAGMA wal_checkpoint(NOOP)").fetchone()
    unbackfilled: int = max(0, log - done)
    return unbackfilled


class Transaction:
    """`with Transaction(conn):` runs BEGIN IMMEDIATE ... COMMIT, ROLLBACK on error.

    IMMEDIATE takes the write lock up front, so two writers queue on the busy
    timeout instead of failing with 'database is locked' on lock upgrade.
    """

    def __init__(self, conn: sqlite.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")
