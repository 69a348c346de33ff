"""A long list of texts worked through by this process and a helper process at once, each from one end.

Splitting and terming a history never seen (a Continue in asked for the instant its save replies, `mnemo
context FILE`) is pure Python over every message: about 0.2-0.3 s a MB on one core. On Linux with a second
core free, a helper takes the texts from the first one on while this process takes them from the last one
back; they stop where they meet. The helper writes each batch it finishes to an in-memory file (marshal:
plain tuples, dicts and strings, read back in a fraction of the time they took to make), so it never waits
for this process to read; this process reads what has arrived after each text of its own (`Results`). The
work is never slower than one process by more than starting the helper and, when the helper gets no core
(a loaded machine), this process simply does more of it. The results do not depend on who made them: the
same function on the same text.

The helper is a child forked for the call (`map_shared`, here), or a worker process a host keeps
(split_worker.py: no copy-on-write of the host's memory, and it can start before the texts are wanted).
A forked child only computes and writes to its file: its standard streams are pointed at /dev/null first
(the host's stdout is the browser's channel), it touches no file or database the parent holds, and it
leaves with os._exit (no clean-up of the parent's objects). It is forked only from a process with no other
thread (a fork copies one thread: a lock another thread held would never be released in the child), and
killed and reaped before `map_shared` returns.
"""

from __future__ import annotations

import gc
import marshal
import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence

TYPE_CHECKING = False  # (typing is not loaded in the split worker: 0.5 MB of its memory); mypy reads True
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

MIN_CHARS = 150_000  # below this much text a helper and the reading back cost more than the helper saves
BATCH_CHARS = 16_000  # a helper writes its results every this much text (one write, one marshal call)
HEADER = 4  # bytes of a record's length


def enabled() -> bool:
    """Whether this process may have a helper: Linux, a second core it may run on, and not turned off
    (MNEMOSYNE_ONE_PROCESS=1)."""
    if sys.platform != "linux" or os.environ.get("MNEMOSYNE_ONE_PROCESS") == "1":
        return False
    return len(os.sched_getaffinity(0)) > 1


def may_fork() -> bool:
    """enabled(), and no other thread in this process (what a fork needs)."""
    threading = sys.modules.get("threading")
    return enabled() and (threading is None or threading.active_count() == 1)


def record(data: Any) -> bytes:
    """`data` as one record of a helper's file: its length, then its marshal bytes."""
    body = marshal.dumps(data)
    return len(body).to_bytes(HEADER, "little") + body


