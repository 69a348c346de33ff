"""The popup lists, searches and opens archived conversations; the view page renders a transcript full of
markup and script payloads as inert text, downloads and deletes."""

from __future__ import annotations

import copy
import json

import pytest
from closed_ui import ClosedUi
from ext_downloads import extension_downloads
from ext_fakesite import (
    FIXTURES,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    shell,
    strip_scripts,
)

from support.browser import settle

pytestmark = pytest.mark.browser

PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 1">',
    '<a href="javascript:window.__pwned = 1">click me</a>',
    "[markdown link](javascript:window.__pwned=1)",
    '"><svg onload=window.__pwned=1>',
    "$' and $& replacement patterns",
    '```html\n<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>\n```',
]
HOSTILE_TITLE = '<img src=x onerror="window.__pwned=1"> Hostile title'

INERT_CHECK = """() => ({
  pwned: window.__pwned,
  onAttributes: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => a.name)),
  jsLinks: [...document.querySelectorAll('[href], [src]')].filter(e => /^\\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('src') || '')).length,
  scripts: document.scripts.length,
  frames: document.querySelectorAll('iframe, object, embed').length,
  imgs: [...document.images].map(i => i.getAttribute('src')),
})"""


def hostile_chatgpt_api() -> dict:
    api = copy.deepcopy(chatgpt_api_fixture())
    api["title"] = HOSTILE_TITLE
    for node in api["mapping"].values():
        message = node.get("message")
        if message and message["author"]["role"] == "user" and message["content"]["content_type"] == "text":
            message["content"]["parts"] = ["\n\n".join(PAYLOADS)]
    return api


def save_via_export(browser, page, url):
    page.goto(url)
    assert ClosedUi(page).export()["state"] == "success"


def seed_archive(browser, sites):
    """Two conversations saved through the extension: a hostile ChatGPT one and a Claude one."""
    page = browser.new_page()
    api = hostile_chatgpt_api()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    save_via_export(browser, page, sites.chatgpt_conversation(api["conversation_id"], html, api))
    claude = claude_api_from_export(claude_export_conversation())
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_edges_claude_001.html").read_text(encoding="utf-8"))
    save_via_export(browser, page, sites.claude_conversation(shell(body, "Research - Claude"), claude))
    page.close()


def test_popup_lists_searches_and_opens(browser, sites, ext_url, mnemo_cli, screenshot):
    seed_archive(browser, sites)
    popup = browser.new_page()
    popup.set_viewport_size({"width": 400, "height": 560})
    popup.goto(ext_url("popup/popup.html"))
    items = popup.locator("[data-mnemosyne='conversation']")
    items.first.wait_for(timeout=15_000)
    assert items.count() == 2
    titles = popup.locator(".item-title").all_inner_texts()
    assert set(titles) == {HOSTILE_TITLE, "Code Execution with Tools"}
    sites_shown = [items.nth(i).get_attribute("data-site") for i in range(2)]
    assert sorted(sites_shown) == ["chatgpt", "claude"]
    assert "messages" in popup.locator(".item-meta").first.inner_text()
    screenshot(popup, "popup-list")

    popup.locator("[data-mnemosyne='search']").fill("fibonacci")
    # (no wait_for_function: the page's CSP forbids the eval it needs, which is the point of the CSP)
    popup.locator("#status", has_text="match").wait_for(timeout=15_000)
    assert items.count() == 1
    assert popup.locator(".item-title").inner_text() == "Code Execution with Tools"
    assert popup.locator(".item-snippet mark").count() >= 1
    assert "fibonacci" in popup.locator(".item-snippet mark").first.inner_text().lower()
    screenshot(popup, "popup-search")

    with browser.expect_page() as opened:
        items.first.click()
    view = opened.value
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    assert view.locator("[data-mnemosyne='title']").inner_text() == "Code Execution with Tools"
    roles = view.locator("[data-mnemosyne='transcript'] article").evaluate_all(
        "els => els.map(e => e.dataset.role)"
    )
    assert roles[0] == "user" and "assistant" in roles
    assert "fibonacci" in view.locator("[data-mnemosyne='transcript']").inner_text().lower()
    assert view.evaluate(INERT_CHECK)["onAttributes"] == []


def test_hostile_transcript_renders_as_inert_text(browser, sites, ext_url, mnemo_cli, screenshot):
    seed_archive(browser, sites)
    popup = browser.new_page()
    popup.goto(ext_url("popup/popup.html"))
    popup.locator("[data-mnemosyne='conversation']").first.wait_for(timeout=15_000)
    state = popup.evaluate(INERT_CHECK)
    assert state["pwned"] is None and state["onAttributes"] == [] and state["jsLinks"] == 0
    assert HOSTILE_TITLE in popup.locator(".item-title").all_inner_texts()

    hostile_id = next(
        item["id"] for item in json.loads(mnemo_cli("list", "--json").stdout) if item["site"] == "chatgpt"
    )
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={hostile_id}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    text = view.locator("[data-mnemosyne='transcript']").inner_text()
    for payload in (
        "<script>window.__pwned = 1</script>",
        'onerror="window.__pwned = 1"',
        "javascript:window.__pwned=1",
        "<svg onload=window.__pwned=1>",
        "$' and $& replacement patterns",
        "parent.__pwned=1",
    ):
        assert payload in text, payload
    assert view.locator("[data-mnemosyne='title']").inner_text() == HOSTILE_TITLE
    settle(view)  # every image has loaded or failed and its handlers would have run
    state = view.evaluate(INERT_CHECK)
    assert state["pwned"] is None
    assert state["onAttributes"] == []
    assert state["jsLinks"] == 0
    assert state["scripts"] == 1  # only view.js
    assert state["frames"] == 0
    assert all(src.startswith("../icons/") for src in state["imgs"])
    screenshot(view, "view-hostile-transcript")

    view.locator("[data-mnemosyne='download-markdown']").click()
    view.locator("#status.ok").filter(has_text="Downloaded").wait_for(timeout=15_000)
    assert ".md" in view.locator("#status").inner_text()
    [download] = extension_downloads(browser, ext_url)
    assert "Hostile title" in download["text"]

    view.on("dialog", lambda dialog: dialog.accept())
    view.locator("[data-mnemosyne='delete']").click()
    view.locator("#status.ok").wait_for(timeout=15_000)
    remaining = json.loads(mnemo_cli("list", "--json").stdout)
    assert [item["site"] for item in remaining] == ["claude"]
