"""Continue in…: the menu, the preview (tokens, what was left out), and filling a served target composer
without sending; copy targets put the context on the clipboard."""

from __future__ import annotations

import json

import pytest
from ext_fakesite import (
    FIXTURES,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    shell,
    strip_scripts,
)

pytestmark = pytest.mark.browser

CHATGPT_COMPOSER_PAGE = (
    "<!doctype html><html><head><title>ChatGPT</title></head><body><main><form>"
    "<div id='prompt-textarea' class='ProseMirror' contenteditable='true'><p><br></p></div>"
    "<button data-testid='send-button' type='button'>Send</button></form></main></body></html>"
)
CLAUDE_COMPOSER_PAGE = (
    "<!doctype html><html><head><title>Claude</title></head><body><main><fieldset>"
    "<div class='ProseMirror' contenteditable='true' translate='no'><p><br></p></div>"
    "<button aria-label='Send' type='button'>Send</button></fieldset></main></body></html>"
)


def open_chatgpt_conversation(browser, sites):
    api = chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    page = browser.new_page()
    page.goto(sites.chatgpt_conversation(api["conversation_id"], html, api))
    return page


def choose(page, target: str):
    page.locator("[data-mnemosyne='continue']").click(timeout=15_000)
    menu = page.locator("[data-mnemosyne='continue-menu']")
    menu.wait_for(timeout=10_000)
    page.locator(f"[data-mnemosyne='continue-target'][data-target='{target}']").click()
    preview = page.locator("[data-mnemosyne='preview']")
    preview.wait_for(timeout=30_000)
    return preview


def test_continue_in_claude_fills_composer_without_sending(browser, sites, screenshot):
    sites.pages["https://claude.ai/new"] = CLAUDE_COMPOSER_PAGE
    page = open_chatgpt_conversation(browser, sites)
    page.locator("[data-mnemosyne='continue']").click(timeout=15_000)
    menu = page.locator("[data-mnemosyne='continue-menu']")
    menu.wait_for()
    entries = menu.locator("[data-mnemosyne='continue-target']")
    # the menu is the host's `targets` menu, rendered as sent: the extension keeps no copy of target data
    from mnemosyne.nativehost.actions.targets import run as host_targets

    host_menu = host_targets({}, None)["menu"]
    assert entries.all_inner_texts() == [entry["label"] for entry in host_menu]
    assert [entries.nth(i).get_attribute("data-target") for i in range(entries.count())] == [
        entry["target"] for entry in host_menu
    ]
    screenshot(page, "continue-menu")
    page.locator("[data-mnemosyne='continue-target'][data-target='claude']").click()
    preview = page.locator("[data-mnemosyne='preview']")
    preview.wait_for(timeout=30_000)
    tokens = int(page.locator("[data-mnemosyne='preview-tokens']").get_attribute("data-tokens"))
    assert 0 < tokens <= 32000
    assert "Kept" in preview.inner_text() and "left out" in preview.inner_text()
    screenshot(page, "continue-preview")
    with browser.expect_page() as opened:
        page.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    composer = target.locator(".ProseMirror[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert target.url == "https://claude.ai/new"
    filled = composer.inner_text()
    assert "Tide anneal crucible" in filled or "crucible" in filled.lower()
    assert target.locator("[data-mnemosyne='toast'][data-state='success']").count() == 1
    screenshot(target, "continue-filled-claude")


def test_continue_in_chatgpt_from_claude(browser, sites):
    sites.pages["https://chatgpt.com/"] = CHATGPT_COMPOSER_PAGE
    api = claude_api_from_export(claude_export_conversation())
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_edges_claude_001.html").read_text(encoding="utf-8"))
    page = browser.new_page()
    page.goto(sites.claude_conversation(shell(body, "Research - Claude"), api))
    preview = choose(page, "chatgpt")
    assert "ChatGPT" in preview.inner_text()
    with browser.expect_page() as opened:
        page.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    composer = target.locator("#prompt-textarea[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert "fibonacci" in composer.inner_text().lower()
    # filled, not sent: the composer still holds the text and nothing was submitted
    assert target.url == "https://chatgpt.com/"


def test_copy_for_coding_agent_puts_context_on_clipboard(browser, sites):
    browser.grant_permissions(["clipboard-read", "clipboard-write"], origin="https://chatgpt.com")
    page = open_chatgpt_conversation(browser, sites)
    preview = choose(page, "agents-md")
    assert "Copy" in page.locator("[data-mnemosyne='preview-confirm']").inner_text()
    assert preview.get_attribute("data-target") == "agents-md"
    page.locator("[data-mnemosyne='preview-confirm']").click()
    page.locator("[data-mnemosyne='toast'][data-state='success']").wait_for(timeout=10_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert len(copied) > 200 and "crucible" in copied.lower()


def test_continue_from_the_view_page_fills_by_handle_and_a_handle_is_the_builders_only(
    browser, sites, ext_url, mnemo_cli
):
    sites.pages["https://claude.ai/new"] = CLAUDE_COMPOSER_PAGE
    page = open_chatgpt_conversation(browser, sites)
    page.locator("[data-mnemosyne='export']").click(timeout=15_000)
    page.locator("[data-mnemosyne='toast'][data-state='success']").wait_for(timeout=30_000)
    conversation_id = json.loads(mnemo_cli("list", "--json").stdout)[0]["id"]

    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    view.locator("#target option[value='claude']").wait_for(state="attached", timeout=15_000)
    view.select_option("#target", "claude")
    view.locator("[data-mnemosyne='continue']").click()
    view.locator("[data-mnemosyne='preview']:not([hidden]) [data-mnemosyne='preview-tokens']").wait_for(
        timeout=30_000
    )
    # the page holds a handle and a preview, never the whole text; the worker keeps the text
    context = view.evaluate(
        "(id) => chrome.runtime.sendMessage({type: 'context', conversation_id: id, target: 'claude'})",
        conversation_id,
    )["data"]
    assert len(context["handle"]) == 32 and "text" not in context
    assert context["preview"] and context["total_chars"] >= len(context["preview"])
    # another tab cannot use a page's handle... and a tab's handle is refused to other tabs
    other = open_chatgpt_conversation(browser, sites)
    other.locator("[data-mnemosyne='export']").wait_for(timeout=15_000)
    from test_security import content_script_world

    send = content_script_world(other)
    refused = send({"type": "fill-open", "handle": context["handle"]})
    assert refused["ok"] is False and refused["error"]["code"] == "UNKNOWN_HANDLE"
    refused = send({"type": "context-text", "handle": context["handle"]})
    assert refused["ok"] is False and refused["error"]["code"] == "UNKNOWN_HANDLE"

    with browser.expect_page() as opened:
        view.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    composer = target.locator(".ProseMirror[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert "crucible" in composer.inner_text().lower()
