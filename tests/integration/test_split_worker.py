"""The host's split worker (prepare/split_worker.py): a process started from scratch that splits message
texts into the context engine's units beside the host. Its units are the ones one process makes; a job that
is stopped makes way for the next; a worker gone leaves the work to the host; the texts of a long
conversation handed to it as its save begins are taken by the context asked for the instant the save
replies; a real host keeps one, its channel stays whole, and the worker leaves with the host. On the message
texts of every site fixture (real conversations)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from mnemosyne.context import units
from mnemosyne.nativehost.actions import context, save
from mnemosyne.prepare import split_worker
from mnemosyne.service import save as service_save
from test_host_paging_interop import chatgpt_payload
from test_shared_work import Counted, needs_a_helper, site_texts, slow_here

pytestmark = needs_a_helper


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return site_texts()


@pytest.fixture
def worker(monkeypatch):
    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)
    started = split_worker.Worker.start()
    assert started is not None
    yield started
    started.close()


def finished(job: split_worker.Job, places: int, seconds: float = 60.0) -> bool:
    """Whether the worker has been through `places` places of `job` (waiting for its file to say so)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job._take()
        if job.passed >= places:
            return True
        time.sleep(0.01)
    return False


def test_a_jobs_units_are_the_ones_one_process_makes(worker, texts):
    decode = Counted()
    job = worker.submit(texts)
    assert job is not None
    try:
        made = job.share(slow_here(os.getpid()), list(enumerate(texts)), decode)
    finally:
        job.end()
    assert made == {text: units.split_units(text) for text in texts}
    assert 0 < decode.calls < len(texts)  # both took part, each text once


def test_a_place_passed_over_is_made_here(worker, texts):
    """A text in memory is handed over as None; a text the worker was not given (a redacted version) is
    made by this process."""
    given: list[str | None] = [None if i % 3 == 0 else text for i, text in enumerate(texts)]
    job = worker.submit(given)
    assert job is not None
    try:
        assert finished(job, len(given))
        wanted = [(i, text if i % 5 else text + " [redacted]") for i, text in enumerate(texts)]
        made = job.share(units.split_units, wanted, units.from_fields)
    finally:
        job.end()
    assert made == {text: units.split_units(text) for _, text in wanted}


def test_a_job_stopped_makes_way_for_the_next(worker, texts):
    big = worker.submit(texts * 20)  # seconds of work
    assert big is not None
    small = worker.submit(texts[:40])  # stops the first
    assert small is not None
    try:
        assert finished(small, 40)
        big._take()
        assert big.passed < len(texts) * 20  # the first job was stopped, not run to its end
        made = small.share(units.split_units, list(enumerate(texts[:40])), units.from_fields)
        assert made == {text: units.split_units(text) for text in texts[:40]}
    finally:
        big.end()
        small.end()


def test_the_folder_the_host_was_started_in_cannot_stand_in_for_its_modules(tmp_path, monkeypatch, texts):
    """`python -m` puts the working folder first on the import path: a worker started from a folder holding
    a package named mnemosyne still runs Mnemosyne's own modules."""
    planted = tmp_path / "mnemosyne"
    planted.mkdir()
    (planted / "__init__.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)
    started = split_worker.Worker.start()
    assert started is not None
    try:
        job = started.submit(texts[:5])
        assert job is not None and finished(job, 5)
        made = job.share(units.split_units, list(enumerate(texts[:5])), units.from_fields)
        job.end()
    finally:
        started.close()
    assert made == {text: units.split_units(text) for text in texts[:5]}
    assert not (tmp_path / "ran").exists()


def test_a_worker_gone_leaves_the_work_to_this_process(worker, texts):
    job = worker.submit(texts)
    assert job is not None
    worker._proc.kill()  # mid-job
    worker._proc.wait()
    decode = Counted()
    try:
        made = job.share(units.split_units, list(enumerate(texts)), decode)
    finally:
        job.end()
    assert made == {text: units.split_units(text) for text in texts}
    assert not worker.alive()
    assert worker.submit(texts) is None


def test_a_worker_that_keeps_dying_is_not_started_again(monkeypatch):
    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)
    slot = split_worker.WorkerSlot()
    started = []
    try:
        for _ in range(split_worker.MAX_STARTS + 2):
            slot.keep()  # (what a host does after each reply)
            current = slot.current()
            if current is not None:
                started.append(current._proc.pid)
                current._proc.kill()
                current._proc.wait()
    finally:
        slot.stop()
    assert len(set(started)) == split_worker.MAX_STARTS


