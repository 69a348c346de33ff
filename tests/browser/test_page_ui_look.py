"""The injected UI on a chat page, in Chromium with the real host: the saved toast speaks plainly, offers Open
and Show in library and stays clear of the composer; the bar has icons and follows the site's light/dark theme;
the Continue menu works from the keyboard (arrows, Enter, Escape)."""

from __future__ import annotations

import pytest
from closed_ui import ClosedUi
from ext_fakesite import chatgpt_api_fixture
from test_export import chatgpt_page
from test_look import shoot

pytestmark = pytest.mark.browser

TOAST = "[data-mnemosyne='toast']"


def box_of(ui: ClosedUi, selector: str) -> dict:
    """The element's border box in the viewport, read through the DevTools protocol (closed shadow roots)."""
    quad = ui.cdp.send("DOM.getBoxModel", {"nodeId": ui._find(selector)})["model"]["border"]
    xs, ys = quad[0::2], quad[1::2]
    return {"left": min(xs), "right": max(xs), "top": min(ys), "bottom": max(ys)}


def style_of(ui: ClosedUi, selector: str, prop: str) -> str:
    remote = ui.cdp.send("DOM.resolveNode", {"nodeId": ui._find(selector)})["object"]
    value = ui.cdp.send(
        "Runtime.callFunctionOn",
        {
            "objectId": remote["objectId"],
            "functionDeclaration": f"function () {{ return getComputedStyle(this)[{prop!r}]; }}",
            "returnByValue": True,
        },
    )["result"]["value"]
    ui.cdp.send("Runtime.releaseObject", {"objectId": remote["objectId"]})
    return value


def open_conversation(browser, sites):
    api = chatgpt_api_fixture()
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(sites.chatgpt_conversation(api["conversation_id"], chatgpt_page(), api))
    ui = ClosedUi(page)
    ui.wait("[data-mnemosyne='export']")
    return page, ui


def test_saved_toast_speaks_plainly_offers_actions_and_clears_the_composer(browser, sites, ext_url):
    page, ui = open_conversation(browser, sites)
    first = ui.export()
    assert first["state"] == "success" and first["text"].startswith("Saved “"), first
    for jargon in ("read from the page", "site’s data", "site's data", "messages, "):
        assert jargon not in first["text"], first["text"]
    # clear of the composer and its send button
    toast, composer = box_of(ui, TOAST), page.locator("form:has(#prompt-textarea)").bounding_box()
    assert toast["bottom"] <= composer["y"] or toast["top"] >= composer["y"] + composer["height"], (
        toast,
        composer,
    )
    assert ui.get(f"{TOAST} [data-mnemosyne='toast-open']") and ui.get(
        f"{TOAST} [data-mnemosyne='toast-library']"
    )
    shoot(page, "chat-page-saved-toast-dark")

    # the same conversation again: said as already saved
    again = ui.export()
    assert again["text"].startswith("Already saved: “"), again["text"]

    with browser.expect_page(timeout=15_000) as opened:
        ui.click(f"{TOAST} [data-mnemosyne='toast-open']")
    view = opened.value
    assert view.url == ext_url(f"view/view.html?id={first['id']}")
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=30_000)

    ui.export()
    with browser.expect_page(timeout=15_000) as opened:
        ui.click(f"{TOAST} [data-mnemosyne='toast-library']")
    library = opened.value
    assert library.url == ext_url(f"library/library.html?id={first['id']}")
    library.wait_for_function(
        "(id) => document.activeElement?.dataset?.conversationId === id", arg=first["id"], timeout=30_000
    )


