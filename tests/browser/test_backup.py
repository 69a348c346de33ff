"""Back up everything, in real Chromium with the real host and archive: the ChatGPT and Claude list and
conversation endpoints are served offline from account-shaped data built from real fixture conversations (paging
with total / has_more, archived chats, a project, Claude organizations and projects). The fake site counts every
request, so the tests can prove what was (not) fetched."""

from __future__ import annotations

import copy
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from ext_fakesite import (
    ACCESS_TOKEN,
    CLAUDE_ORG,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    shell,
)

pytestmark = pytest.mark.browser
EXTENSION_ICONS = Path(__file__).resolve().parents[2] / "extension" / "icons"

FAST = {
    "spacingMs": 0,
    "burst": 1_000_000,
    "refillPerMinute": 1_000_000,
    "baseBackoffMs": 200,
    "maxBackoffMs": 5_000,
}
PROJECT = "g-p-6925e1746714832f894684bdb22f6d2e"


@dataclass
class ChatgptAccount:
    """A ChatGPT account: `main` ids in the main list, `archived`, and `project` ids (in the project only)."""

    main: list[str]
    archived: list[str] = field(default_factory=list)
    project: list[str] = field(default_factory=list)
    broken: set[str] = field(default_factory=set)  # answer 200 without a mapping
    windowed: set[str] = field(
        default_factory=set
    )  # answer the plural endpoint's window of messages (partial)
    limited: dict[str, str] = field(default_factory=dict)  # id -> Retry-After of one 429 before it answers
    fetched: list[tuple[float, str, int]] = field(
        default_factory=list
    )  # (time, id, status) per conversation GET
    listed: list[str] = field(default_factory=list)  # list paths asked
    lock: threading.Lock = field(default_factory=threading.Lock)
    fixture: str | None = None  # a chatgpt_api fixture name (default: ext_fakesite's)
    files: dict[str, bytes] = field(default_factory=dict)  # file id -> bytes served by files/download
    file_gets: list[str] = field(default_factory=list)
    file_of: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (fixture file id, its own)
    # file id -> its signed download URL on ChatGPT's file host (*.oaiusercontent.com); default: same-origin
    file_urls: dict[str, str] = field(default_factory=dict)
    file_types: dict[str, str] = field(
        default_factory=dict
    )  # file id -> its Content-Type (default image/png)
    file_host_asks: list[dict] = field(default_factory=list)  # {"url", "headers"} of each file host request
    fixtures: dict[str, dict] = field(default_factory=dict)  # conversation id -> its own conversation JSON

    def __post_init__(self):
        self.base = chatgpt_api_fixture(self.fixture) if self.fixture else chatgpt_api_fixture()
        self.updated = {
            cid: f"2026-11-{1 + i % 28:02d}T10:00:00.{i:06d}Z" for i, cid in enumerate(self.all_ids())
        }

    def all_ids(self) -> list[str]:
        return self.main + self.archived + self.project

    def item(self, cid: str) -> dict:
        return {
            "id": cid,
            "title": f"Conversation {cid[:8]}",
            "create_time": "2026-10-01T00:00:00Z",
            "update_time": self.updated[cid],
        }

    def conversation(self, cid: str) -> dict:
        body = dict(self.fixtures.get(cid) or self.base)
        if self.file_of.get(cid):  # this conversation's own file: the fixture's file id replaced
            original, own = self.file_of[cid]
            body = json.loads(json.dumps(body).replace(original, own))
        body.update(conversation_id=cid, id=cid, title=f"Conversation {cid[:8]}")
        if cid in self.project:
            body["gizmo_id"] = PROJECT
        return body

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, object, dict[str, str]]:
        if path == "/backend-api/conversations":
            with self.lock:
                self.listed.append(path + "?" + "&".join(f"{k}={v}" for k, v in sorted(query.items())))
            ids = self.archived if query.get("is_archived") == "true" else self.main
            offset, limit = int(query.get("offset", 0)), min(int(query.get("limit", 28)), 100)
            page = ids[offset : offset + limit]
            return (
                200,
                {"items": [self.item(c) for c in page], "total": len(ids), "limit": limit, "offset": offset},
                {},
            )
        if path == "/backend-api/gizmos/snorlax/sidebar":
            with self.lock:
                self.listed.append(path)
            gizmo = {
                "id": PROJECT,
                "display": {"name": "Thesis"},
                "instructions": "Answer as a thesis advisor.",
            }
            return (
                200,
                {"items": [{"gizmo": {"gizmo": gizmo}, "conversations": {"items": []}}], "cursor": None},
                {},
            )
        if path == f"/backend-api/gizmos/{PROJECT}/conversations":
            with self.lock:
                self.listed.append(path)
            start = int(query.get("cursor") or 0)
            page = self.project[start : start + 20]
            nxt = str(start + 20) if start + 20 < len(self.project) else None
            return 200, {"items": [self.item(c) for c in page], "cursor": nxt}, {}
        match = re.fullmatch(r"/backend-api/conversation/([\w-]+)", path)
        if match and match.group(1) in self.updated:
            cid = match.group(1)
            with self.lock:
                if cid in self.limited:
                    self.fetched.append((time.monotonic(), cid, 429))
                    return 429, {"detail": "Too many requests"}, {"Retry-After": self.limited.pop(cid)}
                self.fetched.append((time.monotonic(), cid, 200))
            if cid in self.broken:
                return 200, {"detail": "something else"}, {}
            if cid in self.windowed:
                full = self.conversation(cid)
                messages = [n["message"] for n in full["mapping"].values() if n.get("message")][-2:]
                return 200, {"conversation_id": cid, "title": full["title"], "messages": messages}, {}
            return 200, self.conversation(cid), {}
        return 404, {"detail": "not found"}, {}

    def install(self, ctx) -> None:
        def handle(route):
            request = route.request
            path = request.url.removeprefix("https://chatgpt.com").partition("?")[0]
            if path == "/backend-api/estuary/content":  # the signed download URL: no token, the bytes
                file_id = request.url.rsplit("id=", 1)[-1]
                self.file_gets.append(file_id)
                route.fulfill(status=200, content_type="image/png", body=self.files[file_id])
                return
            match = re.fullmatch(r"/backend-api/files/download/([\w-]+)", path)
            if match and match.group(1) in self.files:
                url = self.file_urls.get(
                    match.group(1), f"https://chatgpt.com/backend-api/estuary/content?id={match.group(1)}"
                )
                body = {"status": "success", "download_url": url, "metadata": {}}
                route.fulfill(status=200, content_type="application/json", body=json.dumps(body))
                return
            if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}":
                route.fulfill(status=401, content_type="application/json", body='{"detail":"unauthorized"}')
                return
            path, _, raw = request.url.removeprefix("https://chatgpt.com").partition("?")
            query = dict(part.split("=", 1) for part in raw.split("&") if "=" in part)
            status, body, headers = self.answer(path, query)
            route.fulfill(
                status=status, content_type="application/json", body=json.dumps(body), headers=headers
            )

        ctx.route("https://chatgpt.com/backend-api/**", handle)

        def file_host(route):  # the signed URL on the file host: its bytes, with no token or cookie needed
            self.file_host_asks.append({"url": route.request.url, "headers": dict(route.request.headers)})
            by_url = {url: fid for fid, url in self.file_urls.items()}
            fid = by_url.get(route.request.url)
            if fid is None:
                route.fulfill(
                    status=403, content_type="application/xml", body="<Error>AuthenticationFailed</Error>"
                )
                return
            route.fulfill(
                status=200, content_type=self.file_types.get(fid, "image/png"), body=self.files[fid]
            )

        # the service worker downloads these (Playwright routes an extension worker's requests too)
        ctx.route(re.compile(r"^https://[a-z0-9-]+\.oaiusercontent\.com/"), file_host)

    def conversation_fetches(self, since: int = 0) -> list[str]:
        return [cid for _, cid, status in self.fetched[since:] if status == 200]


