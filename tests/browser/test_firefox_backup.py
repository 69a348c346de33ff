"""Back up everything in Firefox ESR (WebDriver BiDi), with the real host: the library's backup-all lists a served
ChatGPT account (list pages, archived chats, projects) through the chatgpt.com tab's content script, saves every
conversation into the archive, and a second run fetches none; a 1,000-conversation account (the Chromium test's
account) syncs completely; a background script stopped mid-run (as about:debugging's "Terminate background script"
does) resumes from storage.local without re-fetching what was saved."""

from __future__ import annotations

import base64
import contextlib
import json
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import pytest
from ext_fakesite import ACCESS_TOKEN, FakeSites, chatgpt_api_fixture, shell
from test_backup import ChatgptAccount
from test_firefox import ADDON_ID, FIREFOX, firefox, serve_intercepts

from conftest import EXTENSION_DIR
from support.cli import mnemo

pytestmark = pytest.mark.browser


@dataclass
class ServedChatgpt:
    """A ChatGPT account served through the fake-site tables (the Firefox test's BiDi intercepts answer from them)."""

    main: list[str]
    archived: list[str] = field(default_factory=list)
    broken: set[str] = field(default_factory=set)  # answer 200 without a mapping
    limited: dict[str, str] = field(default_factory=dict)  # id -> Retry-After of one 429 before it answers
    windowed: set[str] = field(default_factory=set)  # answer the plural endpoint's window (a partial capture)
    log: list[tuple[float, str, int]] = field(default_factory=list)  # (time, id, status) per conversation GET
    fixtures: dict[str, dict] = field(default_factory=dict)  # id -> its own conversation JSON
    files: dict[str, tuple[str, bytes]] = field(
        default_factory=dict
    )  # file id -> (type, bytes) on the file host
    file_origin: str = "https://files.oaiusercontent.com"  # where download_url points

    def __post_init__(self):
        self.base = chatgpt_api_fixture()
        ids = self.main + self.archived
        self.updated = {cid: f"2026-11-{i + 1:02d}T08:00:00Z" for i, cid in enumerate(ids)}

    def fetched(self) -> list[str]:
        return [cid for _, cid, status in self.log if status == 200]

    def install(self, sites: FakeSites) -> None:
        expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
        sites.pages["https://chatgpt.com/"] = shell("<p>home</p>", "ChatGPT")
        sites.json_routes["https://chatgpt.com/api/auth/session$"] = (
            200,
            {"accessToken": ACCESS_TOKEN, "expires": expires},
        )
        sites.json_routes["https://chatgpt.com/backend-api/conversations$"] = (200, self.listing)
        sites.json_routes["https://chatgpt.com/backend-api/gizmos/snorlax/sidebar$"] = (
            200,
            {"items": [], "cursor": None},
        )
        sites.json_routes["https://chatgpt.com/backend-api/conversation/"] = (200, self.conversation)
        sites.json_routes["https://chatgpt.com/backend-api/files/download/"] = (200, self.file_download)
        self.install_file = sites.files.__setitem__  # serve one more file URL later
        for fid, served in self.files.items():
            sites.files[self.file_url(fid)] = served

    def file_url(self, fid: str) -> str:
        return f"{self.file_origin}/{fid}?se=2026-12-02T10%3A00%3A00Z&sp=r&sig=c2lnbmVk"

    def file_download(self, request):
        fid = urlsplit(request.url).path.rsplit("/", 1)[-1]
        if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}" or fid not in self.files:
            return 404, {"status": "error", "error_code": "file_not_found"}
        return 200, {"status": "success", "download_url": self.file_url(fid), "metadata": {}}

    def listing(self, request):
        query = {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}
        ids = self.archived if query.get("is_archived") == "true" else self.main
        offset, limit = (
            int(query["offset"]),
            5,
        )  # the site may answer fewer than asked: paging follows `total`
        page = ids[offset : offset + limit]
        items = [{"id": c, "title": f"Chat {c[:6]}", "update_time": self.updated[c]} for c in page]
        return 200, {"items": items, "total": len(ids), "limit": limit, "offset": offset}

    def conversation(self, request):
        cid = urlsplit(request.url).path.rsplit("/", 1)[-1]
        if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}" or cid not in self.updated:
            return 404, {"detail": "not found"}
        if cid in self.limited:
            self.log.append((time.monotonic(), cid, 429))
            return 429, {"detail": "Too many requests"}, {"retry-after": self.limited.pop(cid)}
        self.log.append((time.monotonic(), cid, 200))
        if cid in self.broken:
            return 200, {"detail": "something else"}
        full = {
            **self.fixtures.get(cid, self.base),
            "conversation_id": cid,
            "id": cid,
            "title": f"Chat {cid[:6]}",
        }
        if cid in self.windowed:
            messages = [n["message"] for n in full["mapping"].values() if n.get("message")][-2:]
            return 200, {"conversation_id": cid, "title": full["title"], "messages": messages}
        return 200, full


