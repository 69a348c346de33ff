"""Security, host side: each attack run against the real host process."""

from __future__ import annotations

import os
import re
import stat

import pytest

from support.hostproc import HostProcess, host_env


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


# ------------------------------------------------------------------ caller check


@pytest.mark.parametrize(
    "argv",
    [
        [
            "/usr/lib/mozilla/native-messaging-hosts/org.mnemosyne.host.json",
            "{d10d0bf8-f5b5-c8b4-a8b2-2b9879e08c5d}",
        ],
        ["/home/u/.mozilla/native-messaging-hosts/org.mnemosyne.host.json", "other@example.org"],
        ["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", "--parent-window=0"],
        ["moz-extension://0b3f7a7e-1111-4222-8333-944444444444/"],
    ],
    ids=["firefox-guid", "firefox-email", "chromium-windows", "moz-origin"],
)
def test_foreign_callers_are_refused_whatever_their_id_form(tmp_path, argv):
    proc = HostProcess(host_env(tmp_path / "home"), args=argv)
    try:
        reply = proc.call("list")
        assert reply["ok"] is False and reply["error"]["code"] == "FORBIDDEN_CALLER"
    finally:
        proc.kill()
    assert not (tmp_path / "home" / "archive.db").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["/home/u/.mozilla/native-messaging-hosts/org.mnemosyne.host.json", "mnemosyne@mnemosyne.org"],
        ["chrome-extension://daahbnppmeeecgicdbddgnfjiigeoibb/"],
        ["chrome-extension://daahbnppmeeecgicdbddgnfjiigeoibb/", "--parent-window=0"],
        [],
    ],
    ids=["firefox-ours", "chromium-ours", "chromium-ours-windows", "cli"],
)
def test_our_own_callers_are_served(tmp_path, argv):
    proc = HostProcess(host_env(tmp_path / "home"), args=argv)
    try:
        assert proc.data("list")["items"] == []
    finally:
        proc.kill()


# ------------------------------------------------------------------ log-line forging

LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING|ERROR|DEBUG|CRITICAL) ")


def test_control_characters_in_logged_values_cannot_forge_log_lines(tmp_path):
    home = tmp_path / "home"
    forged = "2026-12-01 10:00:00,000 INFO forged"
    proc = HostProcess(host_env(home), args=[f"x\n{forged}", "\r\x1b[2K\u2028"])
    try:  # the caller arguments are logged at start-up
        assert proc.call("hello")["error"]["code"] == "FORBIDDEN_CALLER"
    finally:
        proc.kill()
    proc = HostProcess(host_env(home))
    try:
        reply = proc.call(f"x\n{forged}")  # an unknown action is logged by name
        assert reply["error"]["code"] == "UNKNOWN_ACTION"
        reply = proc.call(f"x\r{forged}")
        assert reply["error"]["code"] == "UNKNOWN_ACTION"
        code, _, _ = proc.close()
        assert code == 0
    finally:
        proc.kill()
    lines = (home / "logs" / "host.log").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 5
    for line in lines:
        assert LOG_LINE.match(line) or line.startswith("  | "), line
        assert "forged" not in line or "\\n" in line or "\\r" in line, line
    assert not any(line.startswith(forged) for line in lines)
    assert not any(ch in "".join(lines) for ch in "\r\x1b\u2028")


# ------------------------------------------------------------------ no local paths in page errors


def test_error_replies_carry_no_local_paths(tmp_path):
    home = tmp_path / "alice-home" / "mnemosyne"
    first = HostProcess(host_env(home))
    try:
        first.data("save", payload=capture("chatgpt", "https://chatgpt.com/", [("t1", "user", "hi")]))
    finally:
        first.kill()
    (
        home / "archive.key"
    ).unlink()  # the archive is there, its key is not: ARCHIVE_KEY_MISSING names the file
    proc = HostProcess(host_env(home))
    try:
        archive = proc.data("hello")["archive"]
        reply = proc.call("list")
        code, _, _ = proc.close()
    finally:
        proc.kill()
    assert archive["code"] == reply["error"]["code"] == "ARCHIVE_KEY_MISSING"
    for message in (archive["message"], reply["error"]["message"]):
        assert "alice-home" not in message and str(tmp_path) not in message, message
        assert "<local path>" in message
    log = (home / "logs" / "host.log").read_text(encoding="utf-8")
    assert str(home) in log  # the detail is kept for the user, in the log


