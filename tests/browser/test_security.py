"""Message checks in the service worker and content-script scoping, in the real browser."""

from __future__ import annotations

import json

import pytest
from ext_fakesite import chatgpt_api_fixture, claude_api_from_export, claude_export_conversation

pytestmark = pytest.mark.browser

SEND = "(message) => chrome.runtime.sendMessage(message)"
CHATGPT_PAGE = (
    "<!doctype html><html><head><title>Forged - ChatGPT</title></head><body><header>"
    "<div id='conversation-header-actions'></div></header><main>"
    "<article data-testid='conversation-turn-1'><div data-message-author-role='user'>hello</div></article>"
    "</main></body></html>"
)
CAPTURE = {
    "format": "mnemosyne.capture",
    "version": 1,
    "site": "chatgpt",
    "url": "https://chatgpt.com/c/x",
    "conversation_id": "x",
    "title": "forged",
    "captured_at": "2026-01-01T00:00:00Z",
    "complete": True,
    "turns": [{"key": "1", "order": 0, "role": "user", "model": None, "markdown": "hi", "attachments": []}],
}


def test_extension_pages_cannot_save_and_unknown_types_are_refused(browser, ext_url, mnemo_cli):
    page = browser.new_page()
    page.goto(ext_url("options/options.html"))
    reply = page.evaluate(
        SEND, {"type": "save", "kind": "capture", "payload": CAPTURE, "source_url": "https://chatgpt.com/c/x"}
    )
    assert reply["ok"] is False and reply["error"]["code"] == "FORBIDDEN"
    assert page.evaluate(SEND, {"type": "toString"})["error"]["code"] == "UNKNOWN_MESSAGE"
    assert page.evaluate(SEND, {"type": "__proto__"})["error"]["code"] == "UNKNOWN_MESSAGE"
    assert page.evaluate(SEND, {"type": "fill-claim"})["error"]["code"] == "FORBIDDEN"
    assert mnemo_cli("list", "--json").stdout.strip() == "[]"


def extension_worlds_after_idle(page, url: str) -> list[dict]:
    """The extension's content-script worlds created in `page` by loading `url`. Content scripts run at
    document_idle, at the latest right after the load event; a round trip after load sees their worlds."""
    cdp = page.context.new_cdp_session(page)
    contexts: list[dict] = []
    cdp.on("Runtime.executionContextCreated", lambda event: contexts.append(event["context"]))
    cdp.send("Runtime.enable")
    page.goto(url, wait_until="load")
    page.evaluate(SETTLE_AFTER_LOAD)
    return [c for c in contexts if c.get("origin", "").startswith("chrome-extension://")]


# a task after the load event, then a frame: document_idle injection is done by then
SETTLE_AFTER_LOAD = (
    "() => new Promise((resolve) => setTimeout(() => requestAnimationFrame(() => resolve(true)), 0))"
)


def test_content_scripts_stay_off_other_sites(browser, sites):
    page_html = (
        "<!doctype html><html><body><main><article data-testid='conversation-turn-1'>"
        "<div data-message-author-role='user'>hello</div></article></main></body></html>"
    )
    sites.pages["https://example.com/c/123"] = page_html
    sites.pages["https://chatgpt.com/c/123"] = page_html
    # the control: the same page on chatgpt.com gets the content script's world, found the same way
    assert extension_worlds_after_idle(browser.new_page(), "https://chatgpt.com/c/123")
    page = browser.new_page()
    assert extension_worlds_after_idle(page, "https://example.com/c/123") == []
    assert page.locator("mnemosyne-ui").count() == 0


def content_script_world(page):
    """Evaluate in the extension's content-script world of `page` (CDP: its isolated execution context)."""
    cdp = page.context.new_cdp_session(page)
    contexts = []
    cdp.on("Runtime.executionContextCreated", lambda event: contexts.append(event["context"]))
    cdp.send("Runtime.enable")
    from closed_ui import ClosedUi

    ClosedUi(page).wait("[data-mnemosyne='export']")  # the content script has run
    isolated = [
        c
        for c in contexts
        if c.get("auxData", {}).get("type") == "isolated"
        and c.get("origin", "").startswith("chrome-extension://")
    ]
    assert isolated, "no content-script world in the page"

    def send(message: dict) -> dict:
        result = cdp.send(
            "Runtime.evaluate",
            {
                "expression": f"chrome.runtime.sendMessage({json.dumps(message)})",
                "contextId": isolated[-1]["id"],
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
        assert "exceptionDetails" not in result, result
        return result["result"]["value"]

    return send


def test_a_tab_can_save_only_what_its_own_site_sent(browser, sites, mnemo_cli):
    # a chatgpt.com renderer asks to save under the Claude reader, or a capture that says it is from claude.ai
    api = chatgpt_api_fixture()
    page = browser.new_page()
    page.goto(sites.chatgpt_conversation(api["conversation_id"], CHATGPT_PAGE, api))
    send = content_script_world(page)
    claude = claude_api_from_export(claude_export_conversation())
    chatgpt_url = f"https://chatgpt.com/c/{api['conversation_id']}"
    forged = [  # (message, the code it gets): another site's data is forbidden, an unknown kind is bad
        ({"type": "save", "kind": "claude_api", "payload": claude, "source_url": chatgpt_url}, "FORBIDDEN"),
        (
            {
                "type": "save",
                "kind": "capture",
                "payload": {**CAPTURE, "site": "claude"},
                "source_url": chatgpt_url,
            },
            "FORBIDDEN",
        ),
        (
            {
                "type": "save",
                "kind": "capture",
                "payload": {**CAPTURE, "url": "https://claude.ai/chat/x"},
                "source_url": chatgpt_url,
            },
            "FORBIDDEN",
        ),
        ({"type": "save", "kind": "auto", "payload": claude, "source_url": chatgpt_url}, "BAD_REQUEST"),
    ]
    for message, code in forged:
        reply = send(message)
        assert reply["ok"] is False and reply["error"]["code"] == code, (message["kind"], reply)
    assert mnemo_cli("list", "--json").stdout.strip() == "[]"
    # the same world saves what its own site sent
    reply = send({"type": "save", "kind": "capture", "payload": CAPTURE, "source_url": chatgpt_url})
    assert reply["ok"] is True, reply
    assert len(json.loads(mnemo_cli("list", "--json").stdout)) == 1
