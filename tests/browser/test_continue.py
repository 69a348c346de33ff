"""Continue in…: the menu (in the page's closed shadow root, pressed with the real mouse), the preview (tokens,
what was left out) in an extension window, and filling a served target composer without sending; copy
targets put the context on the clipboard."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from closed_ui import ClosedUi
from ext_fakesite import (
    FIXTURES,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    open_chatgpt_conversation,
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


def open_menu(page) -> ClosedUi:
    """Open the Continue menu (with the real mouse); the page's closed UI."""
    ui = ClosedUi(page)
    ui.click("[data-mnemosyne='continue']")
    ui.wait("[data-mnemosyne='continue-menu']")
    return ui


def pick(browser, page, target: str):
    """Pick `target` in the open Continue menu; the preview window the extension opens, once it shows the tokens."""
    with browser.expect_page(timeout=30_000) as opened:
        ClosedUi(page).click(f"[data-mnemosyne='continue-target'][data-target='{target}']")
    window = opened.value
    window.locator("[data-mnemosyne='preview']:not([hidden]) [data-mnemosyne='preview-tokens']").wait_for(
        timeout=30_000
    )
    return window


def choose(browser, page, target: str):
    """Open the Continue menu, pick `target`, and return the preview window the extension opens."""
    open_menu(page)
    return pick(browser, page, target)