def ids(n: int, salt: str) -> list[str]:
    return [str(uuid.uuid5(uuid.NAMESPACE_URL, f"backup-test/{salt}/{i}")) for i in range(n)]


def open_site(browser, sites, origin: str):
    sites.pages[f"{origin}/"] = shell("<p>home</p>", "Home")
    expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
    sites.json_routes["https://chatgpt.com/api/auth/session$"] = (
        200,
        {"accessToken": ACCESS_TOKEN, "expires": expires},
    )
    page = browser.new_page()
    page.goto(f"{origin}/")
    return page


def grant_file_hosts_on_extensions_page(browser, extension_id: str) -> None:
    """Test-only, never shipped: what a user does in chrome://extensions (site access), through that page's own API.
    Chromium keeps it as a runtime grant; `permissions.contains` stays false until the extension's
    `permissions.request` (in the backup-all click) claims it, which then resolves true without a prompt (headless
    Chromium shows a prompt nobody can answer)."""
    page = browser.new_page()
    page.goto("chrome://extensions")
    page.evaluate(
        "([id, host]) => chrome.developerPrivate.addHostPermission(id, host)",
        [extension_id, "https://*.oaiusercontent.com/*"],
    )
    page.close()


def open_popup(browser, ext_url, policy: dict | None = None, file_hosts: bool = True):
    """The popup in a tab. `file_hosts`: the user has granted ChatGPT's file hosts (the optional permission the
    backup-all click asks for), so the click's request answers at once instead of prompting."""
    if file_hosts:
        grant_file_hosts_on_extensions_page(browser, ext_url("").split("/")[2])
    popup = browser.new_page()
    popup.goto(ext_url("popup/popup.html"))
    popup.evaluate("(p) => chrome.storage.local.set({backupTestPolicy: p})", policy or FAST)
    return popup


