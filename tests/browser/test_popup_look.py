"""The popup as a new user meets it, in Chromium with the real host: with no tab of a site it backs up the backup is a
guided step, not an error; with one it names the account it reads; during a backup the list follows the saves
(never "The archive is empty" beside a count of saved conversations) and counts read in singular and plural."""

from __future__ import annotations

import pytest
from test_backup import FAST, ChatgptAccount, ids, open_popup, open_site

pytestmark = pytest.mark.browser

EMPTY = "The archive is empty"


def test_without_a_chat_tab_the_backup_is_a_guided_step(browser, ext_url):
    popup = open_popup(browser, ext_url)
    guide = popup.locator("[data-mnemosyne='backup-guide']")
    guide.wait_for()
    assert "open ChatGPT, Claude, Grok, Perplexity, Gemini or DeepSeek" in guide.inner_text()
    assert guide.locator("a").evaluate_all("(links) => links.map((a) => a.href)") == [
        "https://chatgpt.com/",
        "https://claude.ai/",
    ]
    popup.click("[data-mnemosyne='backup-all']")
    said = popup.locator("[data-mnemosyne='backup-progress']")
    said.filter(has_text="Open ChatGPT, Claude, Grok, Perplexity, Gemini or DeepSeek").wait_for(
        timeout=15_000
    )
    assert "Something went wrong" not in said.inner_text() and "NO_SOURCE_TAB" not in said.inner_text()


def test_during_a_backup_the_list_follows_the_saves(browser, sites, ext_url):
    account = ChatgptAccount(main=ids(12, "follow"))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url, {**FAST, "spacingMs": 150})
    guide = popup.locator("[data-mnemosyne='backup-guide']")
    guide.filter(has_text="ChatGPT account").wait_for(timeout=15_000)  # which account it reads
    popup.locator("[data-mnemosyne='popup-status']", has_text=EMPTY).wait_for(timeout=15_000)
    popup.click("[data-mnemosyne='backup-all']")
    # while it runs: the list grows without a reload, and never says the archive is empty once something is saved
    popup.wait_for_function(
        """() => {
          const done = Number(document.querySelector("[data-mnemosyne='backup-progress']")?.dataset.done || 0);
          const status = document.querySelector("[data-mnemosyne='popup-status']").textContent;
          if (done > 0 && status.includes("The archive is empty")) throw new Error("empty beside " + done);
          return done >= 4 && document.querySelectorAll("[data-mnemosyne='conversation']").length >= 2;
        }""",
        timeout=60_000,
        polling=50,
    )
    popup.wait_for_function(
        "() => document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.state === 'done'",
        timeout=60_000,
    )
    popup.wait_for_function(
        "() => document.querySelectorAll(\"[data-mnemosyne='conversation']\").length === 12", timeout=15_000
    )
    # a search with one hit says "1 match"
    title = popup.locator("[data-mnemosyne='conversation'] .item-title").first.inner_text()
    popup.fill("[data-mnemosyne='search']", f'"{title}"')
    status = popup.locator("[data-mnemosyne='popup-status']")
    popup.wait_for_function(
        "() => /match/.test(document.querySelector(\"[data-mnemosyne='popup-status']\").textContent)",
        timeout=15_000,
    )
    hits = popup.locator("[data-mnemosyne='conversation']").count()
    assert status.inner_text() == (f"{hits} matches" if hits != 1 else "1 match")
    for meta in popup.locator(".item-meta").all_inner_texts():
        assert " 1 messages" not in meta
