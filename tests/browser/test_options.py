"""Options: settings persist and drive Export (download on export), the health check reports the current
tab's reading paths and the host's doctor checks; the UI follows the browser language (zh_CN)."""

from __future__ import annotations

import json

import pytest
from closed_ui import ClosedUi
from ext_downloads import extension_downloads
from ext_fakesite import FIXTURES, chatgpt_api_fixture, strip_scripts

from conftest import launch

pytestmark = pytest.mark.browser


def open_chatgpt(browser, sites):
    api = chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    page = browser.new_page()
    page.goto(sites.chatgpt_conversation(api["conversation_id"], html, api))
    ClosedUi(page).wait("[data-mnemosyne='export']")
    return page


def test_settings_persist_and_download_on_export(browser, sites, ext_url):
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    options.locator("input[name='downloadOnExport']").check()
    options.locator("select[name='exportFormat']").select_option("json")
    options.locator("#saved", has_text="Saved").wait_for(timeout=5_000)
    stored = options.evaluate("() => chrome.storage.sync.get(null)")
    assert stored["downloadOnExport"] is True and stored["exportFormat"] == "json"
    options.reload()
    assert options.locator("input[name='downloadOnExport']").is_checked()

    page = open_chatgpt(browser, sites)
    assert ClosedUi(page).export()["state"] == "success"
    [download] = extension_downloads(browser, ext_url)  # the worker's download, not the page's
    assert download["mime"].startswith("application/json")
    body = download["text"]
    assert json.loads(body)["format"] == "mnemosyne.conversation"
    assert "Tide anneal crucible explanation" in body


def test_health_check_shows_page_paths_and_doctor(browser, sites, ext_url, screenshot):
    open_chatgpt(browser, sites)
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    options.locator("[data-mnemosyne='health']").click()
    page_checks = options.locator("[data-mnemosyne='health-page'] [data-check]")
    page_checks.first.wait_for(state="attached", timeout=30_000)  # folded under the summary
    status = {
        page_checks.nth(i).get_attribute("data-check"): page_checks.nth(i).get_attribute("data-status")
        for i in range(page_checks.count())
    }
    assert status["api"] == "ok" and status["api.conversation"] == "ok"
    assert status["dom.turns"] == "ok" and status["anchor"] == "ok"
    assert status["dom [data-testid^='conversation-turn-']"] == "ok"
    host_checks = options.locator("[data-mnemosyne='health-host'] [data-check]")
    host_checks.first.wait_for(state="attached", timeout=30_000)
    names = host_checks.evaluate_all("els => els.map(e => e.dataset.check)")
    assert len(names) >= 3
    # said plainly: "all good" for a tab that reads and a host that works, the checks folded under it
    summaries = options.locator("[data-mnemosyne='health-summary']")
    assert summaries.count() == 2
    for i in range(2):
        assert summaries.nth(i).get_attribute("data-state") == "ok", summaries.nth(i).inner_text()
        assert summaries.nth(i).inner_text().endswith("all good")
    assert not options.locator("[data-mnemosyne='health-host'] details").evaluate("(d) => d.open")
    assert options.locator("[data-mnemosyne='health-problems']").count() == 0
    screenshot(options, "options-health")


def test_ui_in_simplified_chinese(playwright_instance, profile_dir, env, sites, installed_host, ext_url):
    ctx = launch(playwright_instance, profile_dir, env, sites, locale="zh-CN")
    try:
        popup = ctx.new_page()
        popup.goto(ext_url("popup/popup.html"))
        assert popup.locator("h1").inner_text() == "存档"
        assert popup.locator("[data-mnemosyne='search']").get_attribute("placeholder") == "搜索存档"
        api = chatgpt_api_fixture()
        html = strip_scripts(
            (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
        )
        page = ctx.new_page()
        page.goto(sites.chatgpt_conversation(api["conversation_id"], html, api))
        assert ClosedUi(page).wait("[data-mnemosyne='export']")["text"] == "导出"
    finally:
        ctx.close()


def test_context_menu_entries_exist_and_export_runs_in_the_tab(browser, sites, mnemo_cli):
    worker = browser.service_workers[0]
    # the worker registers its menus on start-up: poll with update(), which fails for a missing entry
    # and, unlike create(), cannot race with the worker's own registration
    found = worker.evaluate("""async () => {
        for (let i = 0; i < 100; i++) {
            const error = await new Promise(resolve => chrome.contextMenus.update(
                'mnemosyne-continue:claude', {}, () => resolve(chrome.runtime.lastError?.message ?? null)));
            if (error === null) return true;
            await new Promise(resolve => setTimeout(resolve, 100));
        }
        return false;
    }""")
    assert found  # the service worker registered the Continue in… > Claude entry
    page = open_chatgpt(browser, sites)
    # what a click on "Export conversation to Mnemosyne" does: the worker tells the tab's content script
    worker.evaluate("""async () => {
        const [tab] = await chrome.tabs.query({url: 'https://chatgpt.com/*'});
        await chrome.tabs.sendMessage(tab.id, {type: 'menu-export'}, {frameId: 0});
    }""")
    ClosedUi(page).wait("[data-mnemosyne='toast'][data-state='success']")
    assert "Tide anneal crucible explanation" in mnemo_cli("list").stdout
