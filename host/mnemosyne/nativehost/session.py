"""Per-process state of the host: the archive (one connection, opened on first use), the caller check, the
renders kept for paging, and the service layer's preparation (service/preparation.py), driven after each
reply."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import MnemosyneError
from ..extension_ids import caller_id, is_allowed_caller
from .hostlog import log

# Imports inside functions: what the host's hello does not use (the archive's store, paging, the service
# layer) loads with the first request that does (`mnemo host` answers hello within 3x of `python -c pass`).

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ..archive import Archive
    from ..archive.db import sqlite
    from ..service.preparation import Preparation
    from .paging import RenderCache


class ForbiddenCaller(MnemosyneError):
    code = "FORBIDDEN_CALLER"


class HostSession:
    def __init__(self, caller: list[str] | None = None):
        self.caller = caller or []
        self._archive: Archive | None = None
        self._conn: sqlite.Connection | None = None
        self._path: Path | None = None
        self._archive_error: MnemosyneError | None = None
        self._renders: RenderCache | None = None
        self._preparation: Preparation | None = None

    @property
    def renders(self) -> RenderCache:
        """get/context texts of this process, rendered once per request (made on first use: not on hello's path)."""
        if self._renders is None:
            from .paging import RenderCache  # (see the imports)

            self._renders = RenderCache()
        return self._renders

    @renders.setter
    def renders(self, cache: RenderCache) -> None:
        self._renders = cache

    # ------------------------------------------------------------ caller check

    def caller_label(self) -> str:
        return " ".join(a[:80] for a in self.caller[:2]) or "cli"

    def check_caller(self) -> None:
        """Second layer behind the manifest's allow-list: refuse callers that are not ours."""
        if not is_allowed_caller(self.caller):
            shown = (caller_id(self.caller) or "")[:80].encode("unicode_escape").decode("ascii")
            raise ForbiddenCaller(f"caller {shown} is not a Mnemosyne extension")

    # ------------------------------------------------------------ archive

    def _connection(self) -> sqlite.Connection:
        """The archive's connection, opened on first use; hello needs only this, not the Archive class."""
        if self._conn is None:
            # (hello opens the database only: see the imports)
            from ..archive.db import defer_checkpoints
            from ..archive.opening import open_database

            self._conn, self._path = open_database()
            defer_checkpoints(self._conn)  # WAL checkpoints wait for after the reply (after_reply)
        return self._conn

    def archive(self) -> Archive:
        if self._archive is None:
            conn = self._connection()
            from ..archive.store import Archive  # (see the imports)

            assert self._path is not None  # set with the connection
            self._archive = Archive(conn, self._path)
            self._archive.defer_index = True  # the search index is written after the reply (after_reply)
        return self._archive

    def archive_state(self) -> dict[str, Any]:
        try:
            conn = self._connection()
        except MnemosyneError as exc:
            from .pathfree import without_paths  # (only when the archive cannot be opened)

            log.warning("archive unavailable: %s: %s", exc.code, exc.message)
            return {"state": _state_for(exc.code), "code": exc.code, "message": without_paths(exc.message)}
        count = conn.execute("SELECT count(*) FROM conversations").fetchone()[0]
        return {"state": "ready", "conversations": count}

    @property
    def preparation(self) -> Preparation:
        """What this host makes ahead of the contexts it is asked for, and its work after each reply
        (service/preparation.py); made on first use, not on hello's path."""
        if self._preparation is None:
            from ..service.preparation import Preparation  # (not on hello's path: see the property)

            self._preparation = Preparation(log)
        return self._preparation

    def after_reply(self, input_waiting: Callable[[], bool]) -> None:
        """Work that can wait for the reply (Preparation.after_reply), each part stopping as soon as a
        request is waiting."""
        if self._preparation is not None or self._archive is not None:
            self.preparation.after_reply(self._archive, lambda: not input_waiting())

    def close(self) -> None:
        if self._archive is not None:
            self.after_reply(lambda: False)
        if self._preparation is not None:
            self._preparation.close()
        if self._conn is not None:
            self._conn.close()
        self._archive = self._conn = None


def _state_for(code: str) -> str:
    return {
        "KEYRING_UNAVAILABLE": "no_keyring",
        "ARCHIVE_KEY_MISMATCH": "key_mismatch",
        "ARCHIVE_KEY_MISSING": "key_missing",
    }.get(code, "error")