def redacted_context(session, conv_id: str) -> str:
    reply = context.run({"conversation_id": conv_id, "target": "chatgpt", "redact": True}, session)
    text = reply["chunk"]
    while reply["next_cursor"]:
        reply = context.run({"conversation_id": conv_id, "cursor": reply["next_cursor"]}, session)
        text += reply["chunk"]
    return text


def test_a_long_conversation_is_split_as_its_save_begins(host_session, monkeypatch, texts):
    """In a host that has built a context (the engine and its worker are there), the save of a long
    conversation never seen hands its texts to the worker before it stores it; the context asked for
    after takes what the worker made, splitting in this process only the texts the redaction changed, and
    is the context one process makes."""
    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)
    host_session.preparation.close()
    host_session.preparation.caches.clear()
    warm = save.run(
        {"payload": chatgpt_payload(texts[:6], "fixture-texts-0", "Six"), "kind": "chatgpt_api"}, host_session
    )
    redacted_context(host_session, warm["conversation_id"])
    host_session.after_reply(lambda: False)  # starts the worker
    assert host_session.preparation.worker_running()

    stored: list[str] = []
    store = host_session.archive().save_many
    monkeypatch.setattr(
        host_session.archive(),
        "save_many",
        lambda *a, **k: stored.append(host_session.preparation.caches.units.ahead_owner) or store(*a, **k),
    )
    read: list[str] = []
    read_payload = service_save.read_payload
    monkeypatch.setattr(
        service_save,
        "read_payload",
        lambda *a: read.append(host_session.preparation.caches.units.ahead_owner) or read_payload(*a),
    )
    here: list[str] = []
    split_here = units.split_units
    monkeypatch.setattr(units, "split_units", lambda text: here.append(text) or split_here(text))
    payload = chatgpt_payload(texts, "fixture-texts-1", "Fixture texts")
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)["conversation_id"]
    # the worker had its texts (guessed from the JSON) before the save read it, and kept them after
    assert read == [conv_id] and stored == [conv_id]
    assert host_session.preparation.caches.units.ahead is not None and finished(
        host_session.preparation.caches.units.ahead, len(texts)
    )
    shared = redacted_context(host_session, conv_id)
    assert here and not set(here) & set(texts)  # only redacted versions were split here

    monkeypatch.setenv("MNEMOSYNE_ONE_PROCESS", "1")
    host_session.preparation.close()
    host_session.preparation.caches.clear()
    host_session.renders.clear()
    host_session.archive().conn.execute("DELETE FROM context_units")
    assert redacted_context(host_session, conv_id) == shared


def warm_host_with_a_worker(host_session, monkeypatch) -> None:
    """A host that has built a context, with its worker started (what it does after that reply)."""
    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)
    host_session.preparation.close()
    host_session.preparation.caches.clear()
    warm = save.run(
        {"payload": chatgpt_payload(TEXTS_6, "fixture-texts-0", "Six"), "kind": "chatgpt_api"}, host_session
    )
    redacted_context(host_session, warm["conversation_id"])
    host_session.after_reply(lambda: False)
    assert host_session.preparation.worker_running()


TEXTS_6 = [f"Message {i}: the warm-up conversation's text number {i}." for i in range(6)]


def one_process_context(host_session, monkeypatch, conv_id: str) -> str:
    monkeypatch.setenv("MNEMOSYNE_ONE_PROCESS", "1")
    host_session.preparation.close()
    host_session.preparation.caches.clear()
    host_session.renders.clear()
    host_session.archive().conn.execute("DELETE FROM context_units")
    return redacted_context(host_session, conv_id)


