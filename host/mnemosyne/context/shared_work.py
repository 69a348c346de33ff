"""A long list of texts worked through by this process and a forked helper at once, each from one end.

Splitting and terming a history never seen (a Continue in asked for the instant its save replies, `mnemo
context FILE`) is pure Python over every message: about 0.2-0.3 s a MB on one core. On Linux with a second
core free, a child forked from this process takes the texts from the first one on while this process takes
them from the last one back; they stop where they meet. The child sends each batch it finishes down a pipe
(marshal: plain tuples, dicts and strings, read back in a fraction of the time they took to make); the
parent reads what has arrived after each text of its own. So the work is never slower than one process by
more than a fork (a few ms) and, when the child gets no core (a loaded machine), the parent simply does
more of it. The results do not depend on who made them: the same function on the same text.

The child only computes and writes to its pipe: its standard streams are pointed at /dev/null first (the
host's stdout is the browser's channel), it touches no file or database the parent holds, and it leaves with
os._exit (no clean-up of the parent's objects). It is forked only from a process with no other thread (a
fork copies one thread: a lock another thread held would never be released in the child) and killed and
reaped before `map_shared` returns.
"""

from __future__ import annotations

import gc
import marshal
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

MIN_CHARS = 150_000  # below this much text a fork and the reading back cost more than the child saves
BATCH_CHARS = 16_000  # the child sends its results every this much text (one pipe write, one marshal call)
_HEADER = 4  # bytes of a record's length


def enabled() -> bool:
    """Whether this process may fork a helper: Linux (a fork there copies no framework state that needs
    an exec), a second core it may run on, no other thread, and not turned off (MNEMOSYNE_ONE_PROCESS=1)."""
    if sys.platform != "linux" or os.environ.get("MNEMOSYNE_ONE_PROCESS") == "1":
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    return len(os.sched_getaffinity(0)) > 1


def map_shared(
    fn: Callable[[str], T],
    texts: Sequence[str],
    encode: Callable[[T], Any],
    decode: Callable[[Any], T],
    keep_going: Callable[[], bool] = lambda: True,
) -> list[T | None]:
    """`[fn(text) for text in texts]`, shared with a forked child when there is enough of it (see the
    module). The child's results cross the pipe as `encode(result)`, which marshal must be able to write,
    and come back as `decode(...)`. Stops when `keep_going()` says so: the texts nobody finished are None."""
    if sum(map(len, texts)) < MIN_CHARS or not enabled():
        return _serial(fn, texts, keep_going)
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process to be had (a limit): one process does it all
        os.close(read_end)
        os.close(write_end)
        return _serial(fn, texts, keep_going)
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(fn, texts, encode, write_end)
    os.close(write_end)
    try:
        return _parent(fn, texts, decode, keep_going, read_end)
    finally:
        os.close(read_end)
        _end(pid)


def _serial(fn: Callable[[str], T], texts: Sequence[str], keep_going: Callable[[], bool]) -> list[T | None]:
    out: list[T | None] = [None] * len(texts)
    for i, text in enumerate(texts):
        if not keep_going():
            break
        out[i] = fn(text)
    return out


def _child(fn: Callable[[str], Any], texts: Sequence[str], encode: Callable[[Any], Any], pipe: int) -> None:
    code = 1
    try:
        gc.disable()  # a collection would walk, and so copy, the whole heap the child shares with its parent
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        start, batch, size = 0, [], 0
        for i, text in enumerate(texts):
            batch.append(encode(fn(text)))
            size += len(text)
            if size >= BATCH_CHARS or i == len(texts) - 1:
                data = marshal.dumps((start, batch))
                _write_all(pipe, len(data).to_bytes(_HEADER, "little") + data)
                start, batch, size = i + 1, [], 0
        code = 0
    except BaseException:  # the parent does what is left; nothing of the child's may reach a stream
        pass
    finally:
        os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _parent(
    fn: Callable[[str], T],
    texts: Sequence[str],
    decode: Callable[[Any], T],
    keep_going: Callable[[], bool],
    pipe: int,
) -> list[T | None]:
    out: list[T | None] = [None] * len(texts)
    os.set_blocking(pipe, False)
    pending = bytearray()
    done = 0  # the child has sent the results of texts[:done]
    child_open = True
    i = len(texts) - 1
    while i >= done and keep_going():
        out[i] = fn(texts[i])
        i -= 1
        while child_open:  # what the child has sent meanwhile
            try:
                chunk = os.read(pipe, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:  # the child is done, or failed: the rest is this process's
                child_open = False
                break
            pending += chunk
            done = _take_records(pending, out, decode, done)
    return out


def _take_records(pending: bytearray, out: list, decode: Callable[[Any], Any], done: int) -> int:
    """The complete records at the head of `pending` into `out` (consumed); the new count of texts done."""
    at = 0
    while len(pending) - at >= _HEADER:
        size = int.from_bytes(pending[at : at + _HEADER], "little")
        if len(pending) - at - _HEADER < size:
            break
        start, batch = marshal.loads(pending[at + _HEADER : at + _HEADER + size])
        for k, value in enumerate(batch, start):
            if out[k] is None:
                out[k] = decode(value)
        done = max(done, start + len(batch))
        at += _HEADER + size
    del pending[:at]
    return done


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