def work_through(
    work: Callable[[str], Any],
    texts: Iterable[str | None],
    results: int,
    at: int,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """A helper's part: `work(text)` for each distinct text of `texts` in order (None: a place to pass
    over), written to the file `results` from offset `at` as records (places passed, [(text, result)]),
    until `stop()` says so (asked after each record). A text whose hash an earlier one has is passed over
    (this process makes it): the texts seen are not held, so a job's texts can be read a part at a time."""
    seen: set[int] = set()
    batch: list[tuple[str, Any]] = []
    size = place = 0
    for place, text in enumerate(texts, 1):
        if text is not None and (key := hash(text)) not in seen:
            seen.add(key)
            batch.append((text, work(text)))
            size += len(text)
        if size >= BATCH_CHARS:
            at = write_record(results, at, (place, batch))
            batch, size = [], 0
            if stop():
                return
    write_record(results, at, (place, batch))


def write_record(results: int, at: int, data: Any) -> int:
    """`data` as a record at offset `at` of the file `results`; where the record ends."""
    view = memoryview(record(data))
    while view:
        written = os.pwrite(results, view, at)
        view, at = view[written:], at + written
    return at


class Results:
    """What a helper writes to the file `results` from offset `start`, read as it arrives, and the work
    shared with it (`share`)."""

    def __init__(self, results: int, start: int = 0) -> None:
        self._results = results
        self._read_to = start  # bytes of the file read
        self._pending = bytearray()  # read, not yet a whole record
        self._made: dict[str, Any] = {}  # text -> what the helper sent of it (not decoded)
        self.passed = 0  # the helper has been through its list's places up to here

    def share(
        self,
        fn: Callable[[str], T],
        wanted: Sequence[tuple[int, str]],
        decode: Callable[[Any], T],
        keep_going: Callable[[], bool] = lambda: True,
    ) -> dict[str, T]:
        """`fn(text)` of each text of `wanted` ((its place in the helper's list, text), by place), this
        process taking them from the last back and the helper's results up to where it has been; they stop
        where they meet. A text the helper passed over is made here. Returns text -> result: the texts not
        made when `keep_going()` said to stop are missing. The helper is left running."""
        out: dict[str, T] = {}
        left = len(wanted)
        while left and keep_going():
            self._take()  # what the helper wrote meanwhile
            place, text = wanted[left - 1]
            if place < self.passed:  # the helper has been past every text left
                break
            left -= 1
            if text not in out:
                sent = self._made.get(text)
                out[text] = fn(text) if sent is None else decode(sent)
        self._take()
        for _, text in wanted[:left]:
            sent = self._made.get(text)
            if sent is not None and text not in out:
                out[text] = decode(sent)
        for _, text in wanted[:left]:  # what the helper passed over
            if text not in out:
                if not keep_going():
                    break
                out[text] = fn(text)
        return out

    def _take(self) -> None:
        """The whole records the helper has written since the last look, into `_made` and `passed`: read a
        MB at a time, each decoded as soon as it is whole (a helper far ahead has written about 2.5 bytes
        per character of text: not held all at once beside what they decode to)."""
        while chunk := os.pread(self._results, 1 << 20, self._read_to):
            self._read_to += len(chunk)
            self._pending += chunk
            self._decode()

    def _decode(self) -> None:
        pending, at = self._pending, 0
        while len(pending) - at >= HEADER:
            size = int.from_bytes(pending[at : at + HEADER], "little")
            if len(pending) - at - HEADER < size:
                break
            passed, batch = marshal.loads(pending[at + HEADER : at + HEADER + size])
            self._made.update(batch)
            self.passed = passed
            at += HEADER + size
        del pending[:at]


def map_shared(
    fn: Callable[[str], T],
    texts: Sequence[str],
    encode: Callable[[T], Any],
    decode: Callable[[Any], T],
    keep_going: Callable[[], bool] = lambda: True,
) -> list[T | None]:
    """`[fn(text) for text in texts]`, shared with a child forked for it when there is enough of it (see
    the module). The child's results cross as `encode(result)`, which marshal must be able to write, and
    come back as `decode(...)`. Stops when `keep_going()` says so: the texts nobody finished are None."""
    made: dict[str, T] = {}
    pid = -1
    if sum(map(len, texts)) >= MIN_CHARS and may_fork():
        results = os.memfd_create("mnemosyne-helper", os.MFD_CLOEXEC)
        try:
            pid = os.fork()
        except OSError:  # no process to be had (a limit): one process does it all
            os.close(results)
        if pid == 0:  # the child: never returns
            _child(lambda text: encode(fn(text)), texts, results)
    if pid > 0:
        try:
            made = Results(results).share(fn, list(enumerate(texts)), decode, keep_going)
        finally:
            _end(pid)
            os.close(results)
    else:
        for text in texts:
            if not keep_going():
                break
            made[text] = fn(text)
    return [made.get(text) for text in texts]


def _child(work: Callable[[str], Any], texts: Sequence[str], results: int) -> None:
    code = 1
    try:
        gc.disable()  # a collection would walk, and so copy, the whole heap the child shares with its parent
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        work_through(work, texts, results, 0)
        code = 0
    except BaseException:  # the parent does what is left; nothing of the child's may reach a stream
        pass
    finally:
        os._exit(code)


def _end(pid: int) -> None:
    """Stop the child wherever it is (it holds nothing but its results) and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