def test_the_bar_has_icons_and_follows_the_sites_theme(browser, sites):
    page, ui = open_conversation(browser, sites)
    assert ui.get("[data-mnemosyne='export'] svg") and ui.get("[data-mnemosyne='continue'] svg")
    host = "document.querySelector(\"mnemosyne-ui[data-mnemosyne-host='bar']\").getAttribute('data-theme')"
    # the saved page is ChatGPT in its dark theme (class "dark", color-scheme: dark on <html>)
    assert page.evaluate(host) == "dark"
    dark = style_of(ui, "[data-mnemosyne='export']", "backgroundColor")
    # the user switches ChatGPT to light: the bar follows
    page.evaluate(
        "document.documentElement.classList.replace('dark', 'light');"
        " document.documentElement.style.colorScheme = 'light'"
    )
    page.wait_for_function(f"{host} === 'light'")
    light = style_of(ui, "[data-mnemosyne='export']", "backgroundColor")
    assert light != dark, (light, dark)
    shoot(page, "chat-page-bar-light")


def test_the_continue_menu_works_from_the_keyboard(browser, sites):
    from mnemosyne.nativehost.actions.targets import run as host_targets

    # the menu offers every target but the page's own site (a ChatGPT conversation here)
    menu = [
        e
        for e in host_targets({}, None)["menu"]
        if not (e["fill_url"] or "").startswith("https://chatgpt.com")
    ]
    page, ui = open_conversation(browser, sites)
    ui.click("[data-mnemosyne='continue']")
    ui.wait("[data-mnemosyne='continue-menu']")
    page.keyboard.press("Escape")  # closes it
    for _ in range(50):
        if ui.get("[data-mnemosyne='continue-menu']") is None:
            break
        page.wait_for_timeout(100)
    assert ui.get("[data-mnemosyne='continue-menu']") is None

    ui.click("[data-mnemosyne='continue']")
    ui.wait("[data-mnemosyne='continue-menu']")
    shoot(page, "chat-page-continue-menu-dark")
    # the first entry has the focus: ↑ wraps to the last, ↓ ↓ ↑ ends on the second, Enter picks it
    for key in ("ArrowUp", "ArrowDown", "ArrowDown", "ArrowDown", "ArrowUp"):
        page.keyboard.press(key)
    with browser.expect_page(timeout=30_000) as opened:
        page.keyboard.press("Enter")
    window = opened.value
    window.locator("[data-mnemosyne='preview'][data-state='ready']").wait_for(timeout=30_000)
    assert window.title() == f"Continue in {menu[1]['label']}"
    labels = " ".join(entry["label"] for entry in menu)
    assert "num_ctx" not in labels and "llama3.1" not in labels


def test_reading_the_page_covers_the_thread_and_puts_its_scroll_back(browser, sites):
    """The DOM fallback scrolls a virtualised thread through every turn: a panel of ours covers the thread while
    it does (the reader does not watch it scroll), and the scroll is where the reader left it afterwards."""
    from test_sweep_virtualised import timeline_page

    url = sites.chatgpt_conversation(
        "6f1c0000-aaaa-4000-8000-00000000a001", timeline_page(), None, api_status=500
    )
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    page.wait_for_selector("html[data-virtualised='12']")
    scroller = "document.querySelector('[data-app-action-timeline-scroll]')"
    root = page.evaluate(
        f"(() => {{ const r = {scroller}.getBoundingClientRect(); return [r.top, r.bottom]; }})()"
    )
    ui = ClosedUi(page)
    ui.click("[data-mnemosyne='export']")
    covered = None
    while covered is None and not ui.get("[data-mnemosyne='toast'][data-state='success']"):
        if ui.get("[data-mnemosyne='sweep-cover']"):
            covered = (box_of(ui, "[data-mnemosyne='sweep-cover']"), page.evaluate(f"{scroller}.scrollTop"))
        else:
            page.wait_for_timeout(20)  # a poll while the sweep starts
    assert covered, "the sweep ran without the cover"
    cover, _ = covered
    shoot(page, "chat-page-reading-cover-dark")
    assert cover["top"] <= max(root[0], 0) + 1 and cover["bottom"] >= min(root[1], 800) - 1, (cover, root)
    done = ui.wait("[data-mnemosyne='toast'][data-state='success']", timeout=60)
    assert done["data"]["path"] == "dom"
    assert ui.get("[data-mnemosyne='sweep-cover']") is None
    assert page.evaluate(f"{scroller}.scrollTop") == 0  # back at the newest turn, where the reader was
