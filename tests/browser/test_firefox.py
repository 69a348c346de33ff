"""Firefox: the same extension directory installs as a temporary add-on and its background script talks to
the real native host, driven over WebDriver BiDi (no geckodriver offline; websockets' sync client). Served
chatgpt.com / claude.ai conversations (network.addIntercept + network.provideResponse, the Chromium tests'
fake-site tables) get the Export button, and a click saves them through the Firefox native host into the real
archive: through each site's API, and through the DOM fallback when the API routes are forbidden."""

from __future__ import annotations

import contextlib
import itertools
import json
import shutil
import socket
import subprocess
import time
import uuid
from types import SimpleNamespace

import pytest
from ext_fakesite import (
    ACCESS_TOKEN,
    CLAUDE_ORG,
    FIXTURES,
    FakeSites,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    shell,
    strip_scripts,
)

from conftest import EXTENSION_DIR
from support.cli import mnemo

pytestmark = pytest.mark.browser
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
ADDON_ID = "mnemosyne@mnemosyne.org"


class Bidi:
    """A minimal synchronous WebDriver BiDi client. Events that arrive while a command waits for its reply go
    to `on_event`, which may answer them with `send` (fire and forget: an error reply fails the test)."""

    def __init__(self, ws):
        self.ws = ws
        self.ids = itertools.count(1)
        self.on_event = lambda method, params: None
        self.unanswered: set[int] = set()

    def send(self, method: str, params: dict) -> int:
        command_id = next(self.ids)
        self.ws.send(json.dumps({"id": command_id, "method": method, "params": params}))
        return command_id

    def answer(self, method: str, params: dict) -> None:
        self.unanswered.add(self.send(method, params))

    def call(self, method: str, params: dict, timeout: float = 30):
        command_id = self.send(method, params)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("type") == "event":
                self.on_event(message["method"], message["params"])
            elif message.get("type") == "error" and message.get("id") in self.unanswered | {command_id}:
                raise AssertionError(f"{method}: {message.get('error')}: {message.get('message')}")
            elif message.get("id") == command_id:
                return message["result"]
        raise TimeoutError(method)

    def evaluate(self, context: str, expression: str):
        result = self.call(
            "script.evaluate",
            {
                "expression": expression,
                "target": {"context": context},
                "awaitPromise": True,
                "resultOwnership": "none",
            },
        )
        if result.get("type") == "exception":
            raise AssertionError(result["exceptionDetails"].get("text"))
        return result["result"]

    def wait_for(self, context: str, expression: str, timeout: float = 30):
        """Poll an expression until it gives a non-empty string (events keep being served meanwhile)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(context, expression).get("value")
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(expression)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def firefox(tmp_path, env):
    """Headless Firefox with the real host registered for HOME=tmp: yields (BiDi client, add-on UUID, env)."""
    home = tmp_path / "home"
    profile = tmp_path / "ff-profile"
    profile.mkdir(parents=True)
    ff_env = {**env, "HOME": str(home)}
    mnemo(ff_env, "install", "--browser", "firefox")
    host_manifest = json.loads(
        (home / ".mozilla" / "native-messaging-hosts" / "org.mnemosyne.host.json").read_text()
    )
    assert host_manifest["allowed_extensions"] == [ADDON_ID] and "allowed_origins" not in host_manifest

    internal = str(uuid.uuid4())
    (profile / "user.js").write_text(
        f'user_pref("extensions.webextensions.uuids", {json.dumps(json.dumps({ADDON_ID: internal}))});\n'
        'user_pref("browser.shell.checkDefaultBrowser", false);\n'
        'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n',
        encoding="utf-8",
    )
    port = free_port()
    process = subprocess.Popen(
        [
            FIREFOX,
            "--headless",
            "--no-remote",
            "--profile",
            str(profile),
            "--remote-debugging-port",
            str(port),
            "--remote-allow-system-access",
        ],
        env=ff_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        from websockets.sync.client import connect

        connection = None
        for _ in range(100):
            try:
                connection = connect(f"ws://127.0.0.1:{port}/session", max_size=None, open_timeout=10)
                break
            except OSError:
                time.sleep(0.2)
        assert connection, "Firefox did not open its BiDi port"
        with connection as ws:
            bidi = Bidi(ws)
            bidi.call("session.new", {"capabilities": {}})
            installed = bidi.call(
                "webExtension.install", {"extensionData": {"type": "path", "path": str(EXTENSION_DIR)}}
            )
            assert installed["extension"] == ADDON_ID
            yield bidi, internal, ff_env
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_addon_installs_and_background_talks_to_host(tmp_path, env):
    with firefox(tmp_path, env) as (bidi, internal, _):
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call(
            "browsingContext.navigate",
            {"context": context, "url": f"moz-extension://{internal}/popup/popup.html", "wait": "complete"},
        )
        hello = bidi.evaluate(
            context, "browser.runtime.sendMessage({type: 'hello'}).then(r => JSON.stringify(r))"
        )
        reply = json.loads(hello["value"])
        assert reply["ok"] is True, reply
        assert reply["data"]["protocol"] == 1 and reply["data"]["archive"]["state"] == "ready"
        listing = json.loads(
            bidi.evaluate(
                context, "browser.runtime.sendMessage({type: 'list'}).then(r => JSON.stringify(r))"
            )["value"]
        )
        assert listing == {"ok": True, "data": {"items": [], "next_cursor": None}}
        # the popup rendered from the host's answer, in the page's own text
        status = bidi.evaluate(context, "document.getElementById('status').textContent")["value"]
        assert "empty" in status


def serve_intercepts(bidi: Bidi, sites: FakeSites) -> None:
    """Answer every web request from the fake-site tables and fail the ones they do not serve (offline: a saved
    page's iframes to other hosts must not reach the network, whose refusal also fails the navigation)."""

    def on_event(method: str, params: dict) -> None:
        if method != "network.beforeRequestSent" or not params.get("isBlocked"):
            return
        request = params["request"]
        headers = {h["name"].lower(): h["value"].get("value", "") for h in request.get("headers", [])}
        is_document = bool(params.get("navigation")) or request.get("destination") == "document"
        answer = sites.answer(SimpleNamespace(url=request["url"], headers=headers), is_document=is_document)
        if answer is None:
            bidi.answer("network.failRequest", {"request": request["request"]})
            return
        status, content_type, body = answer
        bidi.answer(
            "network.provideResponse",
            {
                "request": request["request"],
                "statusCode": status,
                "reasonPhrase": "OK" if status == 200 else "Error",
                "headers": [{"name": "content-type", "value": {"type": "string", "value": content_type}}],
                "body": {"type": "string", "value": body},
            },
        )

    bidi.on_event = on_event
    bidi.call("session.subscribe", {"events": ["network.beforeRequestSent"]})
    bidi.call(
        "network.addIntercept",
        {
            "phases": ["beforeRequestSent"],
            "urlPatterns": [{"type": "pattern", "protocol": scheme} for scheme in ("https", "http")],
        },
    )


SHADOW = "document.querySelector(\"mnemosyne-ui[data-mnemosyne-host='{host}']\")?.shadowRoot"
BAR = f"({SHADOW.format(host='bar')} ?? {SHADOW.format(host='floating-bar')})"
TOAST = f"({SHADOW.format(host='overlay')})?.querySelector(\"[data-mnemosyne='toast']\")"


def open_and_export(bidi: Bidi, url: str) -> dict:
    """Open a served conversation, click Export, and return the final toast's dataset and text."""
    context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
    bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
    return export_in_page(bidi, context)


def export_in_page(bidi: Bidi, context: str) -> dict:
    label = bidi.wait_for(context, f"{BAR}?.querySelector(\"[data-mnemosyne='export']\")?.textContent")
    assert label.strip() == "Export"
    # the button lives in an open shadow root: a click from the page reaches the content script's listener
    bidi.evaluate(context, f"{BAR}.querySelector(\"[data-mnemosyne='export']\").click()")
    state = bidi.wait_for(context, f"{TOAST}?.dataset.state === 'progress' ? '' : {TOAST}?.dataset.state")
    detail = json.loads(
        bidi.evaluate(context, f"JSON.stringify({{...{TOAST}.dataset, text: {TOAST}.textContent}})")["value"]
    )
    assert state == "success", detail
    return detail


def shown_json(env: dict[str, str], conversation_id: str) -> dict:
    return json.loads(mnemo(env, "show", conversation_id, "--json").stdout)


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_export_button_saves_a_served_chatgpt_conversation(tmp_path, env):
    sites = FakeSites()
    api = chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    url = sites.chatgpt_conversation(api["conversation_id"], html, api)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        detail = open_and_export(bidi, url)
        assert detail["path"] == "api" and detail["status"] == "created", detail

    assert any(
        seen["url"].endswith(f"/backend-api/conversation/{api['conversation_id']}")
        and seen["headers"].get("authorization") == f"Bearer {ACCESS_TOKEN}"
        for seen in sites.seen
    )
    listing = json.loads(mnemo(ff_env, "list", "--json").stdout)
    assert [(item["site"], item["title"], item["id"]) for item in listing] == [
        ("chatgpt", api["title"], detail["conversationId"])
    ]
    assert listing[0]["message_count"] >= 2
    shown = json.loads(mnemo(ff_env, "show", detail["conversationId"], "--format", "portable").stdout)
    assert shown["source"]["site"] == "chatgpt"


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_exports_a_claude_conversation_through_the_api_with_the_org_cookie(tmp_path, env):
    sites = FakeSites()
    api = claude_api_from_export(claude_export_conversation())
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_edges_claude_001.html").read_text(encoding="utf-8"))
    url = sites.claude_conversation(shell(body, "Research question - Claude"), api)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
        # claude.ai keeps the active org in a page-readable cookie: the content script reads it in Firefox too
        bidi.evaluate(context, f"document.cookie = 'lastActiveOrg={CLAUDE_ORG}; path=/; secure'")
        detail = export_in_page(bidi, context)
        assert detail["path"] == "api" and detail["status"] == "created", detail

    asked = [seen["url"] for seen in sites.seen if "/chat_conversations/" in seen["url"]]
    assert asked and asked[0].startswith(
        f"https://claude.ai/api/organizations/{CLAUDE_ORG}/chat_conversations/{api['uuid']}?"
    )
    assert "tree=True" in asked[0] and "rendering_mode=messages" in asked[0]
    # the cookie named the org: no organizations listing was needed
    assert not [
        seen for seen in sites.seen if seen["url"].split("?")[0] == "https://claude.ai/api/organizations"
    ]
    listing = json.loads(mnemo(ff_env, "list", "--json").stdout)
    assert [(item["site"], item["title"], item["id"]) for item in listing] == [
        ("claude", "Code Execution with Tools", detail["conversationId"])
    ]
    assert listing[0]["message_count"] > 0
    conversation = shown_json(ff_env, detail["conversationId"])
    assert conversation["provenance"]["method"] == "site_api"
    tool_calls = [p for m in conversation["messages"] for p in m["parts"] if p["type"] == "tool_call"]
    assert len(tool_calls) == 2  # as in the Chromium API test of the same export


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_chatgpt_dom_fallback_when_api_forbidden_keeps_code_language(tmp_path, env):
    # the page of the Chromium partial-thread test: conversation-turn-9 and -10 only, with html code blocks
    sites = FakeSites()
    body = strip_scripts((FIXTURES / "dom_chatgpt" / "ys_chatgpt.html").read_text(encoding="utf-8"))
    url = sites.chatgpt_conversation(
        "68b0f1c2-dddd-eeee-ffff-0123456789ab", shell(body, "Fragment - ChatGPT"), None, api_status=403
    )
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        detail = open_and_export(bidi, url)
        assert detail["path"] == "dom" and detail["status"] == "created", detail
        assert "page" in detail["text"].lower() and "missing" in detail["text"], detail["text"]

    assert any(
        seen["url"].startswith("https://chatgpt.com/api/auth/session") for seen in sites.seen
    )  # API tried first
    listing = json.loads(mnemo(ff_env, "list", "--json").stdout)
    assert [(item["site"], item["id"]) for item in listing] == [("chatgpt", detail["conversationId"])]
    conversation = shown_json(ff_env, detail["conversationId"])
    assert conversation["provenance"]["method"] == "page_dom"
    assert conversation["provenance"]["partial"] is True
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"]
    code = [p for m in conversation["messages"] for p in m["parts"] if p["type"] == "code"]
    texts = "".join(p.get("text", "") for m in conversation["messages"] for p in m["parts"]) + "".join(
        p["code"] for p in code
    )
    assert any(p.get("language") == "html" for p in code) or "```html" in texts
    assert "나의 말" not in texts  # screen-reader labels are not content