def progress(popup) -> dict:
    return popup.eval_on_selector(
        "[data-mnemosyne='backup-progress']", "n => ({...n.dataset, text: n.textContent})"
    )


def wait_state(popup, state: str, timeout_ms: int = 300_000) -> dict:
    try:
        popup.wait_for_function(
            "(s) => document.querySelector(\"[data-mnemosyne='backup-progress']\")?.dataset.state === s",
            arg=state,
            timeout=timeout_ms,
        )
    except Exception as error:
        raise AssertionError(f"not {state}: {progress(popup)}") from error
    return progress(popup)


def archive_ids(mnemo_cli, site: str) -> set[str]:
    listed = json.loads(mnemo_cli("list", "--source", site, "--limit", "0", "--json").stdout)
    return {item["source_id"] for item in listed}


def test_chatgpt_backup_of_1000_conversations_then_a_second_run_fetches_none(
    browser, sites, ext_url, mnemo_cli
):
    account = ChatgptAccount(main=ids(950, "main"), archived=ids(20, "archived"), project=ids(30, "project"))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url)

    started = time.monotonic()
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 900_000)
    seconds = time.monotonic() - started
    print(f"\nbackup of 1000 conversations: {seconds:.1f} s ({1000 / seconds:.1f} conversations/s)")

    assert (done["done"], done["skipped"], done["failed"], done["left"]) == ("1000", "0", "0", "0"), done
    assert re.search(r"\b1000\b.*\b0\b.*\b0\b.*\b0\b", done["text"]), done["text"]
    fetched = account.conversation_fetches()
    assert sorted(fetched) == sorted(account.all_ids()), "each conversation fetched exactly once"
    held = archive_ids(mnemo_cli, "chatgpt")
    assert set(account.all_ids()) <= held, (
        f"{len(set(account.all_ids()) - held)} conversations missing from the archive"
    )
    # 10 main pages + 1 archived page + the project sidebar + 2 project pages
    assert len(account.listed) == 14, account.listed

    # second run over the unchanged account: list requests only
    before, listed_before = len(account.fetched), len(account.listed)
    popup.click("[data-mnemosyne='backup-all']")
    popup.wait_for_function(
        "() => document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.skipped === '1000'"
        " && document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.state === 'done'",
        timeout=120_000,
    )
    assert account.fetched[before:] == [], "the second run fetched conversations"
    assert len(account.listed) - listed_before == 14


