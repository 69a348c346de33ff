"""mcpserver: the whole encoding is built only while no tool call runs and none has for a while, so no
call waits for it (its build holds the interpreter's lock)."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("mcp_types")

from mnemosyne import tokens  # noqa: E402
from mnemosyne.mcpserver import server, startup  # noqa: E402


class _Tool:
    name = "probe"

    def run(self, archive: object, arguments: dict, redact: bool) -> tuple[str, dict]:
        return "ok", {}


def test_idle_counts_from_the_last_answer_and_not_while_a_call_runs(monkeypatch):
    session = server.Session()
    assert 0.0 <= session.idle_for() < startup.IDLE_SECONDS  # counted from the session's start
    monkeypatch.setitem(server.BY_NAME, "probe", _Tool())
    monkeypatch.setitem(server._VALIDATORS, "probe", server.Draft202012Validator({"type": "object"}))
    monkeypatch.setattr(server.Session, "archive", None)
    session.call("probe", {})
    assert 0.0 <= session.idle_for() < startup.IDLE_SECONDS
    session.running = 1  # a call under way is no idleness, however long ago the last ended
    session.last_call -= 10
    assert session.idle_for() == 0.0


def test_the_whole_encoding_waits_while_calls_run(monkeypatch):
    monkeypatch.setattr(startup, "IDLE_SECONDS", 0.2)
    built = threading.Event()
    monkeypatch.setattr(tokens, "encoding", lambda name: built.set())
    session = server.Session()
    session.running = 1  # a call under way, however long
    loader = threading.Thread(target=startup.load_whole_encoding_when_idle, args=(session,), daemon=True)
    loader.start()
    assert not built.wait(0.6)
    session.running, session.last_call = 0, time.monotonic()  # it ended: built once idle long enough
    assert built.wait(5) and session.idle_for() >= 0.2
    loader.join(5)
