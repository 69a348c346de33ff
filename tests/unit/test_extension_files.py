"""Checks of the extension's files that need no browser: manifest for both browser families, locales
complete in both languages, no remote resources. The code's rules (no HTML-parsing or eval sinks, imports that
resolve, which module may import what) are eslint's and tsc's, run by tests/test_extension_js.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[2] / "extension"
# The renderer's third-party libraries (markdown-it, DOMPurify, highlight.js, KaTeX), bundled by build.mjs: not our
# code, so its strings are no locale keys; only shared/render.js may import it (eslint.config.js), which hands every
# string it renders to DOMPurify (tests/browser/test_hostile_render.py, extension/test/render.test.mjs).
THIRD_PARTY_BUNDLE = EXT / "bundle" / "render_libs.js"
JS_FILES = sorted(p for p in EXT.rglob("*.js") if "node_modules" not in p.parts and p != THIRD_PARTY_BUNDLE)
HTML_FILES = sorted(p for p in EXT.rglob("*.html") if "node_modules" not in p.parts)
LOCALES = ("en", "zh_CN")
# connect-src: only ChatGPT's signed file hosts, which the worker downloads a backup's files from
# (background/file_download.js) once the user grants them; no extension page connects anywhere else
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src https://*.oaiusercontent.com"
)


def manifest() -> dict:
    return json.loads((EXT / "manifest.json").read_text(encoding="utf-8"))


def messages(locale: str) -> dict:
    return json.loads((EXT / "_locales" / locale / "messages.json").read_text(encoding="utf-8"))


def test_manifest_loads_in_chromium_and_firefox():
    m = manifest()
    assert m["manifest_version"] == 3
    background = m["background"]
    assert background["service_worker"] == "background/service_worker.js"  # Chromium
    assert background["scripts"] == ["background/service_worker.js"]  # Firefox
    assert background["type"] == "module"
    assert m["browser_specific_settings"]["gecko"]["id"] == "mnemosyne@mnemosyne.org"
    from mnemosyne.extension_ids import CHROMIUM_PUBLIC_KEY

    assert m["key"] == CHROMIUM_PUBLIC_KEY
    assert m["content_security_policy"]["extension_pages"] == CSP
    assert set(m["permissions"]) == {
        "nativeMessaging",
        "storage",
        "alarms",  # a backup's waits outlive the service worker
        "contextMenus",
        "clipboardWrite",
        "scripting",
        "activeTab",
        "downloads",  # exports are saved by the worker, never from a page-origin blob: URL
        "offscreen",  # Chromium: the worker's clipboard surface; every copy happens there, never in a page
    }
    assert m["host_permissions"] == [
        "https://chatgpt.com/*",
        "https://chat.openai.com/*",
        "https://claude.ai/*",
        "https://gemini.google.com/*",
        "https://chat.deepseek.com/*",
        "https://grok.com/*",
        "https://www.perplexity.ai/*",
        "https://chat.mistral.ai/*",
        "https://chat.qwen.ai/*",
    ]
    # ChatGPT's signed file downloads (files. and sdmntpr*. hosts): the worker fetches them in a backup. Optional, so
    # an update that adds it never disables the installed extension; the backup-all click asks for it.
    assert m["optional_host_permissions"] == ["https://*.oaiusercontent.com/*"]
    assert "optional_permissions" not in m
    assert "externally_connectable" not in m and "web_accessible_resources" not in m
    assert m["default_locale"] == "en"


def test_every_file_the_manifest_names_exists():
    m = manifest()
    named = [
        m["background"]["service_worker"],
        m["action"]["default_popup"],
        m["options_ui"]["page"],
        *m["icons"].values(),
        *m["action"]["default_icon"].values(),
    ]
    for script in m["content_scripts"]:
        named += script["js"]
        assert all(match.startswith("https://") for match in script["matches"])
    missing = [name for name in named if not (EXT / name).is_file()]
    assert missing == []
    for size, name in m["icons"].items():
        data = (EXT / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(data[16:20], "big") == int(size)  # IHDR width


def used_locale_keys() -> set[str]:
    keys: set[str] = set()
    for path in JS_FILES:
        text = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r'\bt\(\s*"([A-Za-z0-9_]+)"', text))
        role_keys = re.search(r"ROLE_KEYS = \{([^}]*)\}", text)
        if role_keys:
            keys |= set(re.findall(r'"([A-Za-z0-9_]+)"', role_keys.group(1)))
    for path in HTML_FILES:
        keys |= set(
            re.findall(
                r'data-i18n(?:-placeholder|-title)?="([A-Za-z0-9_]+)"', path.read_text(encoding="utf-8")
            )
        )
    keys |= set(re.findall(r"__MSG_([A-Za-z0-9_]+)__", (EXT / "manifest.json").read_text(encoding="utf-8")))
    return keys


@pytest.mark.parametrize("locale", LOCALES)
def test_every_locale_key_used_in_code_exists(locale):
    used = used_locale_keys()
    assert len(used) > 80
    assert sorted(used - set(messages(locale))) == []


def test_locales_have_the_same_keys_and_placeholders():
    en, zh = messages("en"), messages("zh_CN")
    assert set(en) == set(zh)
    for key in en:
        assert sorted(re.findall(r"\$\d", en[key]["message"])) == sorted(
            re.findall(r"\$\d", zh[key]["message"])
        ), key
    assert zh["exportButton"]["message"] == "导出"
    unused = set(en) - used_locale_keys() - {"extName", "extDescription"}
    assert unused == set(), f"locale keys nothing uses: {sorted(unused)}"


def test_extension_pages_load_nothing_remote_and_no_inline_script():
    for path in HTML_FILES:
        html = path.read_text(encoding="utf-8")
        assert not re.search(r'(src|href)="(https?:)?//', html), path
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), f"inline script in {path}"
        assert not re.search(r"\son[a-z]+=", html), f"inline handler in {path}"
        assert "style=" not in html, f"inline style in {path}"
