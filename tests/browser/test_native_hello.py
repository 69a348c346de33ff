"""`mnemo install --browser chromium --user-data-dir DIR`, then a real headless Chromium
whose extension page calls connectNative gets the host's hello, end to end.

A minimal extension carrying Mnemosyne's pinned key (so it has Mnemosyne's id) keeps
this test about installation and the host, independent of the full extension."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from mnemosyne.extension_ids import CHROMIUM_EXTENSION_ID, CHROMIUM_PUBLIC_KEY
from support.cli import mnemo

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed"),
]

PAGE_JS = """
const out = document.getElementById('out');
const port = chrome.runtime.connectNative('org.mnemosyne.host');
port.onMessage.addListener((msg) => { window.__reply = msg; out.textContent = JSON.stringify(msg); });
port.onDisconnect.addListener(() => { window.__error = chrome.runtime.lastError && chrome.runtime.lastError.message; });
port.postMessage({id: 'first', action: 'hello'});
chrome.runtime.sendNativeMessage('org.mnemosyne.host', {id: 'oneshot', action: 'hello'}, (msg) => {
  window.__oneshot = msg || {error: chrome.runtime.lastError && chrome.runtime.lastError.message};
});
"""


def make_extension(folder: Path) -> Path:
    folder.mkdir()
    (folder / "manifest.json").write_text(
        json.dumps(
            {
                "manifest_version": 3,
                "name": "native hello",
                "version": "1.0",
                "key": CHROMIUM_PUBLIC_KEY,
                "permissions": ["nativeMessaging"],
                "background": {"service_worker": "sw.js"},
            }
        )
    )
    (folder / "sw.js").write_text("// keeps the extension registered\n")
    (folder / "page.html").write_text('<!doctype html><pre id="out"></pre><script src="page.js"></script>')
    (folder / "page.js").write_text(PAGE_JS)
    return folder


def wait_for(page, expression: str, timeout: float = 30.0):
    """Poll with evaluate(): wait_for_function compiles a string, which the extension CSP forbids."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = page.evaluate(expression)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(expression)


def test_installed_host_answers_hello_in_real_chromium(tmp_path, monkeypatch, playwright_instance):
    env = dict(
        os.environ,
        MNEMOSYNE_HOME=str(tmp_path / "data"),
        MNEMOSYNE_KEY_FILE=str(tmp_path / "data" / "key"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
    )
    profile = tmp_path / "profile"
    mnemo(env, "install", "--browser", "chromium", "--user-data-dir", profile, timeout=120)
    manifest = json.loads((profile / "NativeMessagingHosts" / "org.mnemosyne.host.json").read_text())
    assert manifest["allowed_origins"] == [f"chrome-extension://{CHROMIUM_EXTENSION_ID}/"]

    ext = make_extension(tmp_path / "ext")
    for k in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(k, env[k])  # Chromium starts the host with its own environment
    # one Playwright per session: the sync API owns the test thread's event loop
    ctx = playwright_instance.chromium.launch_persistent_context(
        str(profile),
        executable_path=CHROMIUM,
        headless=True,
        args=[
            f"--disable-extensions-except={ext}",
            f"--load-extension={ext}",
            "--disable-gpu",
            "--disable-quic",
        ],
    )
    try:
        worker = ctx.service_workers[0] if ctx.service_workers else ctx.wait_for_event("serviceworker")
        assert worker.url.startswith(f"chrome-extension://{CHROMIUM_EXTENSION_ID}/")
        page = ctx.new_page()
        page.goto(f"chrome-extension://{CHROMIUM_EXTENSION_ID}/page.html")
        wait_for(page, "window.__reply || window.__error")
        reply = page.evaluate("window.__reply")
        assert reply, page.evaluate("window.__error")
        assert reply["id"] == "first" and reply["ok"] is True
        assert reply["data"]["archive"]["state"] == "ready" and reply["data"]["protocol"] == 1
        oneshot = wait_for(page, "window.__oneshot")
        assert oneshot.get("ok") is True and oneshot["id"] == "oneshot", oneshot
    finally:
        ctx.close()
