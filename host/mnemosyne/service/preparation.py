"""What a long-lived process (the native host) makes ahead of the contexts it will be asked for, and when.

A host keeps one `Preparation`: its caches (prepare/caches.py) serve every context it builds; a save hands a
long conversation's texts to the split worker before and while it stores it; the conversation saved, read or
built last is prepared after the reply (its units and corpus made, then stored in the archive for the next
process), beside the search index the archive writes after the reply. Every part of it is an optimisation
only: a context makes what it needs itself, so a failure is logged, not raised.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import MnemosyneError
from ..runtime import heap
from ..runtime.cycles import collector_held
from ..text import text_chars

if TYPE_CHECKING:
    from ..archive import Archive
    from ..context import ContextResult, Target
    from ..model import Conversation
    from ..prepare.caches import Caches
    from ..prepare.split_worker import WorkerSlot

# A reply about a conversation of at least this much text (save, get, context) lets go of the archive's
# page cache after its deferred work: the pages it went through (the conversation's document, search rows
# and context units: about 5x its text) fill most of the cache's 8 MiB, and the host holds what they hold
# as objects already. A 5 MB conversation's host peaked 6-9 MB lower (tests/bench/long_chat_memory.py);
# a short one's leaves the cache to the searches that follow.
RELEASE_CACHE_CHARS = 1 << 20


class Log(Protocol):
    """Where the failures of this work go (the host's log): it is an optimisation, never an error."""

    def warning(self, msg: str, *args: Any) -> None: ...
    def exception(self, msg: str, *args: Any) -> None: ...


class Preparation:
    """A host's caches, its split worker, and the work it does after each reply (see the module)."""

    def __init__(self, log: Log) -> None:
        self.log = log
        # made by the first context or preparation (they load the engine's units: a host that only saves,
        # lists and searches loads neither, nor starts a worker)
        self._caches: Caches | None = None
        self._workers: WorkerSlot | None = None
        self._to_prepare: Conversation | None = None  # the last saved: a Continue-in follows an Export
        # a long conversation's deferred work (its index, its units stored) not done yet: a request came first
        self._long_work_left = False
        # whether the last context asked for was redacted (the extension's default): what is prepared next
        self.redacted_contexts = True

    @property
    def caches(self) -> Caches:
        """The caches every context of this process is built with."""
        if self._caches is None:
            from ..prepare.caches import Caches  # (see __init__)
            from ..prepare.split_worker import WorkerSlot

            self._workers = WorkerSlot()
            self._caches = Caches(self._workers)
        return self._caches

    def worker_running(self) -> bool:
        """Whether the split worker runs (started after a reply once a context was built or prepared)."""
        return self._workers is not None and self._workers.current() is not None

    # ------------------------------------------------------------ what a request reads

    def conversation(self, arc: Archive, conv_id: str) -> Conversation:
        """The archived conversation `conv_id`, which the host turns to: a conversation being read is the
        one Continue in asks for next (turn_to)."""
        conv = arc.get(conv_id)
        self.turn_to(conv)
        return conv

    def context(
        self, arc: Archive, conv_id: str, target: Target | str, *, redact: bool = False, **options: Any
    ) -> tuple[Conversation, ContextResult]:
        """The context of the archived conversation `conv_id` (service.context.context_for), built with this
        host's caches. The host turns to it (its next context, for another target or the paste, is prepared
        and stored), and prepares the next saved conversation as this one was asked for: redacted or plain."""
        from .context import context_for  # (loads the engine: not on hello's path)

        conv = self.conversation(arc, conv_id)
        self.redacted_contexts = redact
        return conv, context_for(conv, target, redact=redact, arc=arc, caches=self.caches, **options)

    # ------------------------------------------------------------ around a save

    def payload_received(self, arc: Archive, payload: Any) -> None:
        """As a save begins, before it reads `payload`: the texts of a site conversation's JSON, guessed
        (readers.texts_ahead), are handed to the split worker, so that it splits while this process reads
        and stores the conversation (the read is about half of a save). Only while the worker runs."""
        if not self.worker_running():
            return
        from .context import split_ahead_of_payload  # (loads the prepare package: see __init__)

        self._work("splitting ahead", lambda: split_ahead_of_payload(arc, self.caches, payload))

    def read(self, arc: Archive, conv: Conversation) -> None:
        """Before a save stores `conv`: a long conversation the archive holds no units of is split by the
        worker meanwhile (context.split_ahead), since Continue in asks for its context as soon as the save
        replies. Only while the worker runs (it starts after a reply once contexts are built: after_reply)."""
        if not self.worker_running():
            return
        from .context import split_ahead  # (loads the prepare package: see __init__)

        self._work("splitting ahead", lambda: split_ahead(arc, self.caches, conv))

    def save_failed(self) -> None:
        """Stop the worker's job given ahead (a save that failed: its conversation is not stored)."""
        if self._caches is not None:
            self._caches.units.end_ahead()

    def turn_to(self, conv: Conversation) -> None:
        """The host turns to `conv` (saved, read or built): it is prepared after the reply, and the caches
        (Caches.hold_only) and their redaction memo let go of other conversations first, so that memory
        holds about one conversation's units, not the last several's (their units are in the archive).
        Neither is there before a context or a preparation ran: a save does not load them."""
        self._to_prepare = conv
        if self._caches is not None:
            self._caches.hold_only(conv.id)
            if self._caches.redactions:  # (a host that has not redacted yet loads no redaction)
                from ..redact import free_texts  # (its patterns compile at import)

                self._caches.redactions.hold_only(free_texts(conv))

    # ------------------------------------------------------------ after a reply

    def after_reply(self, arc: Archive | None, keep_going: Callable[[], bool]) -> None:
        """Work that can wait for the reply, each part stopping as soon as `keep_going()` says a request is
        waiting.

        Once a context was built or prepared, the split worker process is started (WorkerSlot.keep: it splits
        long histories beside the host). Then the units and corpus of the conversation saved, read or built
        last, so that its context, asked for next, does not split and term its whole history first (Continue
        in saves as its menu opens and asks for the context at the pick: with the search index written first,
        that context waited for it, about 0.1 s for a conversation of 1 MB). Then the search index of saved
        conversations, one at a time, a long one a part at a time (what is left is written after the next
        reply, and every search writes it first), and a WAL checkpoint once the WAL has grown. Last, the
        conversation's units the archive does not hold are stored there for the next process, a text at a
        time: a pick that arrives meanwhile waits for one part or one text. After a long conversation
        (RELEASE_CACHE_CHARS) these rows are written with a small page cache (Archive.small_page_cache),
        which is let go after, and the memory the work freed goes back to the system (heap.give_back). The
        context work runs with the cycle collector held off (runtime/cycles.py), which runs in the index
        work."""
        conv, self._to_prepare = self._to_prepare, None
        workers = self._workers  # (a host that builds contexts: see __init__)
        if workers is not None and keep_going():
            self._work("starting the split worker", workers.keep)
        if arc is None:
            return
        if conv is not None and keep_going():
            self._work("preparing the context units", lambda: self._prepare(arc, conv, keep_going))
        # (rows written once: after a long conversation they need not fill the page cache, which is let go
        # below; after a short one it keeps the pages the searches that follow read. A long conversation's
        # work that a request interrupted is still long when it goes on after a later reply.)
        long_one = self._long_work_left or (conv is not None and text_chars(conv) >= RELEASE_CACHE_CHARS)
        try:
            with arc.small_page_cache() if long_one else nullcontext():
                self._index_pending(arc, keep_going)
                if conv is not None and keep_going():
                    self._work("storing the context units", lambda: self._store(arc, conv, keep_going))
        except MnemosyneError as exc:
            self.log.warning("sizing the page cache failed: %s", exc.message)
        if long_one:
            self._long_work_left = not keep_going()
            try:  # (even with a request waiting: the pick that follows a save builds from memory)
                arc.release_page_cache()
            except MnemosyneError as exc:
                self.log.warning("releasing the page cache failed: %s", exc.message)
            heap.give_back()  # what the long conversation's work freed (3-5 ms, even with a request waiting)

    def close(self) -> None:
        """The host is closing: the job ahead and the worker end."""
        if self._caches is not None:
            self._caches.units.end_ahead()
        if self._workers is not None:
            self._workers.stop()

    def _prepare(self, arc: Archive, conv: Conversation, keep_going: Callable[[], bool]) -> None:
        """The units of `conv` (read back from the archive where it holds them) and its corpus, in the
        version the last context asked for (redacted or plain). A redacted version is redacted here, into
        the caches' memo a slice of messages at a time, as context_for redacts it: the engine prepares the
        conversation a context of it is built from."""
        from ..context.engine import prepare  # (the engine is not on the path of a host's hello or save)
        from .context import stored_units  # (as the engine)

        caches = self.caches
        if self.redacted_contexts:
            from ..redact import redact_conversation, warm  # (its patterns compile at import)

            if not warm(conv, keep_going, caches.redactions):
                return
            conv = redact_conversation(conv, memo=caches.redactions)[0]
        with stored_units(arc, conv.id, caches):
            prepare(conv, keep_going, caches, redacted=False)

    def _store(self, arc: Archive, conv: Conversation, keep_going: Callable[[], bool]) -> None:
        """The units of `conv`'s texts (both versions) the archive does not hold, and its corpora, stored for
        the next process."""
        from .context import store_corpora, store_units  # (loads the engine: see _prepare)

        store_units(arc, conv, self.caches, keep_going)
        if keep_going():
            store_corpora(arc, conv, self.caches)

    def _work(self, what: str, work: Callable[[], None]) -> None:
        """An optimisation only (a context makes what it needs itself): a failure is logged, not raised."""
        try:
            with collector_held():
                work()
        except MnemosyneError as exc:
            self.log.warning("%s failed: %s: %s", what, exc.code, exc.message)
        except Exception:
            self.log.exception("%s failed", what)

    def _index_pending(self, arc: Archive, keep_going: Callable[[], bool]) -> None:
        try:
            arc.index_pending(keep_going)
            if keep_going():
                arc.checkpoint_deferred()
        except MnemosyneError as exc:  # stays pending in the archive; the next search retries
            self.log.warning("deferred indexing failed: %s", exc.message)
        except Exception:
            self.log.exception("deferred indexing failed")
