"""The real host process, driven over pipes as a browser drives it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from support.data import load
from support.hostproc import HostProcess, frame, host_env

FIXTURES = Path(__file__).parent / "fixtures"
CHATGPT = (
    "chatgpt_api/elinvoss/0119-Tide_anneal_crucible_explanation-6925e174-6714-832f-8946-84bdb22f6d2e.json"
)


def test_hello_reports_versions_limits_and_archive(host):
    data = host.data("hello")
    assert data["protocol"] == 1 and data["format_version"] == "1.0"
    assert data["limits"]["max_out"] == 1024 * 1024
    assert data["archive"] == {"state": "ready", "conversations": 0}
    assert {"hello", "save", "list", "search", "get", "context", "delete", "targets"} <= set(data["actions"])


def test_save_is_idempotent_and_lists_searches_gets_deletes(host, fixtures):
    payload = load(fixtures, CHATGPT)
    url = "https://chatgpt.com/c/6925e174-6714-832f-8946-84bdb22f6d2e"
    first = host.data("save", payload=payload, kind="chatgpt_api", source_url=url)
    assert first["status"] == "created" and first["site"] == "chatgpt" and first["messages"] > 3
    again = host.data("save", payload=payload, kind="chatgpt_api", source_url=url)
    assert again["status"] == "unchanged" and again["conversation_id"] == first["conversation_id"]
    items = host.data("list")["items"]
    assert [i["id"] for i in items] == [first["conversation_id"]]
    assert items[0]["url"] == url
    hits = host.data("search", query="crucible")["items"]
    assert hits and hits[0]["id"] == first["conversation_id"] and "«" in hits[0]["snippet"]
    md = host.data("get", conversation_id=first["conversation_id"], format="markdown")
    assert md["next_cursor"] is None and md["chunk"].startswith("---\n") and md["filename"].endswith(".md")
    portable = json.loads(host.paged("get", conversation_id=first["conversation_id"])[0])
    assert portable["format"] == "mnemosyne.conversation" and portable["id"] == first["conversation_id"]
    assert host.data("delete", conversation_id=first["conversation_id"])["deleted"] is True
    missing = host.call("get", conversation_id=first["conversation_id"])
    assert missing["ok"] is False and missing["error"]["code"] == "NOT_FOUND"
    assert host.data("hello")["archive"]["conversations"] == 0


def test_newer_capture_updates_in_place(host, fixtures):
    payload = load(fixtures, CHATGPT)
    mapping = payload["mapping"]
    leaf = payload["current_node"]
    parent = mapping[leaf]["parent"]
    shorter = dict(payload, current_node=parent, mapping={k: v for k, v in mapping.items() if k != leaf})
    shorter["mapping"][parent] = dict(mapping[parent], children=[])
    first = host.data("save", payload=shorter, kind="chatgpt_api")
    second = host.data("save", payload=payload, kind="chatgpt_api")
    assert first["conversation_id"] == second["conversation_id"]
    assert second["status"] == "updated" and second["messages"] == first["messages"] + 1
    assert len(host.data("list")["items"]) == 1


def test_page_capture_is_saved_as_partial(host):
    capture = {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": "claude",
        "url": "https://claude.ai/chat/abc",
        "conversation_id": "abc",
        "title": "Capture",
        "captured_at": "2026-11-30T10:00:00Z",
        "complete": False,
        "turns": [
            {
                "key": "t1",
                "order": 0,
                "role": "user",
                "model": None,
                "markdown": "Plot $x^2$",
                "attachments": [],
            },
            {
                "key": "t2",
                "order": 1,
                "role": "assistant",
                "model": None,
                "markdown": "```python\nplot(x**2)\n```",
                "attachments": [],
            },
        ],
    }
    data = host.data("save", payload=capture, kind="capture", source_url="https://claude.ai/chat/abc")
    assert data["partial"] is True and data["messages"] == 2 and data["site"] == "claude"


HOSTILE = [
    (b"\xff\xfe not utf-8", "INVALID_JSON"),
    (b'{"id": 1, "action": "hello", "x": "\\ud800"}', "INVALID_JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "INVALID_JSON"),
    (b'{"id": 1, "action": "list", "limit": ' + b"9" * 5000 + b"}", "INVALID_JSON"),
    (b'{"id": 1, "action": "list", "limit": NaN}', "INVALID_JSON"),
    (b'{"id": 1, "action": "hello", "action": "delete"}', "INVALID_JSON"),
    (b'{"id": 1, "action": "rm -rf"}', "UNKNOWN_ACTION"),
    (b'{"id": 1}', "BAD_REQUEST"),
    (b"[1, 2, 3]", "BAD_REQUEST"),
    (b'{"id": {"x": 1}, "action": "hello"}', "BAD_REQUEST"),
    (b'{"id": 1, "action": "list", "limit": "ten"}', "BAD_REQUEST"),
    (b'{"id": 1, "action": "list", "cursor": "not-a-cursor"}', "BAD_CURSOR"),
    (b'{"id": 1, "action": "save", "payload": {"mapping": 5}, "kind": "chatgpt_api"}', "BAD_INPUT"),
    (b'{"id": 1, "action": "save", "payload": {"hello": "world"}}', "UNKNOWN_FORMAT"),
    (b'{"id": 1, "action": "save", "payload": "text"}', "BAD_REQUEST"),
    (b'{"id": 1, "action": "get", "conversation_id": "zzzz", "format": "exe"}', "BAD_REQUEST"),
    (b'{"id": 1, "action": "context", "conversation_id": "zzzzzzzz", "target": "chatgpt"}', "NOT_FOUND"),
]


@pytest.mark.parametrize("body,code", HOSTILE, ids=[c for _, c in HOSTILE])
def test_hostile_frames_get_typed_errors_and_the_host_keeps_serving(host, body, code):
    host.send_raw(frame(body))
    reply = host.recv()
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    assert host.data("hello")["protocol"] == 1


@pytest.mark.parametrize(
    "values",
    [
        ["newest", {"x": 1}, "k3v9qz2mx8ta"],
        ["newest", [1, 2], "k3v9qz2mx8ta"],
        ["newest", "2026-11-30", {"x": 1}],
        ["newest", 2**70, "k3v9qz2mx8ta"],
        ["newest", True, "k3v9qz2mx8ta"],
        [["newest"], "2026-11-30", "k3v9qz2mx8ta"],
        ["length", 1.5, "k3v9qz2mx8ta"],
    ],
    ids=["key-object", "key-list", "id-object", "key-huge", "key-bool", "order-list", "key-float"],
)
def test_a_well_formed_list_cursor_with_wrong_types_is_bad_cursor(host, values):
    """A cursor that decodes (base64 of a JSON list of three) but holds values this host never issues is
    BAD_CURSOR: before, SQLite refused to bind them and the reply was INTERNAL."""
    host.data("save", payload=load(FIXTURES, CHATGPT), kind="chatgpt_api")
    cursor = base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")
    order = values[0] if isinstance(values[0], str) else "newest"
    reply = host.call("list", cursor=cursor, order=order)
    assert reply["ok"] is False and reply["error"]["code"] == "BAD_CURSOR", reply
    assert host.data("list", order=order)["items"]  # and the host keeps serving


def test_oversize_frame_is_refused_and_the_host_exits_cleanly(host):
    host.send_raw((2**32 - 1).to_bytes(4, "little"))
    reply = host.recv()
    assert reply["error"]["code"] == "FRAME_TOO_LARGE"
    code, out, err = host.close()
    assert code == 1 and out == b"" and b"Traceback" not in err


def test_truncated_frame_ends_the_host_without_output(host):
    host.send_raw(b'\x10\x00\x00\x00{"id":')
    code, out, err = host.close()
    assert code == 1 and out == b"" and b"Traceback" not in err


def test_end_of_input_exits_zero(host):
    code, out, _ = host.close()
    assert code == 0 and out == b""


def test_no_keyring_is_reported_not_papered_over(tmp_path):
    env = host_env(tmp_path / "home", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env.pop("MNEMOSYNE_KEY_FILE")
    proc = HostProcess(env)
    try:
        archive = proc.data("hello")["archive"]
        assert archive["state"] == "no_keyring" and "MNEMOSYNE_KEY_FILE" in archive["message"]
        reply = proc.call("list")
        assert reply["error"]["code"] == "KEYRING_UNAVAILABLE"
    finally:
        proc.kill()
    assert not (tmp_path / "home" / "archive.db").exists()


def test_foreign_extension_origin_is_refused(tmp_path):
    proc = HostProcess(
        host_env(tmp_path / "home"), args=["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"]
    )
    try:
        assert proc.call("hello")["error"]["code"] == "FORBIDDEN_CALLER"
    finally:
        proc.kill()


def test_stray_prints_never_reach_the_frame_stream(tmp_path):
    """A chatty library printing to stdout must not corrupt frames."""
    import subprocess
    import sys

    code = (
        "from mnemosyne.nativehost import server\n"
        "orig = server.handle\n"
        "def noisy(body, ctx):\n"
        "    print('2023 stray print'); return orig(body, ctx)\n"
        "server.handle = noisy\n"
        "raise SystemExit(server.main([]))\n"
    )
    stdin = frame({"id": 1, "action": "hello"}) + frame({"id": 2, "action": "hello"})
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        env=host_env(tmp_path / "home"),
        timeout=60,
    )
    out = done.stdout
    replies = []
    while out:
        length = int.from_bytes(out[:4], "little")
        replies.append(json.loads(out[4 : 4 + length]))
        out = out[4 + length :]
    assert [r["id"] for r in replies] == [1, 2]
    assert b"stray print" in done.stderr


def test_token_counts_are_stored_only_for_a_build_that_reads_them(tmp_path, fixtures, monkeypatch):
    """save stores no counts (the extension's default context is redacted, so it counts what it builds);
    a redacted or a cl100k build stores none either; the first plain o200k build counts once and keeps them."""
    env = host_env(tmp_path / "home")
    for k in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(k, env[k])
    from mnemosyne.archive import open_archive
    from mnemosyne.context import count_messages

    def stored(conv_id):
        with open_archive() as arc:
            return arc.get(conv_id), arc.token_counts(conv_id, "o200k_base")

    proc = HostProcess(env)
    conv_id = proc.data("save", payload=load(fixtures, CHATGPT), kind="chatgpt_api")["conversation_id"]
    redacted = proc.data("context", conversation_id=conv_id, target="chatgpt", redact=True)
    other_encoding = proc.data("context", conversation_id=conv_id, target="gpt-4")
    code, _, err = proc.close()
    assert code == 0, err
    assert redacted["report"]["tokens"] > 0 and other_encoding["report"]["tokens"] > 0
    assert stored(conv_id)[1] == {}

    proc = HostProcess(env)
    plain = proc.data("context", conversation_id=conv_id, target="chatgpt")
    code, _, err = proc.close()
    assert code == 0, err
    conv, counts = stored(conv_id)
    assert counts == count_messages(conv, "o200k_base") and sum(counts.values()) > 100
    proc = HostProcess(env)
    again = proc.data("context", conversation_id=conv_id, target="chatgpt")
    proc.close()
    assert again["chunk"] == plain["chunk"]  # stored counts give the same context as counting afresh


def test_a_page_cannot_save_a_mnemosyne_document_or_another_tools_file(host, fixtures):
    """A document names its own id: from a page it could overwrite any archived conversation."""
    from mnemosyne import canonical
    from mnemosyne.readers import ReadContext, load_path, read_raw

    raw = load_path(fixtures / "claude_export" / "echomine_claude_sample_export.json")[0]
    doc = json.loads(canonical.dumps(next(read_raw(raw, ReadContext()))))
    for payload in (doc, [{"role": "user", "content": "hi"}]):
        reply = host.call("save", payload=payload, kind="auto")
        assert reply["ok"] is False and reply["error"]["code"] == "BAD_INPUT", reply
        assert "a site's conversation JSON or a page capture" in reply["error"]["message"]
    assert host.data("hello")["archive"]["conversations"] == 0


class _Trickle:
    """A pipe that hands out at most `step` bytes per read, as a real stdin does for a large frame."""

    def __init__(self, data: bytes, step: int = 7):
        self.data, self.pos, self.step = data, 0, step

    def readinto(self, buffer) -> int:
        chunk = self.data[self.pos : self.pos + min(self.step, len(buffer))]
        buffer[: len(chunk)] = chunk
        self.pos += len(chunk)
        return len(chunk)

    def read(self, n: int) -> bytes:
        chunk = self.data[self.pos : self.pos + min(self.step, n)]
        self.pos += len(chunk)
        return chunk


def test_a_frame_read_in_pieces_is_whole_and_a_cut_one_is_truncated():
    from mnemosyne.nativehost.framing import FrameError, read_frame

    body = json.dumps({"id": 1, "action": "hello", "pad": "é" * 1000}, ensure_ascii=False).encode()
    assert bytes(read_frame(_Trickle(frame({"id": 1, "action": "hello", "pad": "é" * 1000})))) == body
    with pytest.raises(FrameError) as cut:
        read_frame(_Trickle(frame({"id": 1, "action": "hello"})[:-3]))
    assert cut.value.code == "TRUNCATED_FRAME"
    assert read_frame(_Trickle(b"")) is None


def test_hello_loads_only_what_it_answers_with(tmp_path):
    """The first hello of a cold host (the archive exists: a browser's every start but the first) imports no
    tokenizer module, no logging (the host log's first lines are written without it; logging takes over after
    the reply), no dataclasses (with inspect), no pydantic, no hashing (hashlib, base64: the caller check
    compares ids), no typing, and not the Archive class (hello only counts): each is start-up
    time a browser waits for. The log still records each hello."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from mnemosyne.nativehost import server\n"
        "orig = server.handle\n"
        "def spy(body, ctx):\n"
        "    reply = orig(body, ctx)\n"
        "    heavy = {'mnemosyne.tokens', 'logging', 'logging.handlers', 'dataclasses', 'pydantic', 'secrets',\n"
        "             'hashlib', 'base64', 'typing', 'mnemosyne.archive.store'}\n"
        "    sys.stderr.write('LOADED ' + ','.join(sorted(heavy & set(sys.modules))) + '\\n')\n"
        "    return reply\n"
        "server.handle = spy\n"
        "raise SystemExit(server.main([]))\n"
    )
    for _start in ("creates the archive", "cold"):  # the second start is the one checked
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=frame({"id": 1, "action": "hello"}),
            capture_output=True,
            env=host_env(tmp_path / "home"),
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stderr.decode().splitlines() if line.startswith("LOADED ")]
    assert loaded == ["LOADED "]
    assert (tmp_path / "home" / "logs" / "host.log").read_text(encoding="utf-8").count("action=hello") == 2
