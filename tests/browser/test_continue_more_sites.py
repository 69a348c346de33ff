"""Continue in… the newer targets: from a served Gemini conversation, each target's composer is filled on its
captured page (DeepSeek, Perplexity, Mistral Le Chat, Qwen; Grok's from the selectors other projects record, no
grok.com page being public), never sent; from a DeepSeek conversation, Gemini's. The menu offers every target
but the site the page is on."""

from __future__ import annotations

import pytest
from closed_ui import ClosedUi
from gemini_deepseek_sites import MORE, page_html, serve_deepseek, serve_gemini
from test_continue import open_menu, pick

from mnemosyne.nativehost.actions.targets import run as host_targets

pytestmark = pytest.mark.browser

# target -> (the page it fills, what that page is)
GROK_PAGE = (
    "<!doctype html><html><head><title>Grok</title></head><body><main><form>"
    "<div class='tiptap ProseMirror' contenteditable='true' role='textbox' aria-label='Ask Grok anything'><p><br></p></div>"
    "<button type='submit' aria-label='Submit'>Send</button></form></main></body></html>"
)


def target_pages() -> dict[str, str]:
    return {
        "https://chat.deepseek.com/": page_html(MORE / "deepseek" / "covai__deepseek-chat.html", "DeepSeek"),
        "https://grok.com/": GROK_PAGE,
        "https://www.perplexity.ai/": page_html(
            MORE / "perplexity" / "sho7650__perplexity__deep-research.html", "Perplexity"
        ),
        "https://chat.mistral.ai/chat": page_html(MORE / "mistral" / "covai__mistral-chat.html", "Le Chat"),
        "https://chat.qwen.ai/": page_html(MORE / "qwen" / "covai__qwen-chat.html", "Qwen Chat"),
        "https://gemini.google.com/app": page_html(MORE / "gemini" / "covai__gemini-chat.html", "Gemini"),
    }


def fill(browser, page, target: str):
    """Pick `target` in the page's Continue menu, confirm in the preview; the filled composer and its text."""
    open_menu(page)
    window = pick(browser, page, target)
    with browser.expect_page(timeout=30_000) as opened:
        window.locator("[data-mnemosyne='preview-confirm']").click()
    tab = opened.value
    composer = tab.locator("[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    text = (
        composer.input_value() if composer.evaluate("e => e.tagName") == "TEXTAREA" else composer.inner_text()
    )
    return tab, text


def test_continue_from_gemini_fills_each_new_targets_composer(browser, sites):
    sites.pages.update(target_pages())
    page = browser.new_page()
    page.goto(serve_gemini(sites))
    ui = open_menu(page)
    offered = {entry["target"] for entry in host_targets({}, None)["menu"]}
    shown = {
        target for target in offered if ui.get(f"[data-mnemosyne='continue-target'][data-target='{target}']")
    }
    assert shown == offered - {"gemini"}, "every target but the page's own site"
    page.keyboard.press("Escape")
    for target, url in [
        ("deepseek", "https://chat.deepseek.com/"),
        ("grok", "https://grok.com/"),
        ("perplexity", "https://www.perplexity.ai/"),
        ("mistral", "https://chat.mistral.ai/chat"),
        ("qwen", "https://chat.qwen.ai/"),
    ]:
        tab, text = fill(browser, page, target)
        assert "generate lift" in text, target
        assert tab.url == url, "filled, never sent: the page did not move"
        assert ClosedUi(tab).wait("[data-mnemosyne='toast'][data-state='success']")
        tab.close()


def test_continue_from_deepseek_fills_gemini(browser, sites):
    sites.pages.update(target_pages())
    page = browser.new_page()
    page.goto(serve_deepseek(sites))
    ui = open_menu(page)
    assert not ui.get("[data-mnemosyne='continue-target'][data-target='deepseek']")
    page.keyboard.press("Escape")
    tab, text = fill(browser, page, "gemini")
    assert "hello6" in text and tab.url == "https://gemini.google.com/app"
