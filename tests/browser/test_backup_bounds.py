"""A backup's listing is bounded whatever the site answers, in real Chromium with the real host: a project sidebar
that always answers the same cursor with a project carrying 1 MB of instructions, a list whose `total` never
comes and pages that repeat, a project list that loops. The run ends, storage.local stays small, the project's
instructions are kept within their limit; and a run storage.local cannot hold pauses, saying why."""

from __future__ import annotations

import json

import pytest
from test_backup import PROJECT, ChatgptAccount, archive_ids, ids, open_popup, open_site, wait_state

pytestmark = pytest.mark.browser
INSTRUCTIONS_LIMIT = 100_000  # characters of a project's instructions a run keeps
QUOTA = 10 * 1024 * 1024  # storage.local's bytes without the unlimitedStorage permission


class LoopingAccount(ChatgptAccount):
    """Every list answers as if there were always more: the same page again, the same cursor again."""

    def answer(self, path: str, query: dict[str, str]):
        if path == "/backend-api/conversations":
            with self.lock:
                self.listed.append(path)
            page = self.archived if query.get("is_archived") == "true" else self.main
            return 200, {"items": [self.item(c) for c in page], "total": 10**9, "limit": 100, "offset": 0}, {}
        if path == "/backend-api/gizmos/snorlax/sidebar":
            with self.lock:
                self.listed.append(path)
            gizmo = {
                "id": PROJECT,
                "display": {"name": "Thesis"},
                "instructions": "Be a thesis advisor. " * 50_000,
            }
            return 200, {"items": [{"gizmo": {"gizmo": gizmo}}], "cursor": "the-same-cursor"}, {}
        if path == f"/backend-api/gizmos/{PROJECT}/conversations":
            with self.lock:
                self.listed.append(path)
            return 200, {"items": [self.item(c) for c in self.project], "cursor": "20"}, {}
        return super().answer(path, query)


def bytes_in_use(popup) -> int:
    return popup.evaluate("() => chrome.storage.local.getBytesInUse(null)")


def test_a_sidebar_that_always_answers_the_same_cursor_ends_and_stays_small(
    browser, sites, ext_url, mnemo_cli
):
    account = LoopingAccount(
        main=ids(3, "loop-main"), archived=ids(1, "loop-archived"), project=ids(2, "loop-p")
    )
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url)
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 120_000)

    assert (done["done"], done["failed"]) == ("6", "0"), done
    assert "project texts cut to their limit: 1" in done["text"], done["text"]
    assert archive_ids(mnemo_cli, "chatgpt") == set(account.all_ids())
    # each list ended when it repeated itself: a second page of the same, never a third
    assert account.listed.count("/backend-api/gizmos/snorlax/sidebar") <= 2, account.listed
    assert account.listed.count(f"/backend-api/gizmos/{PROJECT}/conversations") <= 2, account.listed
    assert account.listed.count("/backend-api/conversations") <= 4, account.listed
    assert bytes_in_use(popup) < 600_000  # the 1 MB instructions kept once, within their limit
    listed = json.loads(mnemo_cli("list", "--json").stdout)
    in_project = next(i for i in listed if i["source_id"] == account.project[0])
    shown = json.loads(mnemo_cli("show", in_project["id"], "--json").stdout)
    (kept,) = [i for i in shown["instructions"] if i["kind"] == "project_instructions"]
    assert kept["title"] == "Thesis" and len(kept["text"]) == INSTRUCTIONS_LIMIT


def test_a_run_storage_cannot_hold_pauses_with_the_reason(browser, sites, ext_url, mnemo_cli):
    account = ChatgptAccount(main=ids(400, "quota"))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url)
    # another feature's data leaves room for the run's first steps, not for a listed page of 100 conversations
    room = 12_000
    popup.evaluate(
        "(n) => chrome.storage.local.set({filler: 'x'.repeat(n)})", QUOTA - bytes_in_use(popup) - room
    )
    popup.click("[data-mnemosyne='backup-all']")
    paused = wait_state(popup, "paused", 60_000)
    assert paused["reason"].startswith("STORAGE") and "quota" in paused["reason"].lower(), paused
    assert "storage" in paused["text"] and "quota" in paused["text"], paused["text"]
    listed = len(account.listed)
    popup.wait_for_timeout(3_000)  # a paused run asks the site for nothing more (an interval, not a proof)
    assert len(account.listed) == listed and account.conversation_fetches() == []
