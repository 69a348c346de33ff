"""The popup as a new user meets it, in Chromium with the real host: with no tab of a site it backs up the backup is a
guided step, not an error; with one it names the account it reads; during a backup the list follows the saves
(never "The archive is empty" beside a count of saved conversations) and counts read in singular and plural."""

from __future__ import annotations

import time

import pytest
from ext_fakesite import ACCESS_TOKEN, CLAUDE_ORG, shell
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


def _guide_says(popup, words: str) -> str:
    guide = popup.locator("[data-mnemosyne='backup-guide']")
    guide.filter(has_text=words).wait_for(timeout=15_000)
    return guide.inner_text()


def _chatgpt_session(sites, user: dict) -> None:
    expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
    session = {"accessToken": ACCESS_TOKEN, "expires": expires, "user": user}
    sites.json_routes["https://chatgpt.com/api/auth/session$"] = (200, session)


def test_the_backup_names_the_account_the_tab_is_signed_in_to(browser, sites, ext_url):
    """The sentence above Back up names the account as the site's own session data gives it: ChatGPT's email,
    its workspace's name inside a workspace, Claude's organization; a site that gives none is named in words."""
    sites.pages["https://chatgpt.com/"] = shell("<p>home</p>", "ChatGPT")
    _chatgpt_session(sites, {"id": "user-jane", "name": "Jane Doe", "email": "jane@example.com"})
    chatgpt = browser.new_page()
    chatgpt.goto("https://chatgpt.com/")
    popup = open_popup(browser, ext_url, file_hosts=False)
    said = _guide_says(popup, "jane@example.com")
    assert said == "Backs up your ChatGPT account jane@example.com, signed in on your ChatGPT tab."

    # in a workspace (the _account cookie names it): the workspace's name from the accounts check
    browser.add_cookies([{"name": "_account", "value": "ws-acme", "url": "https://chatgpt.com/"}])
    check = {"accounts": {"ws-acme": {"account": {"account_id": "ws-acme", "name": "Acme Research"}}}}
    sites.json_routes["https://chatgpt.com/backend-api/accounts/check/"] = (200, check)
    chatgpt.reload()
    popup.reload()
    assert "your ChatGPT account Acme Research," in _guide_says(popup, "Acme Research")
    chatgpt.close()

    # claude.ai: the organization the tab uses (the lastActiveOrg cookie's), not the first listed
    sites.pages["https://claude.ai/"] = shell("<p>home</p>", "Claude")
    orgs = [
        {"uuid": "api-only-org", "name": "API keys", "capabilities": ["api"]},
        {"uuid": "other-org", "name": "Team Other", "capabilities": ["chat"]},
        {"uuid": CLAUDE_ORG, "name": "jane@example.com's Organization", "capabilities": ["chat"]},
    ]
    sites.json_routes["https://claude.ai/api/organizations$"] = (200, orgs)
    browser.add_cookies([{"name": "lastActiveOrg", "value": CLAUDE_ORG, "url": "https://claude.ai/"}])
    claude = browser.new_page()
    claude.goto("https://claude.ai/")
    popup.reload()
    said = _guide_says(popup, "Organization")
    assert (
        said == "Backs up your Claude account jane@example.com's Organization, signed in on your Claude tab."
    )
    claude.close()

    # a site whose data names no account: the site, in words
    sites.pages["https://grok.com/"] = shell("<p>home</p>", "Grok")
    browser.new_page().goto("https://grok.com/")
    popup.reload()
    assert _guide_says(popup, "Grok") == "Backs up the Grok account signed in on your Grok tab."
