"""Firefox: the same extension directory installs as a temporary add-on and its background script talks to
the real native host, driven over WebDriver BiDi (no geckodriver offline; websockets' sync client). A served
chatgpt.com conversation (network.addIntercept + network.provideResponse, the Chromium tests' fake-site tables)
gets the Export button, and a click saves it through the Firefox native host into the real archive."""

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

from conftest import EXTENSION_DIR, mnemo
from ext_fakesite import ACCESS_TOKEN, FIXTURES, FakeSites, chatgpt_api_fixture, strip_scripts

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
        result = self.call("script.evaluate", {"expression": expression, "target": {"context": context},
                                               "awaitPromise": True, "resultOwnership": "none"})
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
    host_manifest = json.loads((home / ".mozilla" / "native-messaging-hosts" / "org.mnemosyne.host.json").read_text())
    assert host_manifest["allowed_extensions"] == [ADDON_ID] and "allowed_origins" not in host_manifest

    internal = str(uuid.uuid4())
    (profile / "user.js").write_text(
        f'user_pref("extensions.webextensions.uuids", {json.dumps(json.dumps({ADDON_ID: internal}))});\n'
        'user_pref("browser.shell.checkDefaultBrowser", false);\n'
        'user_pref("datareporting.policy.dataSubmissionEnabled", false);\n', encoding="utf-8")
    port = free_port()
    process = subprocess.Popen([FIREFOX, "--headless", "--no-remote", "--profile", str(profile),
                                "--remote-debugging-port", str(port), "--remote-allow-system-access"],
                               env=ff_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
            installed = bidi.call("webExtension.install", {"extensionData": {"type": "path", "path": str(EXTENSION_DIR)}})
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
        bidi.call("browsingContext.navigate", {"context": context, "url": f"moz-extension://{internal}/popup/popup.html",
                                               "wait": "complete"})
        hello = bidi.evaluate(context, "browser.runtime.sendMessage({type: 'hello'}).then(r => JSON.stringify(r))")
        reply = json.loads(hello["value"])
        assert reply["ok"] is True, reply
        assert reply["data"]["protocol"] == 1 and reply["data"]["archive"]["state"] == "ready"
        listing = json.loads(bidi.evaluate(context, "browser.runtime.sendMessage({type: 'list'}).then(r => JSON.stringify(r))")["value"])
        assert listing == {"ok": True, "data": {"items": [], "next_cursor": None}}
        # the popup rendered from the host's answer, in the page's own text
        status = bidi.evaluate(context, "document.getElementById('status').textContent")["value"]
        assert "empty" in status


def serve_intercepts(bidi: Bidi, sites: FakeSites) -> None:
    """Answer every intercepted chatgpt.com request from the fake-site tables; fail the ones they do not serve."""

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
        bidi.answer("network.provideResponse", {
            "request": request["request"], "statusCode": status, "reasonPhrase": "OK" if status == 200 else "Error",
            "headers": [{"name": "content-type", "value": {"type": "string", "value": content_type}}],
            "body": {"type": "string", "value": body}})

    bidi.on_event = on_event
    bidi.call("session.subscribe", {"events": ["network.beforeRequestSent"]})
    bidi.call("network.addIntercept", {"phases": ["beforeRequestSent"],
                                       "urlPatterns": [{"type": "pattern", "protocol": "https", "hostname": "chatgpt.com"}]})


SHADOW = "document.querySelector(\"mnemosyne-ui[data-mnemosyne-host='{host}']\")?.shadowRoot"


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_export_button_saves_a_served_chatgpt_conversation(tmp_path, env):
    sites = FakeSites()
    api = chatgpt_api_fixture()
    html = strip_scripts((FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8"))
    url = sites.chatgpt_conversation(api["conversation_id"], html, api)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
        bar = SHADOW.format(host="bar") + " ?? " + SHADOW.format(host="floating-bar")
        label = bidi.wait_for(context, f"({bar})?.querySelector(\"[data-mnemosyne='export']\")?.textContent")
        assert label.strip() == "Export"
        # the button lives in an open shadow root: a click from the page reaches the content script's listener
        bidi.evaluate(context, f"({bar}).querySelector(\"[data-mnemosyne='export']\").click()")
        toast = f"({SHADOW.format(host='overlay')})?.querySelector(\"[data-mnemosyne='toast']\")"
        state = bidi.wait_for(context, f"{toast}?.dataset.state === 'progress' ? '' : {toast}?.dataset.state")
        detail = json.loads(bidi.evaluate(context, f"JSON.stringify({{...{toast}.dataset, text: {toast}.textContent}})")["value"])
        assert state == "success", detail
        assert detail["path"] == "api" and detail["status"] == "created", detail

    assert any(seen["url"].endswith(f"/backend-api/conversation/{api['conversation_id']}") and
               seen["headers"].get("authorization") == f"Bearer {ACCESS_TOKEN}" for seen in sites.seen)
    listing = json.loads(mnemo(ff_env, "list", "--json").stdout)
    assert [(item["site"], item["title"], item["id"]) for item in listing] == [("chatgpt", api["title"], detail["conversationId"])]
    assert listing[0]["message_count"] >= 2
    shown = json.loads(mnemo(ff_env, "show", detail["conversationId"], "--format", "portable").stdout)
    assert shown["source"]["site"] == "chatgpt"