PROGRESS = "document.querySelector('[data-mnemosyne=backup-progress]')"


@contextlib.contextmanager
def library_with_account(
    tmp_path,
    env,
    account: ServedChatgpt,
    policy: dict | None = None,
    grant_optional_permissions: bool = False,
):
    """Firefox with a chatgpt.com tab on the served account and the library open: (bidi, library, env)."""
    with firefox(tmp_path, env, grant_optional_permissions) as (bidi, internal, ff_env):
        sites = FakeSites()
        account.install(sites)
        serve_intercepts(bidi, sites)
        site_tab = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call(
            "browsingContext.navigate",
            {"context": site_tab, "url": "https://chatgpt.com/", "wait": "complete"},
        )
        library = bidi.call("browsingContext.create", {"type": "tab"})["context"]
        bidi.call(
            "browsingContext.navigate",
            {
                "context": library,
                "url": f"moz-extension://{internal}/library/library.html",
                "wait": "complete",
            },
        )
        policy = policy or {"spacingMs": 0, "burst": 100000, "refillPerMinute": 100000}
        bidi.evaluate(library, f"browser.storage.local.set({{backupTestPolicy: {json.dumps(policy)}}})")
        yield bidi, library, ff_env


def user_click(bidi, context: str, selector: str) -> None:
    """A real pointer click (user input) on `selector`, as the user's click that may ask for a permission."""
    found = bidi.call(
        "script.evaluate",
        {
            "expression": f"document.querySelector({json.dumps(selector)})",
            "target": {"context": context},
            "awaitPromise": False,
            "resultOwnership": "root",
        },
    )
    element = {"sharedId": found["result"]["sharedId"]}
    pointer = [
        {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": element}},
        {"type": "pointerDown", "button": 0},
        {"type": "pointerUp", "button": 0},
    ]
    bidi.call(
        "input.performActions",
        {"context": context, "actions": [{"type": "pointer", "id": "mouse", "actions": pointer}]},
    )
    bidi.call("input.releaseActions", {"context": context})


def run_backup(bidi, library, until: str = "true", timeout: float = 120, user: bool = False) -> dict:
    """Click backup-all and wait for the run to be done (and `until`, a JS condition on `p`, the progress).
    A script's click unless `user`: no user input, so the click's request for the file hosts is refused."""
    if user:
        user_click(bidi, library, "[data-mnemosyne=backup-all]")
    else:
        bidi.evaluate(library, "document.querySelector('[data-mnemosyne=backup-all]').click()")
    state = bidi.wait_for(
        library,
        f"(() => {{ const p = {PROGRESS}; return p.dataset.state === 'done' && ({until})"
        " ? JSON.stringify({...p.dataset, text: p.textContent}) : ''; })()",
        timeout=timeout,
    )
    return json.loads(state)


def run_backup_done(bidi, library, timeout: float) -> dict:
    """Wait for the run already started to be done: its progress."""
    state = bidi.wait_for(
        library,
        f"(() => {{ const p = {PROGRESS}; return p.dataset.state === 'done'"
        " ? JSON.stringify({...p.dataset, text: p.textContent}) : ''; })()",
        timeout=timeout,
    )
    return json.loads(state)


def held(ff_env) -> dict[str, dict]:
    listed = json.loads(mnemo(ff_env, "list", "--source", "chatgpt", "--limit", "0", "--json").stdout)
    return {item["source_id"]: item for item in listed}


def ids(n: int, salt: str) -> list[str]:
    return [str(uuid.uuid5(uuid.NAMESPACE_URL, f"ff-backup/{salt}/{i}")) for i in range(n)]


class ServedAccount(ServedChatgpt):
    """The Chromium tests' ChatgptAccount (main list paged by offset, archived, a project with cursor paging) served
    through the fake-site tables, so both browsers sync the same account shape."""

    def __init__(self, account: ChatgptAccount):
        super().__init__(main=[])
        self.account = account

    def install(self, sites: FakeSites) -> None:
        super().install(sites)
        for route in list(sites.json_routes):
            if route.startswith("https://chatgpt.com/backend-api/"):
                del sites.json_routes[route]
        sites.json_routes["https://chatgpt.com/backend-api/"] = (200, self.answer)

    def answer(self, request):
        if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}":
            return 401, {"detail": "unauthorized"}
        path, _, raw = request.url.removeprefix("https://chatgpt.com").partition("?")
        return self.account.answer(path, {k: v[0] for k, v in parse_qs(raw).items()})


