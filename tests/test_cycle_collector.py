"""Python's cycle collector held off while a context is built, while the host answers and while it prepares a
saved conversation after the reply (cycles.py)."""

from __future__ import annotations

import gc
import io
import json
import os
import select
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mnemosyne.nativehost import server
from mnemosyne.nativehost.session import HostSession
from support.data import load
from support.hostproc import frame

CHATGPT = "chatgpt_api/llmfarm_dialog-data_mapping.json"


class Collections:
    """The generations of the collections that start inside a watched function (`during`) and outside it."""

    def __init__(self) -> None:
        self.inside = False
        self.during: list[int] = []
        self.outside: list[int] = []

    def watch(self, fn: Callable) -> Callable:
        def watched(*args, **kwargs):
            self.inside = True
            try:
                return fn(*args, **kwargs)
            finally:
                self.inside = False

        return watched

    def _on_collect(self, phase: str, info: dict) -> None:
        if phase == "start":
            (self.during if self.inside else self.outside).append(info["generation"])

    @contextmanager
    def counted(self, threshold: tuple[int, int, int]) -> Iterator[None]:
        """Collections counted, at `threshold` (low: collections come often, so work without the hold sees many)."""
        was = gc.get_threshold()
        gc.set_threshold(*threshold)
        gc.callbacks.append(self._on_collect)
        try:
            yield
        finally:
            gc.callbacks.remove(self._on_collect)
            gc.set_threshold(*was)


def test_no_cycle_collection_runs_while_a_request_is_answered(mnemo_home, fixtures, monkeypatch):
    """A real save and context through the host's loop: no collection starts inside a request, the
    collector runs in the work after the replies (it had plenty to look at), and it is on at the end."""
    payload = load(fixtures, CHATGPT)
    requests = [
        {"id": 1, "action": "save", "payload": payload, "kind": "chatgpt_api"},
        {"id": 2, "action": "context", "conversation_id": None, "target": "chatgpt", "redact": True},
    ]
    session = HostSession()
    saved = io.BytesIO()
    server.serve(io.BytesIO(frame(requests[0])), saved, session)
    conversation_id = json.loads(saved.getvalue()[4:])["data"]["conversation_id"]
    requests[1]["conversation_id"] = conversation_id
    seen = Collections()
    monkeypatch.setattr(server, "handle", seen.watch(server.handle))
    with seen.counted((100, 10, 10)):
        out = io.BytesIO()
        server.serve(io.BytesIO(frame(requests[0]) + frame(requests[1])), out, HostSession())
    assert out.getvalue().count(b'"ok":true') == 2
    assert seen.during == [] and seen.outside
    assert gc.isenabled()


def test_no_cycle_collection_runs_inside_a_context_build_and_the_collector_is_left_as_found(monkeypatch):
    """A build (the CLI's, a library caller's) runs without collections however low the threshold, and
    leaves the collector on, or off when its caller had turned it off."""
    from conversation_samples import linear
    from mnemosyne.context import build_context, engine

    turns = [
        ("user" if n % 2 == 0 else "assistant", f"Line {n} about the oven at 2{n} degrees.")
        for n in range(400)
    ]
    conv = linear(turns)
    seen = Collections()
    monkeypatch.setattr(engine, "_build_context", seen.watch(engine._build_context))
    try:
        with seen.counted((50, 10, 10)):
            build_context(conv, "chatgpt", budget=2000)
            assert seen.during == [] and gc.isenabled()
            assert len([[] for _ in range(500)]) and seen.outside  # the collector runs again after it
            gc.disable()
            build_context(conv, "chatgpt", budget=2000)
            assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_cycle_collection_runs_while_the_host_prepares_a_saved_conversation(
    mnemo_home, fixtures, monkeypatch
):
    """After a save's reply the host splits and weighs the conversation for its context (engine.prepare), the
    work a Continue in's pick waits on: it runs without collections (each walked the host's cached units), and
    the collector is on at the end (it runs as soon as objects are made: the watch sees collections)."""
    from mnemosyne.context import engine

    payload = load(fixtures, CHATGPT)
    prepared: list[str] = []
    seen = Collections()
    prepare = seen.watch(engine.prepare)
    monkeypatch.setattr(
        engine,
        "prepare",
        lambda conv, keep_going, *a, **kw: prepared.append(conv.id) or prepare(conv, keep_going, *a, **kw),
    )
    with seen.counted((100, 10, 10)):
        out = io.BytesIO()
        request = {"id": 1, "action": "save", "payload": payload, "kind": "chatgpt_api"}
        server.serve(io.BytesIO(frame(request)), out, HostSession())
        assert len([[] for _ in range(500)]) and seen.outside
    assert b'"ok":true' in out.getvalue() and len(prepared) == 1
    assert seen.during == []
    assert gc.isenabled()


