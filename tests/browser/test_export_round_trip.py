"""An Export click that copies or downloads is one round trip to the host: the click's `save` asks for the format
it needs, the save's reply carries the conversation in it, and the worker copies or downloads that text. Counted in
the real host's log (a line per request it answers), in real Chromium with the real host and archive; the copied
or downloaded text is compared with what the host's `get` gives for the saved conversation."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from closed_ui import ClosedUi
from ext_downloads import extension_downloads
from ext_fakesite import chatgpt_api_fixture, open_chatgpt_conversation

from support.hostproc import HostProcess

pytestmark = pytest.mark.browser

SECRET = "sk-proj-Xb3kLm9QwErTyUiOpAsDfGhJkL1234567890"


def host_actions(env) -> list[str]:
    """The actions of the requests the host answered, in order (its log's `action=` lines)."""
    log = Path(env["MNEMOSYNE_HOME"]) / "logs" / "host.log"
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    return re.findall(r"action=(\S+) id=", text)


def set_settings(browser, **settings) -> None:
    """Through the service worker itself: an extension page could ask the host something while it loads."""
    browser.service_workers[0].evaluate("(values) => chrome.storage.sync.set(values)", settings)


def with_secret(api: dict) -> dict:
    api = copy.deepcopy(api)
    for node in api["mapping"].values():
        message = node.get("message")
        if message and message["author"]["role"] == "user" and message["content"]["content_type"] == "text":
            message["content"]["parts"] = [f"my key is {SECRET}, keep it safe"]
            break
    return api


def longer(api: dict, chars: int) -> dict:
    """The conversation with its longest text answer repeated to about `chars` characters."""
    api = copy.deepcopy(api)
    texts = [
        n["message"]["content"]
        for n in api["mapping"].values()
        if n.get("message")
        and n["message"]["author"]["role"] == "assistant"
        and n["message"]["content"]["content_type"] == "text"
    ]
    content = max(texts, key=lambda c: len(c["parts"][0]))
    answer = content["parts"][0]
    content["parts"] = ["\n\n".join([answer] * (chars // (len(answer) + 2) + 1))]
    return api


def get_text(env, conversation_id: str, fmt: str, redact: bool) -> tuple[str, int]:
    """What the host's `get` gives for the saved conversation, all pages joined, and how many pages."""
    host = HostProcess(env)
    try:
        return host.paged("get", conversation_id=conversation_id, format=fmt, redact=redact)
    finally:
        host.kill()


def read_clipboard(browser, ext_url) -> str:
    reader = browser.new_page()
    reader.goto(ext_url("options/options.html"))
    try:
        return reader.evaluate("navigator.clipboard.readText()")
    finally:
        reader.close()


def click_export(browser, sites, env, api) -> tuple[dict, list[str]]:
    """Export on the conversation's page: the final toast and the host requests the click made."""
    page = open_chatgpt_conversation(browser, sites, api)
    ClosedUi(page).wait("[data-mnemosyne='export']")
    before = len(host_actions(env))
    result = ClosedUi(page).export()
    assert result["state"] == "success", result["text"]
    return result, host_actions(env)[before:]


@pytest.mark.parametrize("redact", [False, True])
def test_export_that_copies_is_one_host_request(browser, sites, env, ext_url, redact):
    browser.grant_permissions(["clipboard-read", "clipboard-write"])
    set_settings(browser, copyMarkdownOnExport=True, redact=redact)
    result, requests = click_export(browser, sites, env, with_secret(chatgpt_api_fixture()))
    assert requests == ["save"]
    assert "Copied Markdown" in result["text"]
    copied = read_clipboard(browser, ext_url)
    expected, _ = get_text(env, result["id"], "markdown", redact)
    assert copied == expected and "crucible" in copied.lower()
    assert (SECRET in copied) is not redact


@pytest.mark.parametrize(("setting", "fmt"), [("markdown", "markdown"), ("json", "portable")])
def test_export_that_downloads_is_one_host_request(browser, sites, env, ext_url, setting, fmt):
    set_settings(browser, downloadOnExport=True, exportFormat=setting, redact=True)
    result, requests = click_export(browser, sites, env, with_secret(chatgpt_api_fixture()))
    assert requests == ["save"]
    assert "Downloaded" in result["text"]
    [item] = extension_downloads(browser, ext_url)
    assert item["state"] == "complete", item
    expected, _ = get_text(env, result["id"], fmt, True)
    assert item["text"] == expected and SECRET not in item["text"]


def test_a_download_over_one_reply_follows_with_get_pages(browser, sites, env, ext_url):
    """About 1.3 M characters of Markdown, over the 1 MiB a reply may hold: the save's reply carries the first
    page, and the worker asks `get` for the rest only; the file is `get`'s whole text."""
    set_settings(browser, downloadOnExport=True, exportFormat="markdown", redact=False)
    result, requests = click_export(browser, sites, env, longer(chatgpt_api_fixture(), 1_300_000))
    [item] = extension_downloads(browser, ext_url)
    expected, pages = get_text(env, result["id"], "markdown", False)
    assert pages >= 2 and len(expected) > 1_300_000
    assert requests == ["save"] + ["get"] * (pages - 1)
    assert item["text"] == expected