def test_continue_in_claude_fills_composer_without_sending(browser, sites, ext_url, screenshot):
    sites.pages["https://claude.ai/new"] = CLAUDE_COMPOSER_PAGE
    page = open_chatgpt_conversation(browser, sites)
    ui = ClosedUi(page)
    ui.click("[data-mnemosyne='continue']")
    ui.wait("[data-mnemosyne='continue-menu']")
    # the menu is the host's `targets` menu, rendered as sent: the extension keeps no copy of target data
    from mnemosyne.nativehost.actions.targets import run as host_targets

    host_menu = host_targets({}, None)["menu"]
    for entry in host_menu:
        shown = ui.get(f"[data-mnemosyne='continue-target'][data-target='{entry['target']}']")
        if entry["target"] == "chatgpt":  # the page's own site is not offered
            assert shown is None
            continue
        assert shown and shown["text"] == entry["label"], entry
    screenshot(page, "continue-menu")
    with browser.expect_page(timeout=30_000) as opened:
        ui.click("[data-mnemosyne='continue-target'][data-target='claude']")
    window = opened.value
    assert window.url.startswith(ext_url("preview/preview.html?handle="))
    preview = window.locator("[data-mnemosyne='preview']:not([hidden])")
    preview.locator("[data-mnemosyne='preview-tokens']").wait_for(timeout=30_000)
    tokens = int(window.locator("[data-mnemosyne='preview-tokens']").get_attribute("data-tokens"))
    assert 0 < tokens <= 32000
    assert "Kept" in preview.inner_text() and "left out" in preview.inner_text()
    # the page got a short status, in its toast
    toast = ui.wait("[data-mnemosyne='toast'][data-state='success']")
    assert "Mnemosyne window" in toast["text"] and toast["data"]["target"] == "claude"
    screenshot(window, "continue-preview")
    with browser.expect_page() as filled:
        window.locator("[data-mnemosyne='preview-confirm']").click()
    target = filled.value
    composer = target.locator(".ProseMirror[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert target.url == "https://claude.ai/new"
    text = composer.inner_text()
    assert "Tide anneal crucible" in text
    assert ClosedUi(target).wait("[data-mnemosyne='toast'][data-state='success']")
    screenshot(target, "continue-filled-claude")


def test_continue_in_chatgpt_from_claude(browser, sites):
    sites.pages["https://chatgpt.com/"] = CHATGPT_COMPOSER_PAGE
    api = claude_api_from_export(claude_export_conversation())
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_edges_claude_001.html").read_text(encoding="utf-8"))
    page = browser.new_page()
    page.goto(sites.claude_conversation(shell(body, "Research - Claude"), api))
    window = choose(browser, page, "chatgpt")
    assert "ChatGPT" in window.locator("#title").inner_text()
    with browser.expect_page() as opened:
        window.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    composer = target.locator("#prompt-textarea[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert "fibonacci" in composer.inner_text().lower()
    # filled, not sent: the composer still holds the text and nothing was submitted
    assert target.url == "https://chatgpt.com/"


def test_copy_for_coding_agent_puts_context_on_clipboard(browser, sites):
    browser.grant_permissions(["clipboard-read", "clipboard-write"])
    page = open_chatgpt_conversation(browser, sites)
    window = choose(browser, page, "agents-md")
    assert "Copy" in window.locator("[data-mnemosyne='preview-confirm']").inner_text()
    assert window.locator("[data-mnemosyne='preview']").get_attribute("data-target") == "agents-md"
    window.locator("[data-mnemosyne='preview-confirm']").click()
    window.locator("#status.ok").wait_for(timeout=10_000)
    copied = window.evaluate("navigator.clipboard.readText()")
    assert len(copied) > 200 and "crucible" in copied.lower()


def test_continue_from_the_view_page_fills_by_handle_and_no_tab_can_use_a_handle(
    browser, sites, ext_url, mnemo_cli
):
    sites.pages["https://claude.ai/new"] = CLAUDE_COMPOSER_PAGE
    page = open_chatgpt_conversation(browser, sites)
    assert ClosedUi(page).export()["state"] == "success"
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
    # a tab (even our own content script there) cannot read, preview or fill a kept context
    from test_security import content_script_world

    send = content_script_world(page)
    for kind in ("fill-open", "context-text", "context-preview"):
        refused = send({"type": kind, "handle": context["handle"]})
        assert refused["ok"] is False and refused["error"]["code"] == "FORBIDDEN", (kind, refused)

    with browser.expect_page() as opened:
        view.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    composer = target.locator(".ProseMirror[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert "crucible" in composer.inner_text().lower()


def test_focus_in_the_preview_rebuilds_the_context_and_the_fill_uses_it(browser, sites, ext_url):
    """At a 300-token budget the real conversation's "Neap tide" line is left out; a focus typed in
    the preview (Enter) rebuilds the context so it is kept, the counts follow, and the fill carries it."""
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    options.evaluate("() => chrome.storage.sync.set({budget: 300})")
    options.close()
    sites.pages["https://claude.ai/new"] = CLAUDE_COMPOSER_PAGE
    page = open_chatgpt_conversation(browser, sites)
    window = choose(browser, page, "claude")
    preview = window.locator("[data-mnemosyne='preview'][data-state='ready']")
    assert preview.get_attribute("data-focus") == ""
    assert "Neap tide" not in preview.inner_text()
    tokens = window.locator("[data-mnemosyne='preview-tokens']")
    assert "300" in tokens.inner_text()  # the budget from the settings

    window.locator("[data-mnemosyne='preview-focus']").fill("neap tide quarter")
    window.locator("[data-mnemosyne='preview-focus']").press("Enter")
    rebuilt = window.locator("[data-mnemosyne='preview'][data-state='ready'][data-focus='neap tide quarter']")
    rebuilt.wait_for(timeout=30_000)
    assert "Neap tide" in rebuilt.inner_text()
    assert 0 < int(tokens.get_attribute("data-tokens")) <= 300  # the rebuilt report's count, within budget

    with browser.expect_page() as opened:
        window.locator("[data-mnemosyne='preview-confirm']").click()
    composer = opened.value.locator(".ProseMirror[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    assert "Neap tide" in composer.inner_text()


def test_an_emptied_focus_rebuilds_without_it(browser, sites, ext_url):
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    options.evaluate("() => chrome.storage.sync.set({budget: 300})")
    options.close()
    page = open_chatgpt_conversation(browser, sites)
    window = choose(browser, page, "claude")
    field = window.locator("[data-mnemosyne='preview-focus']")
    field.fill("neap tide quarter")
    window.locator("[data-mnemosyne='preview-rebuild']").click()
    focused = window.locator("[data-mnemosyne='preview'][data-state='ready'][data-focus='neap tide quarter']")
    focused.wait_for(timeout=30_000)
    assert "Neap tide" in focused.inner_text()
    field.fill("   ")
    window.locator("[data-mnemosyne='preview-rebuild']").click()
    plain = window.locator("[data-mnemosyne='preview'][data-state='ready'][data-focus='']")
    plain.wait_for(timeout=30_000)
    assert "Neap tide" not in plain.inner_text()


def host_saves(env) -> int:
    """The `save` requests the host answered (its log has a line per request: action, sizes, timing)."""
    log = Path(env["MNEMOSYNE_HOME"]) / "logs" / "host.log"
    return log.read_text(encoding="utf-8").count("action=save ") if log.exists() else 0


def wait_saves(env, count: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while host_saves(env) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    assert host_saves(env) == count


def test_opening_the_menu_saves_and_the_pick_builds_on_that_save(browser, sites, env, mnemo_cli):
    """The save a pick needs starts when the menu opens (the host splits the conversation while the user
    chooses); the pick reads and saves nothing more, and its context is of the saved conversation."""
    api = chatgpt_api_fixture()
    page = open_chatgpt_conversation(browser, sites, api)
    open_menu(page)
    wait_saves(env, 1)  # before any pick
    listed = json.loads(mnemo_cli("list", "--json").stdout)
    assert [c["title"] for c in listed] == [api["title"]]
    window = pick(browser, page, "claude")
    assert int(window.locator("[data-mnemosyne='preview-tokens']").get_attribute("data-tokens")) > 0
    assert host_saves(env) == 1
    gets = [
        r
        for r in sites.seen
        if r["url"].startswith(f"https://chatgpt.com/backend-api/conversation/{api['conversation_id']}")
    ]
    assert len(gets) == 1, gets


def test_a_pick_after_the_page_changed_or_while_a_reply_streamed_saves_anew(browser, sites, env, mnemo_cli):
    """The menu's save is used only for the page it was made of: with a turn added since, or a reply streaming
    when the menu opened, the pick reads and saves the conversation again, and the archive holds what the
    site's API gives at the pick (here its title changes meanwhile, as the reply completes)."""
    api = chatgpt_api_fixture()
    title = api["title"]

    def archived_title() -> str:
        return json.loads(mnemo_cli("list", "--json").stdout)[0]["title"]

    page = open_chatgpt_conversation(browser, sites, api)
    open_menu(page)
    wait_saves(env, 1)
    api["title"] = f"{title} (a turn later)"
    page.evaluate(
        """() => {
          const turns = document.querySelectorAll("[data-testid^='conversation-turn-']");
          const added = turns[turns.length - 1].cloneNode(true);
          added.dataset.testid = 'conversation-turn-' + (turns.length + 1);
          turns[turns.length - 1].after(added);
        }"""
    )
    pick(browser, page, "claude")
    assert host_saves(env) == 2
    assert archived_title() == f"{title} (a turn later)"

    streaming = open_chatgpt_conversation(browser, sites, api)
    streaming.evaluate(
        "() => { const b = document.createElement('button'); b.dataset.testid = 'stop-button'; document.body.append(b); }"
    )
    open_menu(streaming)
    api["title"] = f"{title} (the reply done)"
    streaming.evaluate("() => document.querySelector(\"[data-testid='stop-button']\").remove()")
    pick(browser, streaming, "claude")
    wait_saves(env, 3)
    assert archived_title() == f"{title} (the reply done)"


LONG_TITLE = (
    "A very long conversation title about tide anneal crucibles, the harbour lantern schedule, the ember kiln"
    " and every other thing this conversation went on to discuss over a long afternoon of questions"
)
LAYOUT = """() => {
  const box = (selector) => {
    const node = document.querySelector(selector);
    const r = node.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height};
  };
  const line = document.querySelector("[data-mnemosyne='preview-conversation']");
  const style = getComputedStyle(line);
  return {
    title: box("[data-mnemosyne='preview-conversation']"), meter: box("[data-mnemosyne='preview-meter']"),
    confirm: box("[data-mnemosyne='preview-confirm']"), lineHeight: parseFloat(style.lineHeight),
    ellipsis: style.textOverflow, clipped: line.scrollWidth > line.clientWidth, tooltip: line.title,
    text: line.textContent, viewport: {width: innerWidth, height: innerHeight},
  };
}"""


@pytest.mark.parametrize("size", [(1280, 800), (600, 640)])
def test_a_long_title_stays_on_one_line_above_the_meter_and_the_button(browser, sites, size, screenshot):
    """The preview names the conversation it continues; a long title is one line ending in an ellipsis (the
    whole title on hover), and the token meter and the primary button stay in view, at 1280x800 and in the
    preview's own small window."""
    sites.pages["https://claude.ai/new"] = CLAUDE_COMPOSER_PAGE
    api = {**chatgpt_api_fixture(), "title": LONG_TITLE}
    page = open_chatgpt_conversation(browser, sites, api)
    window = choose(browser, page, "claude")
    window.set_viewport_size({"width": size[0], "height": size[1]})
    window.locator("[data-mnemosyne='preview-conversation']:not([hidden])").wait_for()
    layout = window.evaluate(LAYOUT)
    assert layout["text"] == layout["tooltip"] == LONG_TITLE
    assert layout["ellipsis"] == "ellipsis" and layout["clipped"]
    assert layout["title"]["height"] < 1.5 * layout["lineHeight"]  # one line
    for name in ("title", "meter", "confirm"):
        shown = layout[name]
        assert shown["top"] >= 0 and shown["bottom"] <= size[1], (name, layout)
        assert shown["left"] >= 0 and shown["right"] <= size[0], (name, layout)
    assert layout["title"]["bottom"] <= layout["meter"]["top"]
    screenshot(window, f"continue-preview-long-title-{size[0]}")


def test_a_pick_whose_save_fails_says_why_in_the_preview_window(browser, sites):
    """The preview window opens at the pick, while the page reads and saves; when nothing can be read (the API
    refused and no turn on the page), the window says so instead of waiting, as the page's toast does."""
    url = sites.chatgpt_conversation(
        "68b0f1c2-dddd-bbbb-cccc-0123456789ab",
        shell("<main><p>Nothing here yet</p></main>", "ChatGPT"),
        None,
        api_status=403,
    )
    page = browser.new_page()
    page.goto(url)
    open_menu(page)
    with browser.expect_page(timeout=30_000) as opened:
        ClosedUi(page).click("[data-mnemosyne='continue-target'][data-target='claude']")
    window = opened.value
    status = window.locator("[data-mnemosyne='preview-status'].error")
    status.wait_for(timeout=30_000)
    assert status.inner_text() and "Building" not in status.inner_text()
    assert window.locator("[data-mnemosyne='preview']").is_hidden()
    assert ClosedUi(page).wait("[data-mnemosyne='toast'][data-state='error']")
