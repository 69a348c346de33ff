"""A long history's split shared with a forked helper process (prepare/shared_work.py): the units are the
ones one process makes, whoever made them; a helper that fails or is not wanted leaves the work to this
process; nothing of the helper reaches the host's stdout (the browser's channel); no helper outlives the call.
On the message texts of every site fixture (real conversations), and through a real host process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conversation_samples import fixture_conversations
from mnemosyne.context import build_context, units
from mnemosyne.context.turns import render_message
from mnemosyne.prepare import shared_work
from mnemosyne.prepare.caches import Caches

needs_a_helper = pytest.mark.skipif(
    sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
    reason="a helper process needs Linux and a second core",
)
pytestmark = needs_a_helper


def site_texts() -> list[str]:
    """The distinct message texts of every site fixture: enough to be shared."""
    found = [render_message(m) for _, conv in fixture_conversations() for m in conv.messages]
    out = [text for text in dict.fromkeys(found) if text]
    assert sum(map(len, out)) >= shared_work.MIN_CHARS
    return out


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return site_texts()


@pytest.fixture(autouse=True)
def sharing_on(monkeypatch):
    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)


def no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)  # a helper still running, or ended and not reaped
    except ChildProcessError:
        return True
    return False


class Counted:
    """A decode that counts what it is given: only what the helper sent is decoded."""

    def __init__(self) -> None:
        self.calls = 0
        self.decode = units.from_fields

    def __call__(self, fields):
        self.calls += 1
        return self.decode(fields)


def slow_here(parent: int):
    """split_units, slower in this process than in a helper (so a helper surely takes part)."""

    def split(text: str):
        if os.getpid() == parent:
            time.sleep(0.002)
        return split_here(text)

    split_here = units.split_units

    return split


def test_the_units_are_the_ones_one_process_makes_whoever_made_them(texts):
    decode = Counted()
    shared = shared_work.map_shared(slow_here(os.getpid()), texts, units.fields_of, decode)
    assert shared == [units.split_units(text) for text in texts]
    assert 0 < decode.calls < len(texts)  # both took part, each text once
    assert no_child_left()


def test_the_terms_a_helper_made_are_the_strings_this_process_holds(texts):
    """A helper's kind letters come back interned, as this process's split makes them (marshal keeps it):
    a long conversation's units share a few thousand kind strings."""
    decode = Counted()
    shared = shared_work.map_shared(slow_here(os.getpid()), texts, units.fields_of, decode)
    assert decode.calls > 0
    parts = [p for tu in shared for p in tu.parts if p[2]]
    assert parts and all(sys.intern(p[3]) is p[3] for p in parts)


def test_a_helper_that_fails_leaves_the_work_to_this_process(texts):
    def refuse(fields):
        raise ValueError("cannot send")

    decode = Counted()
    shared = shared_work.map_shared(units.split_units, texts, refuse, decode)
    assert shared == [units.split_units(text) for text in texts]
    assert decode.calls == 0
    assert no_child_left()


def test_work_stopped_keeps_what_was_made_and_leaves_no_helper(texts):
    looks = iter(range(10_000))
    shared = shared_work.map_shared(
        slow_here(os.getpid()), texts, units.fields_of, units.from_fields, lambda: next(looks) < 2
    )
    made = [(text, made_units) for text, made_units in zip(texts, shared) if made_units is not None]
    assert 2 <= len(made) < len(texts)
    assert all(made_units == units.split_units(text) for text, made_units in made)
    assert no_child_left()


def test_no_helper_while_another_thread_runs_or_when_turned_off(texts, monkeypatch):
    decode = Counted()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        shared = shared_work.map_shared(units.split_units, texts, units.fields_of, decode)
    finally:
        release.set()
        other.join()
    monkeypatch.setenv("MNEMOSYNE_ONE_PROCESS", "1")
    again = shared_work.map_shared(units.split_units, texts, units.fields_of, decode)
    assert shared == again == [units.split_units(text) for text in texts]
    assert decode.calls == 0


