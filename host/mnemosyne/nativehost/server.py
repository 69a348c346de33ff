"""The host loop: read a frame, dispatch, write exactly one reply frame.

stdout is claimed at start-up: fd 1 is duplicated for frames and then pointed
at stderr, so a stray print() or a chatty library can never corrupt the frame
stream. Logs go to a file and carry action, id, sizes and timings, never bodies.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable

from ..errors import MnemosyneError
from ..runtime import appenv
from ..runtime.cycles import enable_when_idle
from . import envelope
from .actions import dispatch
from .framing import MAX_IN, FrameError, FrameTooLarge, read_frame, write_frame
from .hostlog import log
from .session import HostSession

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import BinaryIO


def claim_stdout() -> BinaryIO:
    frames = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if sys.platform == "win32":  # binary mode: text mode would turn \n into \r\n inside frames
        import msvcrt  # (Windows only)

        msvcrt.setmode(frames.fileno(), os.O_BINARY)
        msvcrt.setmode(sys.stdin.fileno(), os.O_BINARY)
    return frames


def _before_action(action: str) -> None:
    """A request never pays for writing the tokenizer cache. Set before the first action that may load
    the tokenizer, not at start-up: importing mnemosyne.tokens would cost hello more than python itself."""
    global _tokens_quiet
    if action != "hello" and not _tokens_quiet:
        from .. import tokens  # (see the docstring)

        tokens.write_rank_cache = False
        _tokens_quiet = True


_tokens_quiet = False


def handle(body: bytes | bytearray, session: HostSession) -> bytes:
    """One request frame in, one reply frame out; never raises. A bytearray frame (what read_frame gives) is
    emptied once parsed: a 64 MiB save does not hold its frame while the action runs."""
    started = time.perf_counter()
    request_id, action, code = None, "?", "OK"
    size = len(body)
    try:
        request = envelope.parse_request(body)
        if isinstance(body, bytearray):
            body.clear()
        request_id, action = request.id, request.action
        _before_action(action)
        data = dispatch(request, session)
        reply = envelope.ok(request_id, data)
        if not envelope.fits(reply):
            code = "INTERNAL"
            reply = envelope.error(request_id, code, "reply would exceed 1 MiB; ask for it in pages")
    except envelope.RequestError as exc:
        code = exc.code
        reply = envelope.error(exc.request_id if request_id is None else request_id, exc.code, str(exc))
    except MnemosyneError as exc:
        code = exc.code
        log.info("action %s failed: %s: %s", action[:40], exc.code, exc.message)  # the reply hides paths
        reply = envelope.error(request_id, exc.code, exc.message)
    except RecursionError:
        code = "BAD_INPUT"
        reply = envelope.error(request_id, code, "input nested too deeply")
    except MemoryError:
        code = "BAD_INPUT"
        reply = envelope.error(request_id, code, "input too large to process")
    except Exception as exc:  # the host must keep serving; the detail goes to the log, not the reply
        code = "INTERNAL"
        log.exception("internal error in action %s (id %r)", action, request_id)
        reply = envelope.error(request_id, code, f"internal error ({type(exc).__name__}); see the host log")
    log.info(
        "action=%s id=%r in=%dB out=%dB code=%s ms=%.1f",
        action[:40],
        request_id,
        size,
        len(reply),
        code,
        (time.perf_counter() - started) * 1000,
    )
    return reply


def input_waiting(stdin: BinaryIO, seconds: float = 0.0) -> bool:
    """Whether a request is waiting on stdin (a pipe), or comes within `seconds`: deferred work stops for
    it. Without a way to poll a pipe (Windows), the answer is no, and deferred work runs to the end after
    each reply."""
    if sys.platform == "win32":
        return False
    import select  # (only once a reply is written: the first one waits for nothing)

    try:
        return bool(select.select([stdin], [], [], seconds)[0])
    except (OSError, ValueError, TypeError):  # not a real file (tests pass BytesIO): no waiting request
        return False


def serve(
    stdin: BinaryIO,
    stdout: BinaryIO,
    session: HostSession | None = None,
    max_in: int = MAX_IN,
    after_first_reply: Callable[[], None] | None = None,
) -> int:
    session = session or HostSession()
    # Read unbuffered: a request a buffer had already taken in (sent right behind the one before) would be
    # invisible to input_waiting, which asks the pipe, and would wait for deferred work and the idle time.
    # (Nothing has been read from it yet.)
    stdin = getattr(stdin, "raw", stdin)
    collecting = gc.isenabled()  # (a caller that turned the collector off keeps it off)
    try:
        while True:
            try:
                body = read_frame(stdin, max_in)
            except FrameTooLarge as exc:
                # the rest of the oversize frame cannot be skipped safely: say why, then stop
                write_frame(stdout, envelope.error(None, exc.code, str(exc)))
                log.warning("frame too large: %d bytes", exc.length)
                return 1
            except FrameError as exc:
                log.warning("unreadable frame: %s", exc)
                return 1
            if body is None:
                return 0
            gc.disable()  # until the host is idle (cycles.enable_when_idle): not between a request and its reply
            write_frame(stdout, handle(body, session))
            if after_first_reply is not None:
                after_first_reply()
                after_first_reply = None
            session.after_reply(lambda: input_waiting(stdin))
            if collecting:
                enable_when_idle(lambda seconds: input_waiting(stdin, seconds))
    except BrokenPipeError:
        return 0
    finally:
        if collecting:
            gc.enable()
        session.close()


def main(argv: list[str] | None = None) -> int:
    appenv.apply()
    frames = claim_stdout()
    log.start()
    session = HostSession(caller=list(sys.argv[1:] if argv is None else argv))
    log.info("host start pid=%d caller=%s", os.getpid(), session.caller_label())
    return serve(sys.stdin.buffer, frames, session, after_first_reply=log.setup)