def chrome_context(bidi) -> str:
    """The browser window's own (chrome) context: --remote-allow-system-access lets BiDi evaluate there."""
    return bidi.call("browsingContext.getTree", {"moz:scope": "chrome"})["contexts"][0]["context"]


def terminate_background(bidi, library: str) -> None:
    """Stop the event page for real, from Firefox's parent process. Neither the idle timeout
    (`extensions.background.idle.timeout`) nor about:debugging's "Terminate background script" stops it mid-run:
    Firefox exempts an event page whose native messaging port is open (the host's), so this is
    `terminateBackground({disableResetIdleForTest: true})`, Firefox's own test switch past that exemption. The
    instance that is stopped gets a mark on its global first (`same_background` tells whether a later one still has
    it). Nothing the test does wakes it again: the library follows storage.onChanged; the extension's alarms do."""
    bidi.evaluate(library, "browser.runtime.getBackgroundPage().then((w) => { w.mnemoTestStopped = true; })")
    state = bidi.evaluate(
        chrome_context(bidi),
        "(async () => { const {ExtensionParent} = ChromeUtils.importESModule("
        "'resource://gre/modules/ExtensionParent.sys.mjs');"
        f" const id = {json.dumps(ADDON_ID)};"
        " const extension = ExtensionParent.GlobalManager.extensionMap.get(id);"
        " await extension.terminateBackground({disableResetIdleForTest: true});"
        " return JSON.stringify([extension.backgroundState,"
        " ExtensionParent.DebugUtils.isBackgroundScriptRunning(id)]); })()",
    )
    assert json.loads(state["value"]) == ["stopped", False], state


