"""Firefox: the same extension directory installs as a temporary add-on and its background script talks to
the real native host, driven over WebDriver BiDi (no geckodriver offline; websockets' sync client). Served
chatgpt.com / claude.ai conversations (network.addIntercept + network.provideResponse, the Chromium tests'
fake-site tables) get the Export button, and a click saves them through the Firefox native host into the real
archive: through each site's API, and through the DOM fallback when the API routes are forbidden."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import re
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from ext_fakesite import (
    ACCESS_TOKEN,
    CLAUDE_ORG,
    FIXTURES,
    FakeSites,
    block_chatgpt_api,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    idless_chatgpt_pages,
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
            if self._dispatch(message, method, command_id):
                return message["result"]
        raise TimeoutError(method)

    def _dispatch(self, message: dict, method: str, command_id: int | None) -> bool:
        """Serve an event or check an answer's reply; True when `message` is the reply to `command_id`."""
        if message.get("type") == "event":
            self.on_event(message["method"], message["params"])
        elif message.get("type") == "error" and message.get("id") in self.unanswered | {command_id}:
            raise AssertionError(f"{method}: {message.get('error')}: {message.get('message')}")
        return command_id is not None and message.get("id") == command_id

    def pump(self, seconds: float) -> None:
        """Serve events (intercepted requests) for `seconds`: a poll interval that does not hold requests up."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                message = json.loads(self.ws.recv(timeout=remaining))
            except TimeoutError:
                return
            self._dispatch(message, "event", None)

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
            self.pump(0.1)
        raise TimeoutError(expression)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def firefox(tmp_path, env, grant_optional_permissions: bool = False, dark: bool = False):
    """Headless Firefox with the real host registered for HOME=tmp: yields (BiDi client, add-on UUID, env).
    `grant_optional_permissions`: Firefox's own test pref, a `permissions.request` made in a user's click is granted
    without its prompt (headless shows a prompt nobody can answer). `dark`: pages see prefers-color-scheme: dark."""
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
        'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n'
        + (
            'user_pref("extensions.webextOptionalPermissionPrompts", false);\n'
            if grant_optional_permissions
            else ""
        )
        + ('user_pref("layout.css.prefers-color-scheme.content-override", 0);\n' if dark else ""),
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
        status, content_type, body, extra = answer
        headers = {"content-type": content_type, **extra}
        bidi.answer(
            "network.provideResponse",
            {
                "request": request["request"],
                "statusCode": status,
                "reasonPhrase": "OK" if status == 200 else "Error",
                "headers": [{"name": k, "value": {"type": "string", "value": v}} for k, v in headers.items()],
                "body": (
                    {"type": "base64", "value": base64.b64encode(body).decode()}
                    if isinstance(body, bytes)
                    else {"type": "string", "value": body}
                ),
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


class FirefoxUi:
    """The extension's UI in the page's CLOSED shadow roots, in Firefox: BiDi serialises closed roots
    (`includeShadowTree: "all"`) and presses elements with real input actions (trusted, as a user's)."""

    def __init__(self, bidi: Bidi, context: str):
        self.bidi, self.context = bidi, context

    def _hosts(self) -> list[dict]:
        result = self.bidi.call(
            "script.evaluate",
            {
                "expression": "[...document.querySelectorAll('mnemosyne-ui')]",
                "target": {"context": self.context},
                "awaitPromise": False,
                "resultOwnership": "none",
                "serializationOptions": {"maxDomDepth": 40, "includeShadowTree": "all"},
            },
        )
        return result["result"].get("value", [])

    def modes(self) -> list[str]:
        return [host["value"]["shadowRoot"]["value"].get("mode") for host in self._hosts()]

    def find(self, **attrs: str) -> dict | None:
        """The first element whose attributes include `attrs` (names with dashes: data_mnemosyne=...)."""
        wanted = {name.replace("_", "-"): value for name, value in attrs.items()}
        stack = list(reversed(self._hosts()))
        while stack:
            node = stack.pop()
            value = node.get("value") or {}
            attributes = value.get("attributes") or {}
            if value.get("nodeType") == 1 and all(attributes.get(k) == v for k, v in wanted.items()):
                return {"sharedId": node["sharedId"], "attributes": attributes, "text": _text(node)}
            children = list(value.get("children") or [])
            if value.get("shadowRoot"):
                children.insert(0, value["shadowRoot"])
            stack.extend(reversed(children))
        return None

    def wait(self, timeout: float = 30, **attrs: str) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.find(**attrs)
            if found:
                return found
            time.sleep(0.1)  # a polling interval while the UI appears, not a proof of absence
        raise TimeoutError(f"no {attrs} in the extension's UI")

    def click(self, **attrs: str) -> None:
        """A real pointer click in the middle of the element."""
        element = {"sharedId": self.wait(**attrs)["sharedId"]}
        self.bidi.call(
            "script.callFunction",
            {
                "functionDeclaration": "(e) => e.scrollIntoView({block: 'center'})",
                "arguments": [element],
                "target": {"context": self.context},
                "awaitPromise": False,
                "resultOwnership": "none",
            },
        )
        self.bidi.call(
            "input.performActions",
            {
                "context": self.context,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "mouse",
                        "actions": [
                            {
                                "type": "pointerMove",
                                "x": 0,
                                "y": 0,
                                "origin": {"type": "element", "element": element},
                            },
                            {"type": "pointerDown", "button": 0},
                            {"type": "pointerUp", "button": 0},
                        ],
                    }
                ],
            },
        )
        self.bidi.call("input.releaseActions", {"context": self.context})

    def synthetic_click(self, **attrs: str) -> None:
        """A page script that somehow holds our element calls .click() on it (untrusted)."""
        self.bidi.call(
            "script.callFunction",
            {
                "functionDeclaration": "(e) => { e.click(); e.dispatchEvent(new MouseEvent('click', {bubbles: true, composed: true})); }",
                "arguments": [{"sharedId": self.wait(**attrs)["sharedId"]}],
                "target": {"context": self.context},
                "awaitPromise": False,
                "resultOwnership": "none",
            },
        )

    def toast_after(self, previous: dict | None, timeout: float = 30) -> dict:
        """The final toast (success or error) that is not `previous`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            toast = self.find(data_mnemosyne="toast")
            state = toast and toast["attributes"].get("data-state")
            if (
                toast
                and state in ("success", "error")
                and toast["sharedId"] != (previous or {}).get("sharedId")
            ):
                return toast
            time.sleep(0.1)
        raise TimeoutError("no final toast")


def _text(node: dict) -> str:
    value = node.get("value") or {}
    if value.get("nodeType") == 3:
        return value.get("nodeValue", "")
    return "".join(_text(child) for child in value.get("children") or [])


def open_and_export(bidi: Bidi, url: str) -> dict:
    """Open a served conversation, click Export, and return the final toast's dataset and text."""
    context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
    bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
    return export_in_page(bidi, context)