def stop_service_worker(browser, page) -> None:
    """Stop the extension's service worker as Chrome does when it idles: CDP ServiceWorker.stopWorker on its running
    version (seen from an extension page, whose storage partition the worker is in), then wait for "stopped"."""
    versions: dict[str, str] = {}
    cdp = browser.new_cdp_session(page)
    cdp.on(
        "ServiceWorker.workerVersionUpdated",
        lambda e: versions.update({v["versionId"]: v["runningStatus"] for v in e["versions"]}),
    )
    cdp.send("ServiceWorker.enable")
    page.wait_for_function("() => true")  # lets the enable's events arrive
    deadline = time.monotonic() + 10
    while "running" not in versions.values() and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    running = [vid for vid, status in versions.items() if status == "running"]
    assert running, versions
    cdp.send("ServiceWorker.stopWorker", {"versionId": running[0]})
    while versions[running[0]] != "stopped" and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    assert versions[running[0]] == "stopped", versions


def logged_run(mnemo_cli, state: str, timeout: float = 20) -> dict:
    """The latest run `mnemo sync-status` shows, once it has `state` (the extension reports it without waiting)."""
    deadline = time.monotonic() + timeout
    while True:
        runs = json.loads(mnemo_cli("sync-status", "--json").stdout)["runs"]
        if (runs and runs[0]["state"] == state) or time.monotonic() > deadline:
            assert runs and runs[0]["state"] == state, runs[:1]
            return runs[0]
        time.sleep(0.2)


def test_backup_survives_a_stopped_worker_a_429_and_a_broken_conversation(browser, sites, ext_url, mnemo_cli):
    account = ChatgptAccount(main=ids(60, "resume"))
    broken = account.main[7]
    account.broken.add(broken)
    limited = account.main[3]
    account.limited[limited] = "2"
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url, {**FAST, "spacingMs": 150})

    popup.click("[data-mnemosyne='backup-all']")
    popup.wait_for_function(
        "() => Number(document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.done) >= 20",
        timeout=60_000,
    )
    stop_service_worker(browser, popup)
    fetched_at_stop = len(account.conversation_fetches())
    done = wait_state(popup, "done", timeout_ms=120_000)

    assert (done["done"], done["failed"], done["left"]) == ("59", "1", "0"), done
    failures = popup.locator("[data-mnemosyne='backup-failures'] li")
    assert failures.count() == 1 and failures.first.get_attribute("data-reason") == "API_SHAPE"
    assert "does not read yet" in failures.first.text_content()  # said in words, the code in data-reason
    fetched = account.conversation_fetches()
    duplicates = {cid for cid in fetched if fetched.count(cid) > 1}
    assert len(duplicates) <= 1, f"re-fetched after the restart: {duplicates}"  # at most the one in flight
    assert len(fetched) > fetched_at_stop
    # the 429 was honoured: its retry came no sooner than Retry-After
    times = [(t, status) for t, cid, status in account.fetched if cid == limited]
    assert [s for _, s in times] == [429, 200]
    assert times[1][0] - times[0][0] >= 2.0
    held = archive_ids(mnemo_cli, "chatgpt")
    assert set(account.main) - {broken} <= held and broken not in held
    # the run was reported to the host (sync-log): `mnemo sync-status` shows it, with its failure
    run = logged_run(mnemo_cli, "done")
    assert run["counts"] == {"done": 59, "skipped": 0, "failed": 1, "left": 0}, run
    assert [(f["id"], f["reason"]) for f in run["failures"]] == [(broken, "API_SHAPE")]

    # the failure can be retried once the site answers
    account.broken.clear()
    popup.click("[data-mnemosyne='backup-retry']")
    popup.wait_for_function(
        "() => document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.failed === '0'"
        " && document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.state === 'done'",
        timeout=60_000,
    )
    assert broken in archive_ids(mnemo_cli, "chatgpt")


