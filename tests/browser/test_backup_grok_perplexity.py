"""Back up everything from grok.com and www.perplexity.ai, in real Chromium with the real host and archive: the
sites' list and conversation endpoints served offline (grok.com's list paged by nextPageToken, its conversations
read as response-node + load-responses; Perplexity's list_ask_threads POST paged by offset, its threads by slug).
The fake sites count every request, so a second run can be shown to fetch no conversation."""

from __future__ import annotations

import copy
import json
import threading
import time

import pytest
from ext_fakesite import FIXTURES, shell
from test_backup import archive_ids, ids, open_popup, wait_state

pytestmark = pytest.mark.browser

STREAM = FIXTURES / "more_sites" / "perplexity" / "pplx-agent-tools__sse_example-com-prompt.events.jsonl"


class GrokAccount:
    def __init__(self, conversation_ids: list[str]):
        self.ids = conversation_ids
        self.fetched: list[str] = []  # conversation ids whose turns were loaded
        self.listed: list[str] = []
        self.lock = threading.Lock()

    def turns(self, cid: str) -> tuple[str, str]:
        return f"{cid}-q", f"{cid}-a"

    def handle(self, route) -> None:
        request = route.request
        path, _, query = request.url.removeprefix("https://grok.com").partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        status, body = 404, {"error": "not found"}
        if path == "/rest/app-chat/conversations":
            with self.lock:
                self.listed.append(query)
            start = int(params.get("pageToken", "0"))
            page = self.ids[start : start + int(params["pageSize"])]
            body = {"conversations": [{"conversationId": c, "title": f"Grok chat {c[:8]}",
                                       "modifyTime": "2026-11-20T10:00:00Z"} for c in page]}  # fmt: skip
            if start + len(page) < len(self.ids):
                body["nextPageToken"] = str(start + len(page))
            status = 200
        elif path.endswith("/response-node"):
            cid = path.split("/")[-2]
            if cid in self.ids:
                question, answer = self.turns(cid)
                status, body = 200, {"responseNodes": [{"responseId": question, "sender": "human"},
                    {"responseId": answer, "sender": "ASSISTANT", "parentResponseId": question}]}  # fmt: skip
        elif path.endswith("/load-responses") and request.method == "POST":
            cid = path.split("/")[-2]
            question, answer = self.turns(cid)
            if json.loads(request.post_data or "{}").get("responseIds") == [question, answer]:
                with self.lock:
                    self.fetched.append(cid)
                status, body = 200, {"responses": [
                    {"responseId": question, "sender": "human", "message": f"Question of {cid}"},
                    {"responseId": answer, "sender": "ASSISTANT", "parentResponseId": question,
                     "message": f"Answer of {cid}", "model": "grok-4"}]}  # fmt: skip
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))


class PerplexityAccount:
    def __init__(self, slugs: list[str]):
        self.slugs = slugs
        self.fetched: list[str] = []
        self.listed: list[dict] = []
        self.lock = threading.Lock()
        frames = [json.loads(line) for line in STREAM.read_text(encoding="utf-8").splitlines()]
        self.entry = next(f for f in frames if f.get("status") == "COMPLETED")

    def handle(self, route) -> None:
        request = route.request
        path = request.url.removeprefix("https://www.perplexity.ai").partition("?")[0]
        status, body = 404, {"error": "not found"}
        if path == "/rest/thread/list_ask_threads" and request.method == "POST":
            asked = json.loads(request.post_data or "{}")
            with self.lock:
                self.listed.append(asked)
            page = self.slugs[asked["offset"] : asked["offset"] + asked["limit"]]
            status, body = 200, [{"slug": s, "title": f"Thread {s[:8]}", "last_query_datetime": "2026-05-13T00:21:04",
                                  "total_threads": len(self.slugs)} for s in page]  # fmt: skip
        elif path.startswith("/rest/thread/"):
            slug = path.rsplit("/", 1)[-1]
            if slug in self.slugs and "with_schematized_response=true" in request.url:
                with self.lock:
                    self.fetched.append(slug)
                entry = copy.deepcopy(self.entry)
                entry.update(
                    thread_url_slug=slug, backend_uuid=f"{slug}-answer", query_str=f"Question of {slug}"
                )
                status, body = 200, {"status": "success", "entries": [entry], "has_next_page": False}
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))


def open_home(browser, sites, origin: str) -> None:
    browser.route(f"{origin}/**", sites._handle)  # served by the fake sites (later routes win)
    sites.pages[f"{origin}/"] = shell("<p>home</p>", "Home")
    browser.new_page().goto(f"{origin}/")


def run_backup(browser, ext_url) -> tuple[dict, float]:
    popup = open_popup(browser, ext_url, file_hosts=False)
    started = time.monotonic()
    popup.click("[data-mnemosyne='backup-all']")
    return wait_state(popup, "done", 300_000), time.monotonic() - started


def test_grok_backup_then_a_second_run_fetches_none(browser, sites, ext_url, mnemo_cli):
    account = GrokAccount(ids(130, "grok"))
    open_home(browser, sites, "https://grok.com")
    browser.route("https://grok.com/rest/**", account.handle)
    done, seconds = run_backup(browser, ext_url)
    print(f"\ngrok.com backup of 130 conversations: {seconds:.1f} s")
    assert (done["done"], done["failed"], done["left"]) == ("130", "0", "0"), done
    assert sorted(account.fetched) == sorted(account.ids)  # each conversation loaded once
    assert len(account.listed) == 3  # 60 + 60 + 10, paged by nextPageToken
    assert set(account.ids) <= archive_ids(mnemo_cli, "grok")

    popup = open_popup(browser, ext_url, file_hosts=False)
    before = len(account.fetched)
    popup.click("[data-mnemosyne='backup-all']")
    popup.wait_for_function(
        "() => document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.skipped === '130'"
        " && document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.state === 'done'",
        timeout=120_000,
    )
    assert account.fetched[before:] == []


def test_perplexity_backup_lists_by_post_and_saves_every_thread(browser, sites, ext_url, mnemo_cli):
    account = PerplexityAccount(ids(75, "perplexity"))
    open_home(browser, sites, "https://www.perplexity.ai")
    browser.route("https://www.perplexity.ai/rest/**", account.handle)
    done, seconds = run_backup(browser, ext_url)
    print(f"\nPerplexity backup of 75 threads: {seconds:.1f} s")
    assert (done["done"], done["failed"], done["left"]) == ("75", "0", "0"), done
    assert sorted(account.fetched) == sorted(account.slugs)
    assert [a["offset"] for a in account.listed] == [0, 50]  # a short second page ends the list
    assert set(account.slugs) <= archive_ids(mnemo_cli, "perplexity")
    shown = mnemo_cli("show", "--json", _first_id(mnemo_cli, account.slugs[0])).stdout
    assert f"Question of {account.slugs[0]}" in shown and "illustrative examples" in shown


def _first_id(mnemo_cli, slug: str) -> str:
    listed = json.loads(mnemo_cli("list", "--source", "perplexity", "--limit", "0", "--json").stdout)
    return next(item["id"] for item in listed if item["source_id"] == slug)