def export_in_page(bidi: Bidi, context: str, *, expect: str = "success") -> dict:
    ui = FirefoxUi(bidi, context)
    assert ui.wait(data_mnemosyne="export")["text"].strip() == "Export"
    before = ui.find(data_mnemosyne="toast")
    ui.click(data_mnemosyne="export")  # a real click: the page's scripts cannot reach the closed root
    toast = ui.toast_after(before)
    attrs = toast["attributes"]
    detail = {
        "state": attrs.get("data-state"),
        "conversationId": attrs.get("data-conversation-id"),
        "path": attrs.get("data-path"),
        "status": attrs.get("data-status"),
        "code": attrs.get("data-code"),
        "text": toast["text"],
    }
    assert detail["state"] == expect, detail
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
    assert code == [] and "```html" in texts  # a page capture keeps code as Markdown fences
    assert "나의 말" not in texts  # screen-reader labels are not content


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_two_id_less_chats_at_the_same_url_are_two_entries(tmp_path, env):
    """A URL is never an identity. Two different chats read from https://chatgpt.com/ (no id:
    logged out or temporary) are two entries, and the first is intact after the second."""
    sites = FakeSites()
    block_chatgpt_api(sites)
    first_html, second_html = idless_chatgpt_pages()
    home = "https://chatgpt.com/"
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        sites.pages[home] = first_html
        first = open_and_export(bidi, home)
        before = shown_json(ff_env, first["conversationId"])
        sites.pages[home] = second_html
        second = open_and_export(bidi, home)
    assert (first["path"], first["status"]) == ("dom", "created"), first
    assert (second["path"], second["status"]) == ("dom", "created"), second
    assert second["conversationId"] != first["conversationId"]
    listing = json.loads(mnemo(ff_env, "list", "--json").stdout)
    assert sorted(item["id"] for item in listing) == sorted(
        [first["conversationId"], second["conversationId"]]
    )
    after = shown_json(ff_env, first["conversationId"])
    assert after["messages"] == before["messages"] and after["source"].get("conversation_id") is None


# --------------------------------------------------------------- the page cannot drive the UI, URLs, errors: in Firefox


