"""Paging past the 1 MiB reply limit, and interop with an independent client."""

from __future__ import annotations

import json

import nativemessaging
import pytest

from support.hostproc import HostProcess, host_env


def chatgpt_payload(texts: list[str], conv_id: str, title: str) -> dict:
    """A linear ChatGPT backend-api conversation whose messages are `texts` (user and assistant by turns)."""
    mapping: dict = {"root": {"id": "root", "parent": None, "children": ["m0"], "message": None}}
    for i, text in enumerate(texts):
        mapping[f"m{i}"] = {
            "id": f"m{i}",
            "parent": "root" if i == 0 else f"m{i - 1}",
            "children": [f"m{i + 1}"] if i + 1 < len(texts) else [],
            "message": {
                "id": f"m{i}",
                "author": {"role": "user" if i % 2 == 0 else "assistant"},
                "create_time": 1700000000 + i,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "recipient": "all",
                "metadata": {},
            },
        }
    return {
        "title": title,
        "create_time": 1700000000,
        "update_time": 1700009999,
        "mapping": mapping,
        "current_node": f"m{len(texts) - 1}",
        "conversation_id": conv_id,
        "id": conv_id,
    }


def big_chatgpt_payload(turns: int = 240, size: int = 6000) -> dict:
    """A ChatGPT backend-api conversation well over 1 MiB, with CJK, emoji and quotes."""
    line = 'Line with "quotes", \\back\\slashes, 中文字符, emoji 🧪 and \u2028 separators. '
    texts = [f"[{i}] " + (line * (size // len(line) + 1))[:size] for i in range(turns)]
    return chatgpt_payload(texts, "big-conv-1", "Big one")


@pytest.fixture
def env(tmp_path):
    return host_env(tmp_path / "home")


def test_a_conversation_over_1_mib_comes_through_in_pages_exactly(env, monkeypatch):
    payload = big_chatgpt_payload()
    assert len(json.dumps(payload, ensure_ascii=False).encode()) > 1024 * 1024
    host = HostProcess(env)
    try:
        saved = host.data("save", payload=payload, kind="chatgpt_api")
        assert saved["messages"] == 240
        text, pages = host.paged("get", conversation_id=saved["conversation_id"], format="portable")
        markdown, md_pages = host.paged("get", conversation_id=saved["conversation_id"], format="markdown")
    finally:
        host.kill()
    assert pages >= 2 and md_pages >= 2
    # the reassembled text is exactly what the writers produce from the archived conversation
    for k in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(k, env[k])
    from mnemosyne.archive import open_archive
    from mnemosyne.writers import writer

    with open_archive() as arc:
        conv = arc.get(saved["conversation_id"])
    assert text == writer("portable").write(conv)
    assert markdown == writer("markdown").write(conv)
    assert len(text.encode()) > 1024 * 1024


def test_stale_cursor_is_refused(env):
    host = HostProcess(env)
    try:
        saved = host.data("save", payload=big_chatgpt_payload(), kind="chatgpt_api")
        first = host.data("get", conversation_id=saved["conversation_id"])
        assert first["next_cursor"]
        host.data("save", payload=big_chatgpt_payload(turns=242), kind="chatgpt_api")
        reply = host.call("get", conversation_id=saved["conversation_id"], cursor=first["next_cursor"])
        assert reply["error"]["code"] == "BAD_CURSOR"
    finally:
        host.kill()


class _Pipe:
    def __init__(self, stream):
        self.buffer = stream


def test_nativemessaging_package_as_an_independent_client(env, monkeypatch):
    """The `nativemessaging` package frames requests and reads replies; our host must agree with it."""
    host = HostProcess(env)
    try:
        for _i, request in enumerate(
            [
                {"id": "a", "action": "hello"},
                {
                    "id": "b",
                    "action": "save",
                    "kind": "auto",
                    "payload": big_chatgpt_payload(turns=6, size=200),
                },
                {"id": "c", "action": "search", "query": "中文字符"},
                {"id": "d", "action": "list"},
            ]
        ):
            encoded = nativemessaging.encode_message(request)  # ASCII-escaped JSON, as that library writes it
            host.send_raw(encoded["length"] + encoded["content"])
            monkeypatch.setattr("sys.stdin", _Pipe(host.proc.stdout))
            reply = nativemessaging.get_message()
            assert reply["id"] == request["id"] and reply["ok"], reply
            if request["action"] == "search":
                assert len(reply["data"]["items"]) == 1
            if request["action"] == "list":
                assert reply["data"]["items"][0]["title"] == "Big one"
    finally:
        host.kill()
