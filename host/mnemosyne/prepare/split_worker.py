"""The worker process a host keeps to split texts into the context engine's units beside it.

It is shared_work's helper without a fork per split. A child forked from the host shares the host's pages
until either process writes to them, and the host writes to many while a child lives (a save frees the
request's objects and makes the conversation's): forked as a save began, the child made the save's reply
twice as slow (0.16 -> 0.29 s for 1 MB, copying about 20,000 pages) and left the context after it 0.9x. A
worker started from scratch shares no page with the host, and it is there before the texts are: the host
hands it the texts of a conversation never seen as the save begins (UnitCache.split_ahead; guessed from the
site's JSON before the save reads it, readers.texts_ahead), and the context
asked for the instant the save replies takes what it made meanwhile (`Job.share`).

Protocol (both sides are here): a Unix socket pair (SOCK_SEQPACKET) between the host and the worker. A job
is a message b"job" carrying one file descriptor: an in-memory file holding the length of its texts'
records, then the records (lists of texts in order, None for a place to pass over); the worker writes its
records after them (shared_work.work_through). Any message that arrives while a job runs stops the job
(b"stop", or the next job). The worker leaves when the socket closes (the host is gone); a job that left it
larger than it was makes it start afresh on the same socket (`_start_afresh`). Its standard streams are
/dev/null: the host's stdout is the browser's channel.

Run as `python -m mnemosyne.prepare.split_worker FD` by `Worker.start`, never by hand.
"""

from __future__ import annotations

import gc
import marshal
import os
import select
import socket
import sys
from collections.abc import Iterator, Sequence

from ..context.units import fields_of, split_units
from ..runtime.cycles import collector_held
from . import shared_work

TYPE_CHECKING = False  # mypy reads True
if TYPE_CHECKING:  # (the worker loads neither: 1.1 MB of its memory)
    import subprocess
    from typing import Any


_JOB, _STOP = b"job", b"stop"
# A job's texts are written as records of about this many characters, read by the worker one record at a
# time: it never holds a long conversation's texts all at once (5 MB of them took it from 12 to 23 MB).
CHUNK_CHARS = 256_000
_MODULE = "mnemosyne.prepare.split_worker"  # (run as `-m`, this module's __name__ is __main__)
# the folder that holds the mnemosyne package (the browser starts the host in a folder of its choosing)
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Worker:
    """The host's side of a worker process."""

    def __init__(self, proc: subprocess.Popen[bytes], sock: socket.socket) -> None:
        self._proc = proc
        self._sock = sock

    @classmethod
    def start(cls) -> Worker | None:
        """A new worker (it loads the splitting modules on its own core), or None where this process may
        have no helper (shared_work.enabled) or gets no process."""
        if not shared_work.enabled():
            return None
        import subprocess  # (the worker itself never loads it: see the imports)

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", _MODULE, str(theirs.fileno())],
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
            end, start, size = shared_work.HEADER, 0, 0
            for place, text in enumerate(texts, 1):
                size += len(text or "")
                if size >= CHUNK_CHARS or place == len(texts):
                    end = shared_work.write_record(fd, end, texts[start:place])
                    start, size = place, 0
            os.pwrite(fd, (end - shared_work.HEADER).to_bytes(shared_work.HEADER, "little"), 0)
            socket.send_fds(self._sock, [_JOB], [fd])
        except OSError:
            os.close(fd)
            self.close()
            return None
        return Job(self, fd, end)

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


MAX_STARTS = 3  # a worker that keeps dying (no memory, a broken install) is not started again


class WorkerSlot:
    """The host's worker: one per host, started after a reply once the engine is loaded (`keep`)."""

    def __init__(self) -> None:
        self._current: Worker | None = None
        self._starts = 0

    def keep(self) -> None:
        """Have a worker (a new one if it has gone, up to MAX_STARTS)."""
        if (self._current is None or not self._current.alive()) and self._starts < MAX_STARTS:
            if self._current is not None:
                self._current.close()  # (reaped)
            self._starts += 1
            self._current = Worker.start()

    def current(self) -> Worker | None:
        """The worker, while it is alive."""
        return self._current if self._current is not None and self._current.alive() else None

    def stop(self) -> None:
        """End the worker (the host is closing); `keep` starts a new one."""
        if self._current is not None:
            self._current.close()
        self._current, self._starts = None, 0


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

    def work(text: str) -> Any:
        return fields_of(split_units(text))

    def waiting() -> bool:  # a message (or the host's leaving) stops the job
        return bool(select.select([sock], [], [], 0)[0])

    gc.freeze()  # what the imports made is never collected: collections walk only the jobs' objects
    idle = _resident_kib()
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
        if _resident_kib() > idle + GROWN_KIB:
            try:
                _start_afresh(sock)
            except OSError:  # (no new interpreter to be had: this one goes on)
                idle = _resident_kib()


# What a job leaves in a worker is not given back to the system: the allocator keeps freed memory, and
# the table of interned strings keeps the size the job's terms gave it (a 5 MB conversation left a worker
# of 9 MB at 13). A worker that a job left this much larger starts itself afresh (exec: the same process and
# socket, a new interpreter), as it idles beside the host.
GROWN_KIB = 1024


def _resident_kib() -> int:
    """This process's resident memory (KiB)."""
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def _start_afresh(sock: socket.socket) -> None:
    """Replace this process's interpreter by a new one serving the same socket (the host sees no change:
    a job it sends meanwhile waits in the socket)."""
    os.set_inheritable(sock.fileno(), True)
    os.execv(sys.executable, [sys.executable, "-m", _MODULE, str(sock.fileno())])


def _texts_of_job(fd: int) -> tuple[Iterator[str | None], int]:
    """The texts a job's file holds, read a record at a time as they are wanted, and where its results
    start."""
    end = shared_work.HEADER + int.from_bytes(os.pread(fd, shared_work.HEADER, 0), "little")

    def texts() -> Iterator[str | None]:
        at = shared_work.HEADER
        while at < end:
            size = int.from_bytes(os.pread(fd, shared_work.HEADER, at), "little")
            at += shared_work.HEADER
            body = _read(fd, at, size)
            at += size
            yield from marshal.loads(body)

    return texts(), end


def _read(fd: int, at: int, size: int) -> bytearray:
    body = bytearray()
    while len(body) < size:
        chunk = os.pread(fd, size - len(body), at + len(body))
        if not chunk:
            raise EOFError("a job's texts cut short")
        body += chunk
    return body


def main(argv: list[str]) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    serve(socket.socket(fileno=int(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
