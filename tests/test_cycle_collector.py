"""Python's cycle collector held off while a context is built and while the host answers (cycles.py)."""

from __future__ import annotations

import gc
import io
import json

from mnemosyne.nativehost import server
from mnemosyne.nativehost.session import HostSession
from support.data import load
from support.hostproc import frame

CHATGPT = "chatgpt_api/llmfarm_dialog-data_mapping.json"


def test_no_cycle_collection_runs_while_a_request_is_answered(mnemo_home, fixtures, monkeypatch):
    """A real save and context through the host's loop: no collection starts inside a request, the
    collector runs in the work after the replies (it had plenty to look at), and it is on at the end."""
    payload = load(fixtures, CHATGPT)
    requests = [
        {"id": 1, "action": "save", "payload": payload, "kind": "chatgpt_api"},
        {"id": 2, "action": "context", "conversation_id": None, "target": "chatgpt", "redact": True},
    ]
    inside, during, after = [False], [], []
    handle = server.handle

    def watched(body, session):
        inside[0] = True
        try:
            return handle(body, session)
        finally:
            inside[0] = False

    def on_collect(phase, info):
        if phase == "start":
            (during if inside[0] else after).append(info["generation"])

    session = HostSession()
    saved = io.BytesIO()
    server.serve(io.BytesIO(frame(requests[0])), saved, session)
    conversation_id = json.loads(saved.getvalue()[4:])["data"]["conversation_id"]
    requests[1]["conversation_id"] = conversation_id
    monkeypatch.setattr(server, "handle", watched)
    threshold = gc.get_threshold()
    gc.set_threshold(100, 10, 10)  # (collections come often: a request without the hold would see many)
    gc.callbacks.append(on_collect)
    try:
        out = io.BytesIO()
        server.serve(io.BytesIO(frame(requests[0]) + frame(requests[1])), out, HostSession())
    finally:
        gc.callbacks.remove(on_collect)
        gc.set_threshold(*threshold)
    assert out.getvalue().count(b'"ok":true') == 2
    assert during == [] and after
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
    inside, during, outside = [False], [], []
    build = engine._build_context

    def watched(*args):
        inside[0] = True
        try:
            return build(*args)
        finally:
            inside[0] = False

    def on_collect(phase, info):
        if phase == "start":
            (during if inside[0] else outside).append(info["generation"])

    monkeypatch.setattr(engine, "_build_context", watched)
    threshold = gc.get_threshold()
    gc.set_threshold(50, 10, 10)
    gc.callbacks.append(on_collect)
    try:
        build_context(conv, "chatgpt", budget=2000)
        assert during == [] and gc.isenabled()
        assert len([[] for _ in range(500)]) and outside  # the collector runs again after it
        gc.disable()
        build_context(conv, "chatgpt", budget=2000)
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.callbacks.remove(on_collect)
        gc.set_threshold(*threshold)


def test_no_cycle_collection_runs_while_the_host_prepares_a_saved_conversation(
    mnemo_home, fixtures, monkeypatch
):
    """After a save's reply the host splits and weighs the conversation for its context (engine.prepare), the
    work a Continue in's pick waits on: it runs without collections (each walked the host's cached units), and
    the collector runs again in the work after it (the search index) and is on at the end."""
    from mnemosyne.context import engine

    payload = load(fixtures, CHATGPT)
    inside, during, after, prepared = [False], [], [], []
    prepare = engine.prepare

    def watched(conv, keep_going):
        inside[0] = True
        try:
            prepared.append(conv.id)
            return prepare(conv, keep_going)
        finally:
            inside[0] = False

    def on_collect(phase, info):
        if phase == "start":
            (during if inside[0] else after).append(info["generation"])

    monkeypatch.setattr(engine, "prepare", watched)
    threshold = gc.get_threshold()
    gc.set_threshold(100, 10, 10)
    gc.callbacks.append(on_collect)
    try:
        out = io.BytesIO()
        request = {"id": 1, "action": "save", "payload": payload, "kind": "chatgpt_api"}
        server.serve(io.BytesIO(frame(request)), out, HostSession())
    finally:
        gc.callbacks.remove(on_collect)
        gc.set_threshold(*threshold)
    assert b'"ok":true' in out.getvalue() and len(prepared) == 1
    assert during == [] and after
    assert gc.isenabled()