def test_pause_and_resume_from_the_popup(browser, sites, ext_url):
    account = ChatgptAccount(main=ids(40, "pause"))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url, {**FAST, "spacingMs": 100})
    popup.click("[data-mnemosyne='backup-all']")
    popup.wait_for_function(
        "() => Number(document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.done) >= 5",
        timeout=60_000,
    )
    popup.click("[data-mnemosyne='backup-pause']")
    paused = wait_state(popup, "paused", 10_000)
    settled = len(account.fetched)
    popup.wait_for_timeout(1000)  # a paused run makes no request (at most the one in flight finishes)
    assert len(account.fetched) - settled <= 1
    assert int(paused["left"]) > 0
    popup.click("[data-mnemosyne='backup-resume']")
    done = wait_state(popup, "done", 60_000)
    assert (done["done"], done["failed"]) == ("40", "0")
    assert len(account.conversation_fetches()) == 40


def claude_routes(browser, conversations: list[dict], project: dict) -> list[str]:
    """claude.ai's org, project and conversation endpoints for `conversations` (the first three in `project`)."""
    asked: list[str] = []

    def handle(route):
        path, _, query = route.request.url.removeprefix("https://claude.ai").partition("?")
        asked.append(path)
        org = f"/api/organizations/{CLAUDE_ORG}"
        body: object = {"error": "not found"}
        status = 200
        if path == "/api/organizations":
            body = [
                {"uuid": "api-only-org", "capabilities": ["api"]},
                {"uuid": CLAUDE_ORG, "capabilities": ["chat"]},
            ]
        elif path == f"{org}/projects":
            body = [project]
        elif path == f"{org}/projects/{project['uuid']}/docs":
            body = [{"filename": "style.md", "content": "Short sentences."}]
        elif path == f"{org}/chat_conversations_v2":
            params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
            offset, limit = int(params["offset"]), int(params["limit"])
            page = conversations[offset : offset + limit]
            body = {
                "data": [
                    {
                        "uuid": c["uuid"],
                        "name": c.get("name"),
                        "updated_at": c["updated_at"],
                        "project_uuid": c.get("project_uuid"),
                    }
                    for c in page
                ],
                "has_more": offset + limit < len(conversations),
            }
        elif path.startswith(f"{org}/chat_conversations/"):
            found = [c for c in conversations if c["uuid"] == path.rsplit("/", 1)[-1]]
            status, body = (200, found[0]) if found else (404, body)
        else:
            status = 404
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    browser.route("https://claude.ai/api/**", handle)
    return asked


def test_claude_backup_lists_organizations_and_projects(browser, sites, ext_url, mnemo_cli):
    base = claude_api_from_export(claude_export_conversation())
    project = {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "project")),
        "name": "Novel",
        "prompt_template": "Write tersely.",
    }
    conversations = []
    for i, cid in enumerate(ids(75, "claude")):
        conv = copy.deepcopy(base)
        conv.update(uuid=cid, name=f"Chat {i}", updated_at=f"2026-11-20T10:{i % 60:02d}:00Z")
        if i < 3:
            conv["project_uuid"] = project["uuid"]
        conversations.append(conv)
    asked = claude_routes(browser, conversations, project)
    sites.pages["https://claude.ai/"] = shell("<p>home</p>", "Claude")
    browser.new_page().goto("https://claude.ai/")
    popup = open_popup(browser, ext_url)
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 120_000)
    assert (done["done"], done["failed"]) == ("75", "0"), done
    assert sum(1 for p in asked if p.endswith("/chat_conversations_v2")) == 2  # 50 + 25, has_more paged
    shown = mnemo_cli("show", next(iter(sorted(archive_conversations(mnemo_cli, "Chat 0"))))).stdout
    assert "Write tersely." in shown or "Novel" in shown, shown[:2000]


