"""Driving the real `mnemo host` process over pipes, as a browser does."""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

HEADER = struct.Struct("=I")


def host_env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["MNEMOSYNE_HOME"] = str(home)
    env["MNEMOSYNE_KEY_FILE"] = str(home / "archive.key")
    env.pop("PYTHON_KEYRING_BACKEND", None)
    env.update(extra)
    return env


def frame(obj: Any) -> bytes:
    body = json.dumps(obj, ensure_ascii=False).encode("utf-8") if not isinstance(obj, bytes) else obj
    return HEADER.pack(len(body)) + body


class HostProcess:
    """One host process; send() writes a frame, recv() reads one reply frame."""

    def __init__(self, env: dict[str, str], args: list[str] | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mnemosyne.nativehost", *(args or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._next_id = 0

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_exactly(self, n: int, timeout: float) -> bytes:
        out = b""
        fd = self.proc.stdout.fileno()
        while len(out) < n:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise TimeoutError(f"no reply within {timeout}s")
            chunk = os.read(fd, n - len(out))
            if not chunk:
                raise EOFError("host closed stdout")
            out += chunk
        return out

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        (length,) = HEADER.unpack(self.read_exactly(4, timeout))
        assert length <= 1024 * 1024, f"reply frame of {length} bytes exceeds 1 MiB"
        return json.loads(self.read_exactly(length, timeout).decode("utf-8"))

    def call(self, action: str, timeout: float = 30.0, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        self.send_raw(frame({"id": self._next_id, "action": action, **params}))
        reply = self.recv(timeout)
        assert reply["id"] == self._next_id
        return reply

    def data(self, action: str, **params: Any) -> dict[str, Any]:
        reply = self.call(action, **params)
        assert reply["ok"], reply
        return reply["data"]

    def paged(self, action: str, **params: Any) -> tuple[str, int]:
        """Follow next_cursor to the end; returns the text and the number of pages."""
        chunks, pages, cursor = [], 0, None
        while True:
            extra = {"cursor": cursor} if cursor else {}
            data = self.data(action, **params, **extra)
            chunks.append(data["chunk"])
            pages += 1
            cursor = data["next_cursor"]
            if not cursor:
                return "".join(chunks), pages

    def close(self, timeout: float = 30.0) -> tuple[int, bytes, bytes]:
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
