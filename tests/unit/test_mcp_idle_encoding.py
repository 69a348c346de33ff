"""mcpserver: the whole encoding is built only once the first answer is out and the session is idle, so
no tool call waits for it (its build holds the interpreter's lock)."""

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
    assert session.idle_for() == 0.0  # no answer yet
    monkeypatch.setitem(server.BY_NAME, "probe", _Tool())
    monkeypatch.setitem(server._VALIDATORS, "probe", server.Draft202012Validator({"type": "object"}))
    monkeypatch.setattr(server.Session, "archive", None)
    session.call("probe", {})
    assert 0.0 <= session.idle_for() < startup.IDLE_SECONDS
    session.running = 1  # a call under way is no idleness, however long ago the last ended
    session.last_call -= 10
    assert session.idle_for() == 0.0


def test_the_whole_encoding_waits_for_the_first_answer_and_idleness(monkeypatch):
    if tokens.is_loaded("o200k_base"):
        pytest.skip("this process built the whole encoding already")
    monkeypatch.setattr(startup, "IDLE_SECONDS", 0.2)
    built = threading.Event()
    monkeypatch.setattr(tokens, "encoding", lambda name: built.set())
    session = server.Session()
    loader = threading.Thread(target=startup.load_whole_encoding_when_idle, args=(session,), daemon=True)
    loader.start()
    assert not built.wait(0.5)  # no answer yet: never idle
    session.answered, session.last_call = True, time.monotonic()
    assert built.wait(5) and session.idle_for() >= 0.2
    loader.join(5)