def archive_conversations(mnemo_cli, title: str) -> set[str]:
    listed = json.loads(mnemo_cli("list", "--source", "claude", "--limit", "0", "--json").stdout)
    return {item["id"] for item in listed if item.get("title") == title}


def test_a_partial_reply_never_replaces_the_complete_copy(browser, sites, ext_url, mnemo_cli):
    account = ChatgptAccount(main=ids(6, "partial"))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url)
    popup.click("[data-mnemosyne='backup-all']")
    assert wait_state(popup, "done", 60_000)["done"] == "6"
    before = {
        item["source_id"]: item for item in json.loads(mnemo_cli("list", "--limit", "0", "--json").stdout)
    }

    # the site changes one conversation and now answers only a window of its latest messages
    target = account.main[2]
    account.updated[target] = "2026-11-30T23:59:59.000000Z"
    account.windowed.add(target)
    popup.click("[data-mnemosyne='backup-all']")
    popup.wait_for_function(
        "() => document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.skipped === '6'"
        " && document.querySelector(\"[data-mnemosyne='backup-progress']\").dataset.state === 'done'",
        timeout=60_000,
    )
    done = progress(popup)
    assert (done["done"], done["failed"]) == ("0", "0"), done  # kept: skipped with its reason, not a failure
    assert account.conversation_fetches()[-1] == target
    kept = popup.locator("[data-mnemosyne='backup-kept'] li")
    assert kept.count() == 1 and kept.first.get_attribute("data-id") == target
    after = {
        item["source_id"]: item for item in json.loads(mnemo_cli("list", "--limit", "0", "--json").stdout)
    }
    assert after[target]["message_count"] == before[target]["message_count"] > 2


def test_without_the_host_the_run_pauses_on_its_first_conversation(browser_without_host, sites, ext_url):
    account = ChatgptAccount(main=ids(5, "nohost"))
    account.install(browser_without_host)
    open_site(browser_without_host, sites, "https://chatgpt.com")
    popup = open_popup(browser_without_host, ext_url)
    popup.click("[data-mnemosyne='backup-all']")
    paused = wait_state(popup, "paused", 60_000)
    assert (paused["done"], paused["failed"], paused["left"]) == ("0", "0", "5"), paused
    # plain words and the set-up path, not the code
    assert paused["reason"] == "HOST_NOT_FOUND" and "HOST_NOT_FOUND" not in paused["text"], paused
    assert "helper app is not set up" in paused["text"], paused
    setup = popup.locator("[data-mnemosyne='setup']")
    assert "mnemo install --browser all" in setup.inner_text()
    assert (
        account.conversation_fetches() == account.main[:1]
    )  # nothing more is read while the archive is away
    assert popup.locator("[data-mnemosyne='backup-resume']").is_visible()


def test_a_signed_out_site_pauses_the_run_with_the_reason(browser, sites, ext_url, mnemo_cli):
    account = ChatgptAccount(main=ids(3, "signedout"))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    sites.json_routes["https://chatgpt.com/api/auth/session$"] = (401, {"detail": "signed out"})
    popup = open_popup(browser, ext_url)
    popup.click("[data-mnemosyne='backup-all']")
    paused = wait_state(popup, "paused", 60_000)
    assert paused["reason"] == "HTTP_401" and "sign in on the site" in paused["text"], paused
    assert "HTTP_401" not in paused["text"] and account.fetched == [], paused
    assert logged_run(mnemo_cli, "paused")["counts"]["done"] == 0
