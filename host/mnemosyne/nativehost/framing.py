"""Native-messaging framing: a 4-byte native-order length, then UTF-8 JSON.

Reads exactly 4 + N bytes and refuses N past the inbound cap before allocating;
every outbound frame is checked against the browsers' 1 MiB limit. No JSON here.
"""

from __future__ import annotations

import struct

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import BinaryIO

MAX_OUT = 1024 * 1024  # host -> browser limit in Chrome and Firefox
MAX_IN = 64 * 1024 * 1024  # browser -> host: Chrome's documented limit
_HEADER = struct.Struct("=I")


class FrameError(Exception):
    """The stream itself is broken; the host cannot resynchronise and must exit."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class FrameTooLarge(FrameError):
    def __init__(self, length: int, cap: int):
        super().__init__("FRAME_TOO_LARGE", f"frame of {length} bytes is over the {cap}-byte limit")
        self.length = length


def _read_exactly(stream: BinaryIO, n: int) -> bytes | bytearray:
    """Up to `n` bytes (fewer at the end of input), read into one buffer: a 64 MiB frame is held once, not as
    a list of pipe-sized chunks and their join."""
    buffer = bytearray(n)
    view, got = memoryview(buffer), 0
    while got < n:
        read = stream.readinto(view[got:])  # type: ignore[attr-defined]
        if not read:
            break
        got += read
    view.release()
    if got < n:
        del buffer[got:]
    return buffer


def read_frame(stream: BinaryIO, max_in: int = MAX_IN) -> bytes | bytearray | None:
    """The next frame's body, or None at a clean end of input."""
    header = _read_exactly(stream, 4)
    if not header:
        return None
    if len(header) < 4:
        raise FrameError("TRUNCATED_FRAME", f"input ended inside a frame header ({len(header)} of 4 bytes)")
    (length,) = _HEADER.unpack(header)
    if length > max_in:
        raise FrameTooLarge(length, max_in)
    body = _read_exactly(stream, length)
    if len(body) < length:
        raise FrameError("TRUNCATED_FRAME", f"input ended inside a frame ({len(body)} of {length} bytes)")
    return body


def encode_frame(body: bytes) -> bytes:
    if len(body) > MAX_OUT:
        raise FrameTooLarge(len(body), MAX_OUT)
    return _HEADER.pack(len(body)) + body


def write_frame(stream: BinaryIO, body: bytes) -> None:
    stream.write(encode_frame(body))
    stream.flush()