def open_served_chatgpt(bidi: Bidi, sites: FakeSites, *, steal_roots: bool = False) -> tuple[str, FirefoxUi]:
    from test_page_cannot_drive_ui import STEAL_ROOTS

    api = chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    if steal_roots:  # the page's own first script
        html = re.sub(
            r"(<head\b[^>]*>)", lambda m: f"{m.group(1)}<script>{STEAL_ROOTS}</script>", html, count=1
        )
        assert STEAL_ROOTS in html
    url = sites.chatgpt_conversation(api["conversation_id"], html, api)
    serve_intercepts(bidi, sites)
    context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
    bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
    ui = FirefoxUi(bidi, context)
    ui.wait(data_mnemosyne="export")
    return context, ui


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_page_scripts_cannot_read_or_press_the_extensions_ui(tmp_path, env):
    from test_page_cannot_drive_ui import ATTACK, PAGE_TEXT

    with firefox(tmp_path, env) as (bidi, _, ff_env):
        context, ui = open_served_chatgpt(bidi, FakeSites(), steal_roots=True)
        assert set(ui.modes()) == {"closed"}
        reached = json.loads(bidi.evaluate(context, f"JSON.stringify(({ATTACK})())")["value"])
        assert reached["hosts"] >= 1 and reached["reached"] == 0 and reached["stolen"] == 0, reached
        # our handlers run synchronously on a click: a save would have shown its progress toast by now
        assert ui.find(data_mnemosyne="toast") is None and ui.find(data_mnemosyne="continue-menu") is None
        ui.synthetic_click(data_mnemosyne="export")
        assert ui.find(data_mnemosyne="toast") is None
        ui.click(data_mnemosyne="continue")  # the user opens the menu, the page tries to pick
        ui.wait(data_mnemosyne="continue-target", data_target="agents-md")
        ui.synthetic_click(data_mnemosyne="continue-target", data_target="agents-md")
        assert ui.find(data_mnemosyne="toast") is None
        assert ui.find(data_mnemosyne="continue-menu") is not None  # a real pick closes it at once
        # the control: the user's real click saves; the page cannot read what the toast says
        detail = export_in_page(bidi, context)
        assert "Tide anneal crucible explanation" in detail["text"]
        page_text = bidi.evaluate(context, f"({PAGE_TEXT})()")["value"]
        assert "Tide anneal crucible explanation" not in page_text and "Saved" not in page_text
        contexts = bidi.call("browsingContext.getTree", {})["contexts"]
        assert len(contexts) == 1  # nothing opened
    assert len(json.loads(mnemo(ff_env, "list", "--json").stdout)) == 1


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_context_preview_is_an_extension_window_not_the_page(tmp_path, env):
    from test_page_cannot_drive_ui import PAGE_TEXT

    with firefox(tmp_path, env) as (bidi, internal, _):
        context, ui = open_served_chatgpt(bidi, FakeSites())
        ui.click(data_mnemosyne="continue")
        ui.click(data_mnemosyne="continue-target", data_target="agents-md")
        preview_url = f"moz-extension://{internal}/preview/preview.html?handle="
        window = None
        deadline = time.monotonic() + 30
        while window is None and time.monotonic() < deadline:
            tree = bidi.call("browsingContext.getTree", {})["contexts"]
            window = next((c["context"] for c in tree if c["url"].startswith(preview_url)), None)
            time.sleep(0.1)
        assert window, "no preview window"
        shown = bidi.wait_for(
            window, "document.querySelector('#preview:not([hidden]) .preview-text')?.textContent"
        )
        assert len(shown) > 200
        status = ui.wait(data_mnemosyne="toast", data_state="success")
        assert "Mnemosyne window" in status["text"]
        page_text = bidi.evaluate(context, f"({PAGE_TEXT})()")["value"]
        assert shown[:200] not in page_text and "tokens of a" not in page_text


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_an_error_in_the_page_names_the_code_not_the_details(tmp_path, env):
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        mnemo(ff_env, "list", "--json")  # creates the archive and its key...
        (tmp_path / "archive.key").unlink()  # ...whose loss the host reports naming the key file
        context, _ = open_served_chatgpt(bidi, FakeSites())
        detail = export_in_page(bidi, context, expect="error")
    assert detail["code"] == "ARCHIVE_KEY_MISSING", detail
    assert "ARCHIVE_KEY_MISSING" in detail["text"] and "health check" in detail["text"]
    assert "key file" not in detail["text"] and str(tmp_path) not in detail["text"]


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_export_download_is_the_extensions_and_redacted(tmp_path, env):
    from test_export_redaction import AWS, SECRET, api_with_secret

    sites = FakeSites()
    api = api_with_secret()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    url = sites.chatgpt_conversation(api["conversation_id"], html, api)
    with firefox(tmp_path, env) as (bidi, internal, _):
        serve_intercepts(bidi, sites)
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        options = f"moz-extension://{internal}/options/options.html"
        bidi.call("browsingContext.navigate", {"context": context, "url": options, "wait": "complete"})
        bidi.evaluate(
            context,
            "browser.storage.sync.set({downloadOnExport: true, exportFormat: 'markdown', redact: true})",
        )
        bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
        detail = export_in_page(bidi, context)
        assert "Downloaded" in detail["text"], detail
        bidi.call("browsingContext.navigate", {"context": context, "url": options, "wait": "complete"})
        found = bidi.wait_for(
            context,
            "browser.downloads.search({}).then((items) => items.length && items.every((i) => i.state === 'complete')"
            " ? JSON.stringify(items.map((i) => ({url: i.url, filename: i.filename, mime: i.mime}))) : '')",
        )
    [item] = json.loads(found)
    assert item["url"].startswith(f"blob:moz-extension://{internal}/")  # the background page's own blob
    text = Path(item["filename"]).read_text(encoding="utf-8")
    assert "my key is" in text and SECRET not in text and AWS not in text
