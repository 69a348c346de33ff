"""A backup's queue in storage.local, in real Chromium with the real host: listing 4,000 ChatGPT conversations
over 40 pages writes about the same bytes at every page (what the page adds, never the queue so far), and a
service worker stopped during the listing and again during the fetching resumes where it was, queueing nothing
twice (the project's chats are also in the main list) and fetching nothing again but the one in flight."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field

import pytest
from test_backup import ChatgptAccount, ids, open_popup, open_site, stop_service_worker

pytestmark = pytest.mark.browser
PAGES = 40  # main-list pages of 100
SIDEBAR = "https://chatgpt.com/backend-api/gizmos/snorlax/sidebar**"

# every storage.local change the extension makes, as the popup is told of it: its time and the bytes written
RECORD_WRITES = """() => {
  window.storageWrites = [];
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local") return;
    let bytes = 0;
    for (const [key, change] of Object.entries(changes)) {
      if ("newValue" in change) bytes += key.length + JSON.stringify(change.newValue).length;
    }
    window.storageWrites.push({ at: Date.now() / 1000, bytes });
  });
}"""


@dataclass
class TimedAccount(ChatgptAccount):
    """Records when each list request arrives (wall clock, as the popup's Date.now)."""

    asked_at: list[tuple[float, str]] = field(default_factory=list)

    def answer(self, path: str, query: dict[str, str]):
        if path == "/backend-api/conversations":
            kind = "archived" if query.get("is_archived") == "true" else f"main:{query.get('offset')}"
            with self.lock:
                self.asked_at.append((time.time(), kind))
        return super().answer(path, query)


def bytes_per_main_page(asked_at: list[tuple[float, str]], writes: list[dict]) -> list[int]:
    """Bytes written between a main-list request and the next list request: that page's writes (the worker
    stores a page before it asks for the next one, at least the policy's spacing later)."""
    starts = sorted(asked_at)
    pages = []
    for (start, kind), (end, _) in zip(starts, starts[1:], strict=False):
        if kind.startswith("main:"):
            pages.append(sum(w["bytes"] for w in writes if start <= w["at"] < end))
    return pages


def stored_run(popup) -> dict:
    return popup.evaluate("() => chrome.storage.local.get('backupRun').then((s) => s.backupRun)")


def wake_worker(popup) -> None:
    """A page's request starts the stopped worker again, as any event would; loading, it resumes the run."""
    popup.evaluate("() => chrome.runtime.sendMessage({type: 'backup-status'})")


def test_listing_writes_each_page_once_and_a_restarted_worker_resumes_at_its_cursor(
    browser, sites, ext_url, mnemo_cli
):
    main = ids(PAGES * 100, "queue-writes")
    # the project's chats are in the main list too: its list fills in the project of entries stored pages before
    account = TimedAccount(main=main, project=main[100:120])
    account.install(browser)
    held = []  # the sidebar's first request, left unanswered while the worker is stopped

    def hold_first_sidebar(route):
        if not held:
            held.append(route)
        else:
            route.fallback()

    browser.route(SIDEBAR, hold_first_sidebar)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url, {"spacingMs": 100, "burst": 1_000_000, "refillPerMinute": 1_000_000})
    popup.evaluate(RECORD_WRITES)
    popup.click("[data-mnemosyne='backup-all']")

    # every main page is listed and stored; the worker stops while it waits for the project sidebar
    deadline = time.monotonic() + 180
    while not held and time.monotonic() < deadline:
        popup.wait_for_timeout(50)
    assert held, f"the sidebar was never asked: {len(account.listed)} list requests"
    stop_service_worker(browser, popup)
    held[0].abort()
    wake_worker(popup)

    popup.wait_for_function(
        "() => Number(document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.done) >= 20",
        timeout=120_000,
    )
    run = stored_run(popup)
    assert run["listing"]["phase"] == "end", run["listing"]
    assert run["queueLength"] == len(main) and run["counts"]["skipped"] == 0, "a conversation queued twice"

    writes = popup.evaluate("() => window.storageWrites")
    per_page = bytes_per_main_page(account.asked_at, writes)
    print(f"\nbytes written per listed page of 100: {per_page}")
    assert len(per_page) == PAGES, per_page
    # what a page writes does not grow with the pages listed before it
    early, late = statistics.mean(per_page[1:11]), statistics.mean(per_page[-10:])
    assert late < 1.3 * early, f"pages 2-11: {early:.0f} bytes each, pages 31-40: {late:.0f}"
    assert max(per_page) < 40_000, per_page

    # stopped again while fetching: the restarted worker goes on from its cursor
    stop_service_worker(browser, popup)
    at_stop = len(account.conversation_fetches())
    assert at_stop < 100, at_stop
    wake_worker(popup)
    popup.wait_for_function(
        "() => Number(document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.done) >= 125",
        timeout=120_000,
    )
    popup.click("[data-mnemosyne='backup-pause']")
    popup.wait_for_function(
        "() => document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.state === 'paused'"
    )
    fetched = account.conversation_fetches()
    unique = list(dict.fromkeys(fetched))
    assert unique == main[: len(unique)], "fetched out of list order"
    assert len(fetched) - len(unique) <= 1, "fetched again after the restart (more than the one in flight)"
    assert len(unique) >= 125

    # a chat fetched after the restart carries the project its list filled in (its chunk written again)
    after = main[110]
    listed = json.loads(mnemo_cli("list", "--limit", "0", "--json").stdout)
    saved = next(i for i in listed if i["source_id"] == after)
    shown = json.loads(mnemo_cli("show", saved["id"], "--json").stdout)
    assert any(
        i["kind"] == "project_instructions" and i["title"] == "Thesis" for i in shown["instructions"]
    ), shown["instructions"]
