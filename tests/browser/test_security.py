"""Message checks in the service worker and content-script scoping, in the real browser."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

SEND = "(message) => chrome.runtime.sendMessage(message)"


def test_extension_pages_cannot_save_and_unknown_types_are_refused(browser, ext_url, mnemo_cli):
    page = browser.new_page()
    page.goto(ext_url("options/options.html"))
    capture = {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": "chatgpt",
        "url": "https://chatgpt.com/c/x",
        "conversation_id": "x",
        "title": "forged",
        "captured_at": "2026-01-01T00:00:00Z",
        "complete": True,
        "turns": [
            {"key": "1", "order": 0, "role": "user", "model": None, "markdown": "hi", "attachments": []}
        ],
    }
    reply = page.evaluate(
        SEND, {"type": "save", "kind": "capture", "payload": capture, "source_url": "https://chatgpt.com/c/x"}
    )
    assert reply["ok"] is False and reply["error"]["code"] == "FORBIDDEN"
    assert page.evaluate(SEND, {"type": "toString"})["error"]["code"] == "UNKNOWN_MESSAGE"
    assert page.evaluate(SEND, {"type": "__proto__"})["error"]["code"] == "UNKNOWN_MESSAGE"
    assert page.evaluate(SEND, {"type": "fill-claim"})["error"]["code"] == "FORBIDDEN"
    assert mnemo_cli("list", "--json").stdout.strip() == "[]"


def test_content_scripts_stay_off_other_sites(browser, sites):
    conversation_page = (
        "<!doctype html><html><body><main><article data-testid='conversation-turn-1'>"
        "<div data-message-author-role='user'>hello</div></article></main></body></html>"
    )
    sites.pages["https://example.com/c/123"] = conversation_page
    sites.pages["https://chatgpt.com/c/123"] = conversation_page
    page = browser.new_page()
    page.goto("https://example.com/c/123")
    page.wait_for_load_state("load")
    # the signal: a page on a site we read, loaded after this one, has its content script's UI by now
    ours = browser.new_page()
    ours.goto("https://chatgpt.com/c/123")
    ours.locator("mnemosyne-ui").wait_for(state="attached", timeout=15_000)
    assert page.locator("mnemosyne-ui").count() == 0
