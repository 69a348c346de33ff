"""Security round 2 (issue 10), host side: each attack run against the real host process."""

from __future__ import annotations

import os
import stat

import pytest

from support.hostproc import HostProcess, host_env


@pytest.fixture
def host(tmp_path):
    proc = HostProcess(host_env(tmp_path / "home"))
    yield proc
    proc.kill()


def capture(site: str, url: str, turns: list[tuple[str, str, str]], conversation_id=None, title=None):
    return {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": site,
        "url": url,
        "conversation_id": conversation_id,
        "title": title,
        "captured_at": "2026-11-30T10:00:00Z",
        "complete": True,
        "turns": [
            {"key": key, "order": n, "role": role, "model": None, "markdown": text, "attachments": []}
            for n, (key, role, text) in enumerate(turns)
        ],
    }


# ------------------------------------------------------------------ identity: a URL is never an identity


@pytest.mark.parametrize(
    "site,url,keys",
    [
        ("chatgpt", "https://chatgpt.com/", ("t1", "t2")),  # logged-out and temporary chats share this URL
        ("claude", "https://claude.ai/new", ("index-0", "index-1")),  # Claude's DOM keys repeat across chats
    ],
)
def test_two_id_less_captures_are_two_entries_both_intact(host, site, url, keys):
    first = capture(site, url, [(keys[0], "user", "What is a monad?"), (keys[1], "assistant", "A monoid...")])
    second = capture(site, url, [(keys[0], "user", "Plan my trip"), (keys[1], "assistant", "Day one: Kyoto")])
    a = host.data("save", payload=first, kind="capture", source_url=url)
    b = host.data("save", payload=second, kind="capture", source_url=url)
    assert a["status"] == "created" and b["status"] == "created"
    assert a["conversation_id"] != b["conversation_id"]
    assert len(host.data("list")["items"]) == 2
    text_a = host.paged("get", conversation_id=a["conversation_id"], format="text")[0]
    text_b = host.paged("get", conversation_id=b["conversation_id"], format="text")[0]
    assert "monad" in text_a and "Kyoto" not in text_a
    assert "Kyoto" in text_b and "monad" not in text_b


def test_the_same_id_less_capture_saved_again_is_one_entry(host):
    turns = [("t1", "user", "hello there"), ("t2", "assistant", "hi")]
    first = host.data("save", payload=capture("chatgpt", "https://chatgpt.com/", turns), kind="capture")
    later = capture("chatgpt", "https://chatgpt.com/", turns)
    later["captured_at"] = "2026-11-30T11:00:00Z"
    again = host.data("save", payload=later, kind="capture")
    assert again["conversation_id"] == first["conversation_id"] and again["messages"] == 2
    elsewhere = host.data(
        "save", payload=capture("chatgpt", "https://chatgpt.com/?temporary-chat=true", turns), kind="capture"
    )
    assert elsewhere["conversation_id"] == first["conversation_id"]  # the URL plays no part in identity
    assert len(host.data("list")["items"]) == 1


# ------------------------------------------------------------------ data folder 0700


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_the_host_creates_its_data_folder_private(tmp_path):
    home = tmp_path / "new" / "mnemosyne"  # the log folder used to create this as a 0755 parent
    proc = HostProcess(host_env(home))
    try:
        assert proc.data("hello")["archive"]["state"] == "ready"
    finally:
        proc.kill()
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "archive.key").stat().st_mode) == 0o600