def test_a_guess_the_reader_does_not_confirm_costs_only_its_split(host_session, monkeypatch, texts):
    """The texts handed to the worker before the read are a guess (readers.texts_ahead): a guessed text the
    reader does not make is never used; the host splits the real one, and the context is the one a host
    without a worker makes."""
    from mnemosyne import readers

    warm_host_with_a_worker(host_session, monkeypatch)
    guess = readers.texts_ahead
    monkeypatch.setattr(
        readers,
        "texts_ahead",
        lambda payload: (
            lambda found: (found[0], [t if i % 2 else t + " (as guessed)" for i, t in enumerate(found[1])])
        )(guess(payload)),
    )
    here: list[str] = []
    split_here = units.split_units
    monkeypatch.setattr(units, "split_units", lambda text: here.append(text) or split_here(text))
    payload = chatgpt_payload(texts, "fixture-texts-1", "Fixture texts")
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)["conversation_id"]
    assert host_session.preparation.caches.units.ahead is not None and finished(
        host_session.preparation.caches.units.ahead, len(texts)
    )
    shared = redacted_context(host_session, conv_id)
    _, real = guess(payload)
    guessed_right, guessed_wrong = set(real[1::2]), set(real[::2]) - set(real[1::2])
    assert guessed_wrong <= set(here) and not guessed_right & set(here)
    assert one_process_context(host_session, monkeypatch, conv_id) == shared


def test_a_conversation_whose_units_are_archived_is_not_split_ahead(host_session, monkeypatch, texts):
    """Saved again (continued on the site, a backup): the archive holds its units, which the context reads
    back; the worker is not given its texts, before the read nor after."""
    warm_host_with_a_worker(host_session, monkeypatch)
    payload = chatgpt_payload(texts, "fixture-texts-1", "Fixture texts")
    save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: False)  # prepared; its units stored
    assert host_session.preparation.caches.units.ahead is None
    given: list[object] = []
    read_payload = service_save.read_payload
    monkeypatch.setattr(
        service_save,
        "read_payload",
        lambda *a: given.append(host_session.preparation.caches.units.ahead) or read_payload(*a),
    )
    save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)
    assert given == [None] and host_session.preparation.caches.units.ahead is None


def test_texts_handed_ahead_do_not_keep_the_payload(host_session, monkeypatch, texts):
    """The guessed texts are the payload's own strings: once the save has replied, nothing of the host holds
    them (the conversation it keeps has its own copies of non-ASCII texts: utf8.py), though the worker's
    job is still there for the context to come."""
    warm_host_with_a_worker(host_session, monkeypatch)
    payload = chatgpt_payload(["".join((t, "")) for t in texts], "fixture-texts-1", "Fixture texts")
    probes = [
        part
        for node in payload["mapping"].values()
        if node.get("message")
        for part in node["message"]["content"]["parts"]
        if isinstance(part, str) and not part.isascii() and len(part) > 100
    ]
    assert len(probes) > 20
    before = [sys.getrefcount(p) for p in probes]  # (held by the payload and the probes)
    save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)
    assert host_session.preparation.caches.units.ahead is not None
    del payload
    assert [sys.getrefcount(p) for p in probes] == [n - 1 for n in before]  # the probes' alone


def test_a_save_that_fails_leaves_no_job_ahead(host_session, monkeypatch, texts):
    """The texts are handed over before the read: when the read (or the store) fails, the worker's job of
    a conversation that was not saved is stopped."""
    from mnemosyne.errors import InputError

    warm_host_with_a_worker(host_session, monkeypatch)
    given: list[object] = []

    def failing_read(*args):
        given.append(host_session.preparation.caches.units.ahead)
        raise InputError("a read that fails")

    monkeypatch.setattr(service_save, "read_payload", failing_read)
    payload = chatgpt_payload(texts, "fixture-texts-1", "Fixture texts")
    with pytest.raises(InputError):
        save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)
    assert given[0] is not None and host_session.preparation.caches.units.ahead is None


