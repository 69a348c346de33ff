"""A script of the page (an XSS on chatgpt.com, another extension's content script) can neither read nor press
the extension's UI, and the context preview is never in the page. The attack runs
as page script in the main world; a real mouse click (a trusted event, as a user's) is the control."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from closed_ui import ClosedUi
from ext_fakesite import FIXTURES, chatgpt_api_fixture, strip_scripts

pytestmark = pytest.mark.browser

# before any page script: steal every shadow root the page's world creates, forced open
STEAL_ROOTS = """(() => {
  window.__stolen = [];
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, { ...init, mode: 'open' });
    window.__stolen.push(root);
    return root;
  };
})()"""

# everything a page script can reach: the document and every shadow root it can open or stole
PAGE_TEXT = """() => {
  const texts = [document.documentElement.innerText];
  const walk = (root) => { for (const e of root.querySelectorAll('*')) if (e.shadowRoot) { texts.push(e.shadowRoot.textContent); walk(e.shadowRoot); } };
  walk(document);
  for (const root of window.__stolen ?? []) texts.push(root.textContent);
  return texts.join('\\n');
}"""

# the attack: find our UI and press everything it can reach
ATTACK = """() => {
  const hosts = [...document.querySelectorAll('mnemosyne-ui')];
  const reached = hosts.map((host) => host.shadowRoot).filter(Boolean);
  for (const host of hosts) {
    host.click();
    host.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    host.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
    const box = host.getBoundingClientRect();
    for (const x of [box.left + 4, box.left + box.width / 2, box.right - 4]) {
      const target = document.elementFromPoint(x, box.top + box.height / 2);
      target?.click();
      target?.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, composed: true }));
      target?.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    }
    for (const root of reached) for (const button of root.querySelectorAll('button')) button.click();
  }
  return { hosts: hosts.length, reached: reached.length, stolen: window.__stolen.length };
}"""


def open_conversation(browser, sites):
    api = chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    page = browser.new_page()
    page.add_init_script(STEAL_ROOTS)
    page.goto(sites.chatgpt_conversation(api["conversation_id"], html, api))
    ui = ClosedUi(page)
    ui.wait("[data-mnemosyne='export']")
    return page, ui


def synthetic_click(ui: ClosedUi, selector: str) -> None:
    """A script that somehow holds our element calls .click() on it (an untrusted event, in the main world)."""
    node = ui._find(selector)
    remote = ui.cdp.send("DOM.resolveNode", {"nodeId": node})["object"]
    ui.cdp.send(
        "Runtime.callFunctionOn",
        {
            "objectId": remote["objectId"],
            "functionDeclaration": "function () { this.click();"
            " this.dispatchEvent(new MouseEvent('click', {bubbles: true, composed: true})); }",
        },
    )


def test_page_scripts_cannot_read_or_press_the_extensions_ui(browser, sites, mnemo_cli):
    page, ui = open_conversation(browser, sites)
    pages_before = len(browser.pages)
    assert set(ui.modes()) == {"closed"}

    reached = page.evaluate(ATTACK)
    assert reached["hosts"] >= 1
    assert (
        reached["reached"] == 0 and reached["stolen"] == 0
    )  # no root is readable, patched prototypes or not
    # our handlers run synchronously on a click: a save would have shown its progress toast by now
    assert ui.get("[data-mnemosyne='toast']") is None
    assert ui.get("[data-mnemosyne='continue-menu']") is None

    # even a script holding our buttons: .click() is not the user's
    synthetic_click(ui, "[data-mnemosyne='export']")
    assert ui.get("[data-mnemosyne='toast']") is None
    assert ui.get("[data-mnemosyne='export']")["disabled"] is False
    ui.click("[data-mnemosyne='continue']")  # the user opens the menu...
    ui.wait("[data-mnemosyne='continue-target'][data-target='agents-md']")
    synthetic_click(ui, "[data-mnemosyne='continue-target'][data-target='agents-md']")  # ...the page picks
    assert ui.get("[data-mnemosyne='toast']") is None
    assert ui.get("[data-mnemosyne='continue-menu']") is not None  # a real pick closes the menu at once
    synthetic_click(ui, "[data-mnemosyne='continue']")
    assert ui.get("[data-mnemosyne='continue-menu']") is not None  # nor can the page close it

    # the control: the user's real click saves, and the page cannot read what the toast says
    result = ui.export()
    assert result["state"] == "success", result["text"]
    assert "Tide anneal crucible explanation" in result["text"]
    assert "Tide anneal crucible explanation" not in page.evaluate(PAGE_TEXT)
    assert "Saved" not in page.evaluate(PAGE_TEXT)
    assert len(json.loads(mnemo_cli("list", "--json").stdout)) == 1  # the real click's save only
    assert len(browser.pages) == pages_before  # nothing opened


def test_the_context_preview_is_shown_by_the_extension_not_in_the_page(browser, sites, ext_url, mnemo_cli):
    page, ui = open_conversation(browser, sites)
    ui.click("[data-mnemosyne='continue']")
    with browser.expect_page(timeout=30_000) as opened:
        ui.click("[data-mnemosyne='continue-target'][data-target='agents-md']")
    window = opened.value
    assert window.url.startswith(ext_url("preview/preview.html?handle="))
    preview = window.locator("[data-mnemosyne='preview']:not([hidden]) .preview-text")
    preview.wait_for(timeout=30_000)
    shown = preview.inner_text()
    assert len(shown) > 200
    ui.wait("[data-mnemosyne='toast'][data-state='success']")  # the page's short status
    in_page = page.evaluate(PAGE_TEXT)
    assert shown[:200] not in in_page and "tokens of a" not in in_page
    # what the tab itself is told: a short status, no handle, no text; the preview is another window
    from test_security import content_script_world

    send = content_script_world(page)
    conversation_id = json.loads(mnemo_cli("list", "--json").stdout)[0]["id"]
    with browser.expect_page(timeout=30_000) as second:
        reply = send({"type": "context", "conversation_id": conversation_id, "target": "agents-md"})
    assert reply["ok"] is True and set(reply["data"]) == {"target", "label", "fills", "tokens"}, reply
    assert second.value.url.startswith(ext_url("preview/preview.html?handle="))


def test_an_error_in_the_page_names_the_code_not_the_details(
    browser, sites, ext_url, mnemo_cli, env, tmp_path
):
    """A tab's error carries the code and a generic sentence; the extension's pages the message."""
    mnemo_cli("list", "--json")  # creates the archive and its key...
    Path(env["MNEMOSYNE_KEY_FILE"]).unlink()  # ...whose loss the host reports naming the key file
    page, ui = open_conversation(browser, sites)
    result = ui.export()
    assert result["state"] == "error" and result["code"] == "ARCHIVE_KEY_MISSING", result
    assert "ARCHIVE_KEY_MISSING" in result["text"] and "health check" in result["text"]
    assert "key file" not in result["text"] and "local path" not in result["text"]
    assert str(tmp_path) not in result["text"]
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    reply = options.evaluate("() => chrome.runtime.sendMessage({type: 'list'})")
    assert reply["error"]["code"] == "ARCHIVE_KEY_MISSING" and "key file" in reply["error"]["message"]
    assert str(tmp_path) not in reply["error"]["message"]  # (the host keeps paths out of every reply)
