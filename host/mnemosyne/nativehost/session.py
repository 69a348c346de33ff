"""Per-process state of the host: the archive (one connection, opened on first use) and the caller check."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import nullcontext

from ..errors import MnemosyneError
from ..runtime import heap
from .hostlog import log

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ..archive import Archive
    from ..archive.db import sqlite
    from ..model import Conversation
    from .paging import RenderCache


# A reply about a conversation of at least this much text (save, get, context) lets go of the archive's
# page cache after its deferred work: the pages it went through (the conversation's document, search rows
# and context units: about 5x its text) fill most of the cache's 8 MiB, and the host holds what they hold
# as objects already. A 5 MB conversation's host peaked 6-9 MB lower (tests/bench/long_chat_memory.py);
# a short one's leaves the cache to the searches that follow.
RELEASE_CACHE_CHARS = 1 << 20


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
        self._to_prepare: Conversation | None = None  # the last saved: a Continue-in follows an Export
        # a long conversation's deferred work (its index, its units stored) not done yet: a request came first
        self._long_work_left = False
        # whether the last context asked for was redacted (the extension's default): what is prepared next
        self.redacted_contexts = True

    @property
    def renders(self) -> RenderCache:
        """get/context texts of this process, rendered once per request (made on first use: not on hello's path)."""
        if self._renders is None:
            from .paging import RenderCache

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
        from ..extension_ids import caller_id, is_allowed_caller

        if not is_allowed_caller(self.caller):
            shown = (caller_id(self.caller) or "")[:80].encode("unicode_escape").decode("ascii")
            raise ForbiddenCaller(f"caller {shown} is not a Mnemosyne extension")

    # ------------------------------------------------------------ archive

    def _connection(self) -> sqlite.Connection:
        """The archive's connection, opened on first use; hello needs only this, not the Archive class."""
        if self._conn is None:
            from ..archive.db import defer_checkpoints
            from ..archive.opening import open_database

            self._conn, self._path = open_database()
            defer_checkpoints(self._conn)  # WAL checkpoints wait for after the reply (after_reply)
        return self._conn

    def archive(self) -> Archive:
        if self._archive is None:
            conn = self._connection()
            from ..archive.store import Archive

            assert self._path is not None  # set with the connection
            self._archive = Archive(conn, self._path)
            self._archive.defer_index = True  # the search index is written after the reply (after_reply)
        return self._archive

    def archive_state(self) -> dict[str, Any]:
        try:
            conn = self._connection()
        except MnemosyneError as exc:
            from .pathfree import without_paths

            log.warning("archive unavailable: %s: %s", exc.code, exc.message)
            return {"state": _state_for(exc.code), "code": exc.code, "message": without_paths(exc.message)}
        count = conn.execute("SELECT count(*) FROM conversations").fetchone()[0]
        return {"state": "ready", "conversations": count}

    def split_ahead(self, conv: Conversation) -> None:
        """Before a save stores `conv`: a long conversation the archive holds no units of is split into the
        context engine's units by the engine's worker process meanwhile (service.context.split_ahead),
        since Continue in asks for its context as soon as the save replies. Only while the worker runs (a
        host starts it after the reply that loaded the engine, see after_reply)."""
        split_worker = sys.modules.get("mnemosyne.prepare.split_worker")
        if split_worker is None or split_worker.current() is None:
            return
        from ..service.context import split_ahead

        self._context_work("splitting ahead", lambda: split_ahead(self.archive(), conv))

    def split_ahead_of_payload(self, payload: Any) -> None:
        """split_ahead as a save begins, before it reads `payload`: the texts of a site conversation's
        JSON, guessed (readers.texts_ahead), so that the worker splits while this process reads and
        stores the conversation, not only while it stores it (the read is about half of a save)."""
        split_worker = sys.modules.get("mnemosyne.prepare.split_worker")
        if split_worker is None or split_worker.current() is None:
            return
        from ..service.context import split_ahead_of_payload

        self._context_work("splitting ahead", lambda: split_ahead_of_payload(self.archive(), payload))

    @staticmethod
    def end_split_ahead() -> None:
        """Stop the worker's job given ahead (a save that failed: its conversation is not stored)."""
        units = sys.modules.get("mnemosyne.context.units")
        if units is not None:
            units.end_ahead()

    def prepare_context(self, conv: Conversation) -> None:
        """After the reply, split the conversation into the context engine's units (see after_reply).

        The host turns to `conv`: the context engine's caches (corpus.hold_only) and the redaction memo
        (redact.hold_only) let go of other conversations first, so that memory holds about one
        conversation's units, not the last several's (their units are in the archive). Nothing to let go
        before those modules were loaded: a save does not load them here."""
        self._to_prepare = conv
        corpus = sys.modules.get("mnemosyne.context.corpus")
        if corpus is not None:
            corpus.hold_only(conv.id)
        redact = sys.modules.get("mnemosyne.redact")
        if redact is not None:
            redact.hold_only(conv)

    def after_reply(self, input_waiting: Callable[[], bool]) -> None:
        """Work that can wait for the reply, each part stopping as soon as a request is waiting.

        Once the context engine is loaded, its worker process is started (split_worker.keep: it splits long
        histories beside the host). Then the units and corpus of the conversation saved, read or built last, so
        that its context, asked for next, does not split and term its whole history first (Continue in saves as
        its menu opens and asks for the context at the pick: with the search index written first, that context
        waited for it, about 0.1 s for a conversation of 1 MB). Then the search index of saved conversations,
        one at a time, a long one a part at a time (what is left is written after the next reply, and every
        search writes it first), and a WAL checkpoint once the WAL has grown. Last, the conversation's units
        the archive does not hold are stored there for the next process, a text at a time: a pick that
        arrives meanwhile waits for one part or one text. After a long conversation (RELEASE_CACHE_CHARS)
        these rows are written with a small page cache (Archive.small_page_cache), which is let go after, and
        the memory the work freed goes back to the system (heap.give_back). The context work runs with the
        cycle collector held off (cycles.py), which runs in the index work."""
        conv, self._to_prepare = self._to_prepare, None

        def keep_going() -> bool:
            return not input_waiting()

        if "mnemosyne.context.engine" in sys.modules and keep_going():  # its worker, for long splits
            from ..prepare import split_worker

            self._context_work("starting the split worker", split_worker.keep)

        if conv is not None and keep_going():
            self._context_work("preparing the context units", lambda: self._prepare(conv, keep_going))
        # (rows written once: after a long conversation they need not fill the page cache, which is let go
        # below; after a short one it keeps the pages the searches that follow read. A long conversation's
        # work that a request interrupted is still long when it goes on after a later reply.)
        long_one = self._archive if self._long_work_left or (conv is not None and _long(conv)) else None
        try:
            with long_one.small_page_cache() if long_one is not None else nullcontext():
                self._index_pending(input_waiting)
                if conv is not None and keep_going():
                    self._context_work("storing the context units", lambda: self._store(conv, keep_going))
        except MnemosyneError as exc:
            log.warning("sizing the page cache failed: %s", exc.message)
        if long_one is not None:
            self._long_work_left = input_waiting()
            try:  # (even with a request waiting: the pick that follows a save builds from memory)
                long_one.release_page_cache()
            except MnemosyneError as exc:
                log.warning("releasing the page cache failed: %s", exc.message)
            heap.give_back()  # what the long conversation's work freed (3-5 ms, even with a request waiting)

    def _prepare(self, conv: Conversation, keep_going: Callable[[], bool]) -> None:
        """The units of `conv` (read back from the archive where it holds them) and its corpus, in the
        version the last context asked for (redacted or plain)."""
        from ..context.engine import prepare
        from ..service.context import stored_units

        with stored_units(self.archive(), conv.id):
            prepare(conv, keep_going, redacted=self.redacted_contexts)

    def _store(self, conv: Conversation, keep_going: Callable[[], bool]) -> None:
        """The units of `conv`'s texts (both versions) the archive does not hold, and its corpora, stored for
        the next process."""
        from ..service.context import store_corpora, store_units

        store_units(self.archive(), conv, keep_going)
        if keep_going():
            store_corpora(self.archive(), conv)

    @staticmethod
    def _context_work(what: str, work: Callable[[], None]) -> None:
        """An optimisation only (a context makes what it needs itself): a failure is logged, not raised."""
        from ..runtime.cycles import collector_held

        try:
            with collector_held():
                work()
        except MnemosyneError as exc:
            log.warning("%s failed: %s: %s", what, exc.code, exc.message)
        except Exception:
            log.exception("%s failed", what)

    def _index_pending(self, input_waiting: Callable[[], bool]) -> None:
        if self._archive is not None:
            try:
                self._archive.index_pending(lambda: not input_waiting())
                if not input_waiting():
                    self._archive.checkpoint_deferred()
            except MnemosyneError as exc:  # stays pending in the archive; the next search retries
                log.warning("deferred indexing failed: %s", exc.message)
            except Exception:
                log.exception("deferred indexing failed")

    def close(self) -> None:
        if self._archive is not None:
            self.after_reply(lambda: False)
        units = sys.modules.get("mnemosyne.context.units")
        if units is not None:
            units.end_ahead()
        split_worker = sys.modules.get("mnemosyne.prepare.split_worker")
        if split_worker is not None:
            split_worker.stop()
        if self._conn is not None:
            self._conn.close()
        self._archive = self._conn = None


def _long(conv: Conversation) -> bool:
    """Whether `conv` holds RELEASE_CACHE_CHARS of text or more (it runs before a waiting request: a few ms)."""
    from ..text import text_chars

    return text_chars(conv) >= RELEASE_CACHE_CHARS


def _state_for(code: str) -> str:
    return {
        "KEYRING_UNAVAILABLE": "no_keyring",
        "ARCHIVE_KEY_MISMATCH": "key_mismatch",
        "ARCHIVE_KEY_MISSING": "key_missing",
    }.get(code, "error")
