"""Every copy is the extension's: Export's copy-on-export and a failed fill's
fallback copy are written by the worker's own clipboard surface (Chromium: an offscreen document), never by a
textarea and execCommand("copy") in the web page, where page script sees the copy event and the selection.

The conversation page is served with `Permissions-Policy: clipboard-write=()`, as a hostile page may be: it
refuses the async Clipboard API to the page's document (content scripts included), which is what sent the old
code to its in-page fallback. The page's main world records every copy event and every selection it can see."""

from __future__ import annotations

import pytest
from closed_ui import ClosedUi
from ext_fakesite import FIXTURES, chatgpt_api_fixture, strip_scripts

pytestmark = pytest.mark.browser

WATCH_PAGE = """() => {
  window.__seen = { copies: 0, selections: [] };
  document.addEventListener("copy", () => { window.__seen.copies += 1; }, true);
  document.addEventListener("selectionchange", () => {
    const text = String(document.getSelection());
    if (text) window.__seen.selections.push(text.slice(0, 200));
  }, true);
}"""


def open_hostile_conversation(browser, sites):
    """The fixture conversation on the fake chatgpt.com, its document refusing the async Clipboard API."""
    api = chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    url = sites.chatgpt_conversation(api["conversation_id"], html, api)
    page = browser.new_page()
    page.route(
        url,
        lambda route: route.fulfill(
            status=200,
            content_type="text/html; charset=utf-8",
            headers={"Permissions-Policy": "clipboard-write=()"},
            body=html,
        ),
    )
    page.goto(url)
    page.evaluate(WATCH_PAGE)
    return page


def read_clipboard(browser, ext_url) -> str:
    """The clipboard as an extension page reads it (the test's own reader, granted clipboard-read)."""
    reader = browser.new_page()
    reader.goto(ext_url("options/options.html"))
    try:
        return reader.evaluate("navigator.clipboard.readText()")
    finally:
        reader.close()


def test_copy_on_export_is_the_extensions_and_the_page_sees_nothing(browser, sites, ext_url):
    browser.grant_permissions(["clipboard-read", "clipboard-write"])
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    options.evaluate("() => chrome.storage.sync.set({copyMarkdownOnExport: true, redact: false})")
    options.evaluate("navigator.clipboard.writeText('before')")
    options.close()
    page = open_hostile_conversation(browser, sites)
    result = ClosedUi(page).export()
    assert result["state"] == "success", result["text"]
    assert "Copied Markdown" in result["text"]
    copied = read_clipboard(browser, ext_url)
    assert "# Tide anneal crucible explanation" in copied or "Tide anneal crucible" in copied
    assert "crucible" in copied.lower() and len(copied) > 500
    seen = page.evaluate("window.__seen")
    assert seen["copies"] == 0, seen  # no copy event in the page: the copy happened elsewhere
    assert not any("crucible" in text.lower() for text in seen["selections"]), seen


def test_a_failed_fill_is_copied_by_the_extension_not_in_the_target_page(browser, sites, ext_url):
    """claude.ai/new without a composer: the fill fails, the worker copies the context, the page saw no copy."""
    browser.grant_permissions(["clipboard-read", "clipboard-write"])
    browser.route(  # registered last, so it answers first; refusing the async Clipboard API like the source page
        "https://claude.ai/new",
        lambda route: route.fulfill(
            status=200,
            content_type="text/html; charset=utf-8",
            headers={"Permissions-Policy": "clipboard-write=()"},
            body="<!doctype html><html><body><main>no composer here</main></body></html>",
        ),
    )
    page = open_hostile_conversation(browser, sites)
    from test_continue import choose

    window = choose(browser, page, "claude")
    with browser.expect_page() as opened:
        window.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    target.wait_for_url("https://claude.ai/new", wait_until="domcontentloaded")
    target.evaluate(WATCH_PAGE)
    toast = ClosedUi(target).wait("[data-mnemosyne='toast'][data-state='success']", timeout=40)
    assert "clipboard" in toast["text"], toast
    copied = read_clipboard(browser, ext_url)
    assert "crucible" in copied.lower() and "TRANSCRIPT" in copied
    seen = target.evaluate("window.__seen")
    assert seen["copies"] == 0, seen