def test_the_collector_waits_until_the_host_is_idle(mnemo_home, fixtures, monkeypatch):
    """A Continue in: the context asked for as soon as the save replies is answered before any collection
    (a collection of what the replies made ran before each reply was written, the next request waiting
    behind it); once no request has come for cycles.IDLE_S the collector is on again, and runs."""
    from mnemosyne.nativehost.framing import read_frame
    from mnemosyne.runtime import cycles

    monkeypatch.setattr(cycles, "IDLE_S", 2.0)  # (the test's next request comes well within it)
    payload = load(fixtures, CHATGPT)
    into_host, from_test = os.pipe()
    into_test, from_host = os.pipe()
    stdin, stdout = os.fdopen(into_host, "rb", buffering=0), os.fdopen(from_host, "wb", buffering=0)
    replies = os.fdopen(into_test, "rb", buffering=0)
    host = threading.Thread(target=server.serve, args=(stdin, stdout, HostSession()), daemon=True)
    seen = Collections()
    save = frame({"id": 1, "action": "save", "payload": payload, "kind": "chatgpt_api"})
    try:
        with seen.counted((100, 10, 10)):
            host.start()
            os.write(from_test, save)
            seen.outside.clear()  # (what this thread made before)
            saved = json.loads(read_frame(replies))["data"]
            context = {"id": 2, "action": "context", "conversation_id": saved["conversation_id"]}
            os.write(from_test, frame({**context, "target": "chatgpt", "redact": True}))
            assert json.loads(read_frame(replies))["ok"]
            assert seen.outside == []  # none from the save's request to the context's reply
            deadline = time.monotonic() + 30
            while not gc.isenabled() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert gc.isenabled()  # idle: on again
            assert len([[] for _ in range(500)]) and seen.outside  # and it runs
    finally:
        os.close(from_test)  # the host's input ends: it leaves
        host.join(30)
        for stream in (stdin, stdout, replies):
            stream.close()
        gc.enable()
    assert not host.is_alive()


def test_a_request_sent_right_behind_another_is_seen_waiting(mnemo_home, monkeypatch):
    """Two requests written at once (the second behind the first in the pipe): the host's buffered input
    would take both in with the first read, and the pipe would show nothing waiting, so the second would
    wait the whole idle time (and any deferred work) before its turn. The host reads its input unbuffered:
    the second is answered at once."""
    from mnemosyne.nativehost.framing import read_frame
    from mnemosyne.runtime import cycles

    monkeypatch.setattr(cycles, "IDLE_S", 60.0)  # (a second reply within the test's deadline is not waiting)
    into_host, from_test = os.pipe()
    into_test, from_host = os.pipe()
    stdin = os.fdopen(into_host, "rb")  # buffered, as sys.stdin.buffer is
    stdout = os.fdopen(from_host, "wb", buffering=0)
    replies = os.fdopen(into_test, "rb", buffering=0)
    host = threading.Thread(target=server.serve, args=(stdin, stdout, HostSession()), daemon=True)
    host.start()
    try:
        os.write(from_test, frame({"id": 1, "action": "hello"}) + frame({"id": 2, "action": "hello"}))
        got = []
        deadline = time.monotonic() + 20
        while len(got) < 2 and time.monotonic() < deadline:
            if select.select([replies], [], [], 0.1)[0]:
                got.append(json.loads(read_frame(replies))["id"])
        assert got == [1, 2]
    finally:
        os.close(from_test)
        host.join(30)
        for stream in (stdin, stdout, replies):
            stream.close()
        gc.enable()
    assert not host.is_alive()