def test_no_split_ahead_past_its_bound(host_session, monkeypatch, texts):
    """A conversation past MAX_AHEAD_CHARS is not handed to the worker (its records would wait in shared
    memory, 2.5 bytes a character); its context is split when it is asked for."""
    from mnemosyne.prepare import ahead

    monkeypatch.delenv("MNEMOSYNE_ONE_PROCESS", raising=False)
    monkeypatch.setattr(ahead, "MAX_AHEAD_CHARS", sum(map(len, texts)) - 1)
    host_session.preparation.close()
    host_session.preparation.caches.clear()
    warm = save.run(
        {"payload": chatgpt_payload(texts[:6], "fixture-texts-0", "Six"), "kind": "chatgpt_api"}, host_session
    )
    redacted_context(host_session, warm["conversation_id"])
    host_session.after_reply(lambda: False)
    assert host_session.preparation.worker_running()
    save.run(
        {"payload": chatgpt_payload(texts, "fixture-texts-1", "Fixture texts"), "kind": "chatgpt_api"},
        host_session,
    )
    assert host_session.preparation.caches.units.ahead is None
    host_session.preparation.close()


def worker_pids(host_pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{host_pid}/task/{host_pid}/children").read_text().split()]


def started_worker(host_pid: int, seconds: float = 30.0) -> list[int]:
    """The host's children once it has one (it starts its worker after a reply, when no request waits)."""
    deadline = time.monotonic() + seconds
    while not (found := worker_pids(host_pid)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


def test_a_real_host_keeps_a_worker_and_its_channel_whole(tmp_path, texts):
    """The real host: once it has built a context it keeps a worker process; the context of a long
    conversation asked for the instant its save replies is the one a host without a worker returns; it
    answers `hello` after; the worker leaves with it."""
    from support.hostproc import HostProcess, host_env

    contexts = {}
    for one_process in ("0", "1"):
        host = HostProcess(host_env(tmp_path / one_process, MNEMOSYNE_ONE_PROCESS=one_process))
        try:
            warm = host.data(
                "save", payload=chatgpt_payload(texts[:6], "fixture-texts-0", "Six"), kind="chatgpt_api"
            )
            host.paged("context", conversation_id=warm["conversation_id"], target="chatgpt", redact=True)
            workers = started_worker(host.proc.pid) if one_process == "0" else worker_pids(host.proc.pid)
            saved = host.data(
                "save", payload=chatgpt_payload(texts, "fixture-texts-1", "Fixture texts"), kind="chatgpt_api"
            )
            contexts[one_process], _ = host.paged(
                "context", conversation_id=saved["conversation_id"], target="chatgpt", redact=True
            )
            assert host.data("hello")  # the channel is still in step
            assert len(workers) == (1 if one_process == "0" else 0)
            code, out, _ = host.close()
            assert code == 0 and out == b""  # nothing but replies on its stdout
            assert not any(Path(f"/proc/{pid}").exists() for pid in workers)  # it left with the host
        finally:
            host.kill()
    assert contexts["0"] == contexts["1"]


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field}")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_worker_a_long_job_left_larger_starts_afresh_and_serves_on(worker, texts):
    """A worker idles beside the host between saves: what a long conversation's job left in it (freed memory
    the allocator keeps, the interned terms' table) is given back, by the worker starting afresh on the
    same socket, and it goes on serving jobs."""
    pid = worker._proc.pid
    warm = worker.submit(["A first short text: the worker loads its modules."])
    assert warm is not None and finished(warm, 1)
    warm.end()
    idle = status_kib(pid, "VmRSS")
    long_texts = [  # 5 M characters, 240,000 distinct terms and Chinese pairs
        " ".join(
            f"term{i}x{j} 数据{chr(0x4E00 + (i * 37 + j) % 20_000)}{chr(0x4E00 + (i * 91 + j * 7) % 20_000)}。"
            for j in range(40)
        )
        for i in range(6_000)
    ]
    job = worker.submit(long_texts)
    assert job is not None and finished(job, len(long_texts))
    job.end()

    def back_to_idle() -> bool:  # its memory, and its peak: a new interpreter's (not the memory trimmed)
        return max(status_kib(pid, "VmRSS"), status_kib(pid, "VmHWM")) <= idle + 1_536

    deadline = time.monotonic() + 30
    while not back_to_idle() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert back_to_idle()
    assert worker.alive() and worker._proc.pid == pid
    again = worker.submit(texts)
    assert again is not None and finished(again, len(texts))
    try:
        again._take()
        made = {text: units.from_fields(sent) for text, sent in again._made.items()}
    finally:
        again.end()
    assert made == {text: units.split_units(text) for text in texts}  # every text, as one process makes it
