"""Keep current, in real Chromium with the real host and archive: after a completed assistant reply the
open conversation is saved again, only when the setting is on and only when the site's copy changed. The content
script counts each decision in storage.local (`keepCurrentStatus`); the test waits on that count, never on a
fixed sleep, and checks the archive against it."""

from __future__ import annotations

import json
import time

import pytest
from ext_fakesite import chatgpt_api_fixture, open_chatgpt_conversation

pytestmark = pytest.mark.browser


def conversation_gets(sites, cid: str) -> int:
    return sum(
        1 for r in sites.seen if r["url"].startswith(f"https://chatgpt.com/backend-api/conversation/{cid}")
    )


def stream_a_reply(page) -> None:
    """What ChatGPT's page does around a reply: the stop button shows while it streams, then goes. Two animation
    frames between the two: the content script samples the page on animation frames."""
    page.evaluate(
        """async () => {
          const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
          const button = document.createElement('button');
          button.dataset.testid = 'stop-button';
          document.body.append(button);
          await frame(); await frame();
          button.remove();
        }"""
    )


def wait_decisions(options, **expected: int) -> dict:
    """Wait until keep-current's decision counts are exactly `expected` (the others zero): resolved from
    storage.onChanged in the options page (Playwright's wait_for_function takes a returned promise as truthy)."""
    want = {"saved": 0, "unchanged": 0, "failed": 0, **expected}
    status = options.evaluate(
        """(want) => new Promise((resolve) => {
             const matches = (s) => Object.entries(want).every(([k, v]) => (s?.counts?.[k] ?? 0) === v);
             const timer = setTimeout(() => chrome.storage.local.get('keepCurrentStatus')
               .then((s) => resolve({ timedOut: true, ...s.keepCurrentStatus })), 20000);
             const done = (s) => { clearTimeout(timer); chrome.storage.onChanged.removeListener(listen); resolve(s); };
             const listen = (changes, area) => {
               if (area === 'local' && changes.keepCurrentStatus && matches(changes.keepCurrentStatus.newValue)) {
                 done(changes.keepCurrentStatus.newValue);
               }
             };
             chrome.storage.onChanged.addListener(listen);
             chrome.storage.local.get('keepCurrentStatus').then((s) => {
               if (matches(s.keepCurrentStatus)) done(s.keepCurrentStatus);
             });
           })""",
        want,
    )
    assert not status.get("timedOut"), f"keep-current decisions are not {want}: {status}"
    return status


def archived(mnemo_cli) -> list[dict]:
    return json.loads(mnemo_cli("list", "--json").stdout)


def wait_archived(mnemo_cli, ready, timeout: float = 20) -> list[dict]:
    """The archive's list once `ready(list)` holds: a save's reply comes before its search index is written."""
    deadline = time.monotonic() + timeout
    while not ready(listed := archived(mnemo_cli)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ready(listed), listed
    return listed


def test_keep_current_saves_a_changed_reply_once_and_nothing_when_unchanged(
    browser, sites, ext_url, mnemo_cli
):
    api = chatgpt_api_fixture()
    cid = api["conversation_id"]
    page = open_chatgpt_conversation(browser, sites, api)
    page.wait_for_selector("mnemosyne-ui", state="attached")

    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    stream_a_reply(page)  # off by default: this reply is neither read nor saved

    options.check("[data-mnemosyne='keep-current']")
    assert options.evaluate(
        """() => new Promise((resolve) => {
             const timer = setTimeout(() => resolve(false), 10000);
             const on = () => { clearTimeout(timer); resolve(true); };
             chrome.storage.onChanged.addListener((c, area) => area === 'sync' && c.keepCurrent?.newValue === true && on());
             chrome.storage.sync.get('keepCurrent').then((s) => s.keepCurrent === true && on());
           })"""
    ), "the setting was not stored"
    page.evaluate(
        "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )  # its event
    stream_a_reply(page)
    # the first decision is this reply's: had the reply made while off been acted on, it would have come first
    wait_decisions(options, saved=1)
    first = wait_archived(mnemo_cli, bool)
    assert [item["source_id"] for item in first] == [cid]
    assert conversation_gets(sites, cid) == 1

    # the same reply again (the site's copy is identical): read, compared, not saved
    stream_a_reply(page)
    wait_decisions(options, saved=1, unchanged=1)
    assert conversation_gets(sites, cid) == 2
    assert archived(mnemo_cli) == first  # the archive row is untouched (same saved_at, same counts)

    # the site's copy changed (a reply was edited): exactly one save, and the archive holds the new text
    leaf = api["mapping"][api["current_node"]]["message"]
    leaf["content"]["parts"] = ["An edited answer: tidewater anneals the crucible overnight."]
    stream_a_reply(page)
    wait_decisions(options, saved=2, unchanged=1)
    after = wait_archived(mnemo_cli, lambda listed: listed != first)
    assert [item["source_id"] for item in after] == [cid]
    shown = mnemo_cli("show", after[0]["id"]).stdout
    assert "tidewater anneals the crucible overnight" in shown
    assert conversation_gets(sites, cid) == 3