def same_background(bidi, library: str) -> bool:
    """Whether the running background script is the instance `terminate_background` marked (False: a new one)."""
    marked = bidi.evaluate(
        library, "browser.runtime.getBackgroundPage().then((w) => w.mnemoTestStopped === true)"
    )
    return marked["value"]


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_backup_all_from_the_library(tmp_path, env):
    account = ServedChatgpt(main=ids(11, "main"), archived=ids(1, "archived"))
    with library_with_account(tmp_path, env, account) as (bidi, library, ff_env):
        counts = run_backup(bidi, library)
        assert (counts["done"], counts["skipped"], counts["failed"], counts["left"]) == (
            "12",
            "0",
            "0",
            "0",
        ), counts
        assert sorted(account.fetched()) == sorted(account.main + account.archived)
        assert set(held(ff_env)) == set(account.main + account.archived)

        # a second run over the unchanged account fetches no conversation
        run_backup(bidi, library, until="p.dataset.skipped === '12'", timeout=60)
        assert len(account.fetched()) == 12, account.fetched()


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_backup_waits_out_a_429_and_reports_a_broken_conversation(tmp_path, env):
    account = ServedChatgpt(main=ids(8, "limits"))
    limited, broken = account.main[2], account.main[5]
    account.limited[limited] = "2"
    account.broken.add(broken)
    policy = {"spacingMs": 0, "burst": 100000, "refillPerMinute": 100000, "baseBackoffMs": 200}
    with library_with_account(tmp_path, env, account, policy) as (bidi, library, ff_env):
        counts = run_backup(bidi, library)
        assert (counts["done"], counts["failed"], counts["left"]) == ("7", "1", "0"), counts
        # the 429 paused the run for its Retry-After, then the same conversation was asked again and saved
        asked = [(t, status) for t, cid, status in account.log if cid == limited]
        assert [status for _, status in asked] == [429, 200]
        assert asked[1][0] - asked[0][0] >= 2.0, asked
        # the broken one is listed with its reason; every other conversation is in the archive
        failures = bidi.evaluate(
            library,
            "JSON.stringify([...document.querySelectorAll('[data-mnemosyne=backup-failures] li')]"
            ".map((li) => [li.dataset.id, li.dataset.reason, li.textContent]))",
        )
        # the code in data-reason, the words in the text
        assert [
            (cid, reason, "does not read yet" in text) for cid, reason, text in json.loads(failures["value"])
        ] == [(broken, "API_SHAPE", True)], failures
        assert set(held(ff_env)) == set(account.main) - {broken}
        runs = json.loads(mnemo(ff_env, "sync-status", "--json").stdout)["runs"]
        assert runs[0]["counts"] == {"done": 7, "skipped": 0, "failed": 1, "left": 0}, runs[0]
        assert [(f["id"], f["reason"]) for f in runs[0]["failures"]] == [(broken, "API_SHAPE")]


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_a_partial_reply_never_replaces_the_complete_copy(tmp_path, env):
    account = ServedChatgpt(main=ids(4, "partial"))
    with library_with_account(tmp_path, env, account) as (bidi, library, ff_env):
        assert run_backup(bidi, library)["done"] == "4"
        before = held(ff_env)

        # the site changes one conversation and now answers only a window of its latest messages
        target = account.main[1]
        account.updated[target] = "2026-11-30T23:59:59Z"
        account.windowed.add(target)
        counts = run_backup(bidi, library, until="p.dataset.skipped === '4'", timeout=60)
        assert (counts["done"], counts["failed"]) == ("0", "0"), counts  # kept: skipped with its reason
        assert account.fetched()[-1] == target and len(account.fetched()) == 5
        kept = bidi.evaluate(
            library,
            "JSON.stringify([...document.querySelectorAll('[data-mnemosyne=backup-kept] li')].map((li) => li.dataset.id))",
        )
        assert json.loads(kept["value"]) == [target]
        after = held(ff_env)
        assert after[target]["message_count"] == before[target]["message_count"] > 2
        assert after[target]["saved_at"] == before[target]["saved_at"]


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_backup_stores_an_upload_and_may_fetch_chatgpts_file_host(tmp_path, env):
    """Firefox: the upload is downloaded through the tab (a same-origin download_url) and exported with its bytes.
    The cross-origin case (files.oaiusercontent.com, fetched by the background script) cannot be served here:
    WebDriver BiDi's intercepts do not see a background script's requests. What it rests on is checked from an
    extension page instead, which has the background's origin, CSP and host permissions: the optional host
    permission is not held before the user's backup-all click, is granted by it, and the worker's own download
    function then fetches the file host's URL."""
    account = ServedChatgpt(
        main=ids(2, "files"), file_origin="https://chatgpt.com/backend-api/estuary/content"
    )
    account.fixtures[account.main[0]] = chatgpt_api_fixture(
        "0073-Fuel_pressure_regulator_issue-69077245-2894-8331-a428-10383a91ac88.json"
    )
    photo = (EXTENSION_DIR / "icons" / "icon128.png").read_bytes()
    account.files["file_0000000042e4723083df68cff588d1f1"] = ("image/jpeg", photo)
    policy = {
        "spacingMs": 0,
        "burst": 100000,
        "refillPerMinute": 100000,
        "baseBackoffMs": 100,
        "maxBackoffMs": 200,
    }
    file_hosts = "browser.permissions.contains({origins: ['https://files.oaiusercontent.com/*']})"
    with library_with_account(tmp_path, env, account, policy, grant_optional_permissions=True) as (
        bidi,
        library,
        ff_env,
    ):
        assert bidi.evaluate(library, file_hosts) == {"type": "boolean", "value": False}
        counts = run_backup(bidi, library, user=True)
        warnings = bidi.evaluate(
            library,
            "JSON.stringify([...document.querySelectorAll('[data-mnemosyne=backup-file-warnings] li')]"
            ".map((li) => li.textContent))",
        )["value"]
        assert (counts["done"], counts["failed"]) == ("2", "0"), counts
        assert "files: 1 saved, 0 not saved" in counts["text"], (counts["text"], warnings)
        mnemo(ff_env, "export", str(tmp_path / "export"))
        written = {p.name: p.read_bytes() for p in (tmp_path / "export").glob("*.files/*")}
        assert written == {"img-f5daf224-905a-4e58-8bc3-29080a6d8f22.jpeg": photo}, sorted(written)

        account.file_origin = "https://files.oaiusercontent.com"
        probe = account.file_url("file-host-probe")
        account.install_file(probe, ("image/png", photo[:100]))
        assert bidi.evaluate(library, file_hosts) == {"type": "boolean", "value": True}
        fetched = bidi.evaluate(
            library,
            f"import('/background/file_download.js').then((m) => m.downloadFileUrl({json.dumps(probe)}, 1000000))"
            ".then(JSON.stringify)",
        )
        reply = json.loads(fetched["value"])
        assert reply["ok"] and base64.b64decode(reply["data"]["data"]) == photo[:100], reply


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_backup_of_1000_conversations_then_a_second_run_fetches_none(tmp_path, env):
    account = ChatgptAccount(main=ids(950, "main"), archived=ids(20, "archived"), project=ids(30, "project"))
    policy = {"spacingMs": 0, "burst": 1_000_000, "refillPerMinute": 1_000_000}
    with library_with_account(tmp_path, env, ServedAccount(account), policy) as (bidi, library, ff_env):
        started = time.monotonic()
        counts = run_backup(bidi, library, timeout=600)
        seconds = time.monotonic() - started
        print(
            f"\nFirefox backup of 1000 conversations: {seconds:.1f} s ({1000 / seconds:.1f} conversations/s)"
        )
        assert (counts["done"], counts["skipped"], counts["failed"], counts["left"]) == (
            "1000",
            "0",
            "0",
            "0",
        ), counts
        assert sorted(account.conversation_fetches()) == sorted(account.all_ids()), "each fetched once"
        saved = held(ff_env)
        assert set(saved) == set(account.all_ids()), len(set(account.all_ids()) - set(saved))
        project = {cid for cid, item in saved.items() if item.get("project") == "Thesis"}
        assert project == set(account.project), len(project)
        # 10 main pages + 1 archived page + the project sidebar + 2 project pages
        assert len(account.listed) == 14, account.listed

        # a second run over the unchanged account: list requests only
        fetched, listed = len(account.fetched), len(account.listed)
        run_backup(bidi, library, until="p.dataset.skipped === '1000'", timeout=120)
        assert account.fetched[fetched:] == [], "the second run fetched conversations"
        assert len(account.listed) - listed == 14


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_backup_resumes_after_the_background_script_is_stopped(tmp_path, env):
    """Stopped twice: once while a conversation may be in flight, once while it waits out a 429's Retry-After (its
    wake alarm armed). Each time Firefox reports the event page stopped and a new instance carries on; the run finishes, fetching each
    conversation once (at most the one in flight twice) and asking the limited one no sooner than Retry-After."""
    account = ChatgptAccount(main=ids(40, "resume"))
    limited = account.main[30]
    account.limited[limited] = "3"
    policy = {"spacingMs": 100, "burst": 1_000_000, "refillPerMinute": 1_000_000, "baseBackoffMs": 200}
    with library_with_account(tmp_path, env, ServedAccount(account), policy) as (bidi, library, ff_env):
        bidi.evaluate(library, "document.querySelector('[data-mnemosyne=backup-all]').click()")
        bidi.wait_for(library, f"Number({PROGRESS}.dataset.done) >= 10 ? 'yes' : ''", timeout=60)
        terminate_background(bidi, library)
        at_first_stop = len(account.conversation_fetches())

        # the 429 is committed to the run and the wake alarm for its Retry-After is armed: stop it again
        bidi.wait_for(
            library,
            "Promise.all([browser.storage.local.get('backupRun'), browser.alarms.get('backup-wake')])"
            ".then(([{backupRun: r}, alarm]) => r?.rate?.lastStatus === 429 && alarm"
            " && alarm.scheduledTime > Date.now() + 500 ? 'waiting' : '')",
            timeout=90,
        )
        assert not same_background(bidi, library), "the first stop did not stop the background script"
        terminate_background(bidi, library)
        at_second_stop = len(account.conversation_fetches())

        counts = run_backup_done(bidi, library, timeout=120)
        assert (counts["done"], counts["failed"], counts["left"]) == ("40", "0", "0"), counts
        fetched = account.conversation_fetches()
        assert at_first_stop < at_second_stop < len(fetched), (at_first_stop, at_second_stop, len(fetched))
        again = {cid for cid in fetched if fetched.count(cid) > 1}
        assert len(again) <= 1 and set(fetched) == set(account.main), f"re-fetched after a stop: {again}"
        asked = [(t, status) for t, cid, status in account.fetched if cid == limited]
        assert [status for _, status in asked] == [429, 200], asked
        assert asked[1][0] - asked[0][0] >= 3.0, asked
        assert set(held(ff_env)) == set(account.main)
        assert not same_background(bidi, library), "the second stop did not stop the background script"