@pytest.mark.parametrize(
    "message,kept",
    [
        ("the key file /home/alice/.config/mnemosyne/archive.key is a symbolic link", "is a symbolic link"),
        ("cannot read C:\\Users\\alice\\AppData\\Local\\mnemosyne\\archive.db: denied", ": denied"),
        ("cannot read \\\\fileserver\\alice\\archive.key now", " now"),
        ('open "/Users/alice/Library/Application Support/x": gone', '": gone'),
    ],
)
def test_paths_are_replaced_in_messages_and_the_rest_kept(message, kept):
    from mnemosyne.nativehost.pathfree import without_paths

    clean = without_paths(message)
    assert "alice" not in clean and "<local path>" in clean and kept in clean


@pytest.mark.parametrize(
    "message",
    ["see https://chatgpt.com/c/abc-def for it", "either and/or 1/2 of it", "caller moz-extension://x/"],
)
def test_urls_and_ordinary_slashes_are_not_paths(message):
    from mnemosyne.nativehost.pathfree import without_paths

    assert without_paths(message) == message


# ------------------------------------------------------------------ redaction on every path out of the archive

TITLE_SECRET = "ghp_" + "Zq8wN3vR5tY7uI9oP1aS2dF4gH6jK8lM0nB2"
BODY_SECRETS = {
    "bearer_token": "Authorization: Bearer k7Hq2mX9vT4pL8sN3wR6yB1cF5gJ0dZe",
    "password_assignment": "DB_PASSWORD=Tr0ub4dor-and-3",
    "card_number": "card 4539 1488 0343 6467 please",
    "us_ssn": "SSN 219-09-9999 on the form",
    "huggingface_token": "token hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
}
SECRET_VALUES = [
    TITLE_SECRET,
    "k7Hq2mX9vT4pL8sN3wR6yB1cF5gJ0dZe",
    "Tr0ub4dor-and-3",
    "4539 1488 0343 6467",
    "219-09-9999",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
]


@pytest.fixture
def secret_conversation(host):
    turns = [("t1", "user", "\n".join(BODY_SECRETS.values())), ("t2", "assistant", "Rotate them all now.")]
    payload = capture(
        "chatgpt", "https://chatgpt.com/c/s1", turns, conversation_id="s1", title=f"keys {TITLE_SECRET}"
    )
    return host.data("save", payload=payload, kind="capture")["conversation_id"]


@pytest.mark.parametrize("fmt", ["markdown", "text", "html", "portable", "openai", "anthropic", "ollama"])
def test_get_with_redact_leaves_no_secret_in_any_format_or_file_name(host, secret_conversation, fmt):
    text, _ = host.paged("get", conversation_id=secret_conversation, format=fmt, redact=True)
    first = host.data("get", conversation_id=secret_conversation, format=fmt, redact=True)
    for value in SECRET_VALUES:
        assert value not in text and value not in first["filename"], (fmt, value)
    if fmt in ("markdown", "text", "portable"):
        assert "[REDACTED:github_token]" in text  # the title is redacted too
    assert first["redactions"]["github_token"] == 1
    assert set(BODY_SECRETS) <= set(first["redactions"])
    plain, _ = host.paged("get", conversation_id=secret_conversation, format=fmt)
    assert "Tr0ub4dor-and-3" in plain  # the archive keeps the original; only what leaves is redacted


def test_context_with_redact_redacts_the_title_in_its_header(host, secret_conversation):
    text, _ = host.paged("context", conversation_id=secret_conversation, target="chatgpt", redact=True)
    for value in SECRET_VALUES:
        assert value not in text, value
    report = host.data("context", conversation_id=secret_conversation, target="chatgpt", redact=True)[
        "report"
    ]
    assert report["redactions"]["github_token"] == 1 and report["redactions"]["us_ssn"] == 1
