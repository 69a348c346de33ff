"""The worker process a host keeps to split texts into the context engine's units beside it.

It is shared_work's helper without a fork per split. A child forked from the host shares the host's pages
until either process writes to them, and the host writes to many while a child lives (a save frees the
request's objects and makes the conversation's): forked as a save began, the child made the save's reply
twice as slow (0.16 -> 0.29 s for 1 MB, copying about 20,000 pages) and left the context after it 0.9x. A
worker started from scratch shares no page with the host, and it is there before the texts are: the host
hands it the texts of a conversation never seen as the save begins (units.split_ahead; guessed from the
site's JSON before the save reads it, readers.texts_ahead), and the context
asked for the instant the save replies takes what it made meanwhile (`Job.share`).

Protocol (both sides are here): a Unix socket pair (SOCK_SEQPACKET) between the host and the worker. A job
is a message b"job" carrying one file descriptor: an in-memory file holding the texts as one record (their
list, None for a place to pass over); the worker writes its records after it (shared_work.work_through).
Any message that arrives while a job runs stops the job (b"stop", or the next job). The worker leaves when
the socket closes (the host is gone). Its standard streams are /dev/null: the host's stdout is the
browser's channel.

Run as `python -m mnemosyne.context.split_worker FD` by `Worker.start`, never by hand.
"""

from __future__ import annotations

import gc
import marshal
import os
import select
import socket
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from . import shared_work

_JOB, _STOP = b"job", b"stop"
# the folder that holds the mnemosyne package (the browser starts the host in a folder of its choosing)
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Worker:
    """The host's side of a worker process."""

    def __init__(self, proc: subprocess.Popen, sock: socket.socket) -> None:
        self._proc = proc
        self._sock = sock

    @classmethod
    def start(cls) -> Worker | None:
        """A new worker (it loads the splitting modules on its own core), or None where this process may
        have no helper (shared_work.enabled) or gets no process."""
        if not shared_work.enabled():
            return None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", __name__, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                cwd=_PACKAGE_PARENT,  # `-m` puts the working folder first on the import path: this one is ours
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            ours.close()
            return None
        finally:
            theirs.close()
        return cls(proc, ours)

    def alive(self) -> bool:
        return self._proc.poll() is None and self._sock.fileno() >= 0

    def submit(self, texts: Sequence[str | None]) -> Job | None:
        """A job splitting `texts` in order (None: a place to pass over), which stops the one running; None
        when the worker is gone."""
        fd = os.memfd_create("mnemosyne-job", os.MFD_CLOEXEC)
        try:
            data = memoryview(shared_work.record(texts))
            at = 0
            while at < len(data):
                at += os.pwrite(fd, data[at:], at)
            socket.send_fds(self._sock, [_JOB], [fd])
        except OSError:
            os.close(fd)
            self.close()
            return None
        return Job(self, fd, len(data))

    def stop_job(self) -> None:
        try:
            self._sock.send(_STOP)
        except OSError:
            self.close()

    def close(self) -> None:
        """End the worker (its work is only ever an optimisation) and reap it."""
        self._sock.close()
        self._proc.kill()
        self._proc.wait()


# The host's worker: one per process, started after a reply once the engine is loaded (`keep`).
MAX_STARTS = 3  # a worker that keeps dying (no memory, a broken install) is not started again
_current: Worker | None = None
_starts = 0


def keep() -> None:
    """Have a worker (a new one if it has gone, up to MAX_STARTS)."""
    global _current, _starts
    if (_current is None or not _current.alive()) and _starts < MAX_STARTS:
        if _current is not None:
            _current.close()  # (reaped)
        _starts += 1
        _current = Worker.start()


def current() -> Worker | None:
    """The worker, while it is alive."""
    return _current if _current is not None and _current.alive() else None


def stop() -> None:
    """End the worker (the host is closing); `keep` starts a new one."""
    global _current, _starts
    if _current is not None:
        _current.close()
    _current, _starts = None, 0


class Job(shared_work.Results):
    """A job given to the worker: what it writes, read as it arrives (shared_work.Results.share)."""

    def __init__(self, worker: Worker, fd: int, start: int) -> None:
        super().__init__(fd, start)
        self._worker = worker
        self._fd = fd

    def end(self) -> None:
        """Stop the worker's work on it (it looks for a message after each record) and let the file go."""
        self._worker.stop_job()
        os.close(self._fd)


# ---------------------------------------------------------------- the worker's side


def serve(sock: socket.socket) -> None:
    """Run the jobs that come until the socket closes."""
    from ..cycles import collector_held
    from .units import _fields, _text_units

    def work(text: str) -> Any:
        return _fields(_text_units(text))

    def waiting() -> bool:  # a message (or the host's leaving) stops the job
        return bool(select.select([sock], [], [], 0)[0])

    gc.freeze()  # what the imports made is never collected: collections walk only the jobs' objects
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 64, 1)
        except OSError:
            return
        if not message:
            return
        for fd in fds:
            try:
                if message == _JOB:
                    texts, start = _texts_of_job(fd)
                    with collector_held():  # (as the host's builds: many objects, no cycles)
                        shared_work.work_through(work, texts, fd, start, waiting)
                    del texts
            except Exception:  # the host makes what the worker does not
                pass
            finally:
                os.close(fd)
        _give_memory_back()


def _give_memory_back() -> None:
    """Return what a job's texts and units took to the system (glibc keeps freed memory for the process
    otherwise): a worker idles beside the host between saves. A 5 MB Chinese conversation's job left it
    at 23 MB instead of the 14 MB it started with. (ctypes is the worker's alone: 1.5 MB of a host's.)"""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _texts_of_job(fd: int) -> tuple[list[str | None], int]:
    """The texts a job's file holds, and where its results start."""
    size = int.from_bytes(os.pread(fd, shared_work.HEADER, 0), "little")
    body = bytearray()
    while len(body) < size:
        chunk = os.pread(fd, size - len(body), shared_work.HEADER + len(body))
        if not chunk:
            raise EOFError("a job's texts cut short")
        body += chunk
    return marshal.loads(body), shared_work.HEADER + size


def main(argv: list[str]) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    serve(socket.socket(fileno=int(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