def test_nothing_of_the_helper_reaches_stdout(tmp_path):
    """The host's stdout is the browser's channel: a helper's print, or its exit, must not write to it."""
    script = tmp_path / "child_print.py"
    script.write_text(
        "import os, sys\n"
        "from mnemosyne.prepare import shared_work\n"
        "parent = os.getpid()\n"
        "print('parent says', flush=False)\n"  # left in the buffer a fork copies
        "def split(text):\n"
        "    if os.getpid() != parent:\n"
        "        print('HELPER SAYS', text[:5]); sys.stdout.flush()\n"
        "    return len(text)\n"
        "texts = ['x' * 1000 + str(i) for i in range(400)]\n"
        "out = shared_work.map_shared(split, texts, lambda n: n, lambda n: n)\n"
        "assert out == [len(t) for t in texts], out\n"
        "print('done')\n"
    )
    run = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[1],
        env={k: v for k, v in os.environ.items() if k != "MNEMOSYNE_ONE_PROCESS"},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "parent says\ndone\n"
    assert "HELPER" not in run.stderr


def test_a_context_built_with_a_helper_is_the_one_built_without(monkeypatch):
    """A first build of a long history (nothing in memory): the same context, byte for byte, at several
    budgets, with the split shared and in one process."""
    convs = [conv for _, conv in fixture_conversations()]
    big = max(convs, key=lambda c: sum(len(render_message(m)) for m in c.messages))
    texts = {render_message(m) for m in big.messages}
    monkeypatch.setattr(shared_work, "MIN_CHARS", sum(map(len, texts)) // 2)
    decode = Counted()
    monkeypatch.setattr(units, "from_fields", decode)
    monkeypatch.setattr(units, "split_units", slow_here(os.getpid()))
    built = {}
    for one_process in (False, True):
        if one_process:
            monkeypatch.setenv("MNEMOSYNE_ONE_PROCESS", "1")
        for budget in (600, 2000, 8000):
            memory = Caches()  # (what a process keeps: its units split shared with a helper)
            built[one_process, budget] = build_context(
                big, "chatgpt", budget=budget, redact=True, memory=memory
            ).text
    assert all(built[False, b] == built[True, b] for b in (600, 2000, 8000))
    assert decode.calls > 0  # a helper took part in the shared builds


def children_cpu_ticks(pid: int) -> int:
    """CPU time (clock ticks) of the processes `pid` forked and reaped: /proc/PID/stat's cutime + cstime."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[13]) + int(fields[14])  # (fields 16 and 17 of the line; this list starts at field 3)


def test_a_real_host_shares_a_long_split_and_keeps_its_channel_whole(tmp_path):
    """The real host, asked for the context of a long conversation the instant its save replies: it forks
    helpers (their CPU time is in its children's) and its replies stay whole; the context is the one a host
    that may not fork builds."""
    from support.hostproc import HostProcess, host_env
    from test_host_paging_interop import big_chatgpt_payload

    payload = big_chatgpt_payload()
    contexts, ticks = {}, {}
    for one_process in ("0", "1"):
        host = HostProcess(host_env(tmp_path / one_process, MNEMOSYNE_ONE_PROCESS=one_process))
        try:
            saved = host.data("save", payload=payload, kind="chatgpt_api")
            contexts[one_process], _ = host.paged(
                "context", conversation_id=saved["conversation_id"], target="chatgpt", redact=True
            )
            assert host.data("hello")  # the channel is still in step after the helpers' work
            ticks[one_process] = children_cpu_ticks(host.proc.pid)
        finally:
            host.kill()
    assert contexts["0"] == contexts["1"]
    assert "[239]" in contexts["0"]  # the last message, verbatim
    assert ticks["0"] > 0 and ticks["1"] == 0
