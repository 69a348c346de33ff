"""Copy and download are redacted like a context: a secret in a saved conversation
does not leave the archive through Export's download or copy, nor through the view page's Copy and
download, when the redaction setting is on. Downloads are the extension's (the downloads API), never a
page-origin blob: URL the page could fetch. Real host, real archive, real downloads."""

from __future__ import annotations

import copy
import json

import pytest
from closed_ui import ClosedUi
from ext_downloads import extension_downloads
from ext_fakesite import chatgpt_api_fixture, open_chatgpt_conversation

pytestmark = pytest.mark.browser

SECRET = "sk-proj-Xb3kLm9QwErTyUiOpAsDfGhJkL1234567890"
AWS = "AKIAIOSFODNN7EXAMPLE"


def api_with_secret() -> dict:
    api = copy.deepcopy(chatgpt_api_fixture())
    for node in api["mapping"].values():
        message = node.get("message")
        if message and message["author"]["role"] == "user" and message["content"]["content_type"] == "text":
            message["content"]["parts"] = [f"my key is {SECRET} and the AWS one {AWS}, keep them safe"]
            break
    return api


def set_settings(browser, ext_url, **settings) -> None:
    options = browser.new_page()
    options.goto(ext_url("options/options.html"))
    options.evaluate("(values) => chrome.storage.sync.set(values)", settings)
    options.close()


@pytest.mark.parametrize("redact", [True, False])
def test_export_download_is_the_extensions_and_redacted(browser, sites, ext_url, mnemo_cli, redact):
    set_settings(browser, ext_url, downloadOnExport=True, exportFormat="markdown", redact=redact)
    page = open_chatgpt_conversation(browser, sites, api_with_secret())
    result = ClosedUi(page).export()
    assert result["state"] == "success", result["text"]
    assert "Downloaded" in result["text"]
    [item] = extension_downloads(browser, ext_url)
    assert item["state"] == "complete", item
    assert item["mime"].startswith("text/markdown")  # (Playwright names the file itself)
    # the file's URL is the extension's, not one the chatgpt.com page could fetch
    assert not item["url"].startswith("blob:https://") and "chatgpt.com" not in item["url"].split(",")[0]
    text = item["text"]
    assert "Tide anneal crucible" in text
    if redact:
        assert SECRET not in text and AWS not in text
        assert "my key is" in text and "keep them safe" in text  # only the secrets went
    else:
        assert SECRET in text and AWS in text  # the control: the secret is in the export when not redacted
    # the archive keeps the original
    conversation = json.loads(mnemo_cli("show", result["id"], "--json").stdout)
    assert SECRET in json.dumps(conversation)


def test_copy_on_export_and_the_view_page_are_redacted(browser, sites, ext_url):
    set_settings(browser, ext_url, copyMarkdownOnExport=True, redact=True)
    browser.grant_permissions(["clipboard-read", "clipboard-write"])
    page = open_chatgpt_conversation(browser, sites, api_with_secret())
    result = ClosedUi(page).export()
    assert result["state"] == "success", result["text"]
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "my key is" in copied and SECRET not in copied and AWS not in copied

    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={result['id']}"))
    view.locator("[data-mnemosyne='transcript'] article").first.wait_for(timeout=15_000)
    view.evaluate("navigator.clipboard.writeText('')")
    view.locator("[data-mnemosyne='copy']").click()
    view.locator("#status.ok").wait_for(timeout=15_000)
    assert "redacted" in view.locator("#status").inner_text()
    copied = view.evaluate("navigator.clipboard.readText()")
    assert "my key is" in copied and SECRET not in copied and AWS not in copied

    view.locator("[data-mnemosyne='download-json']").click()
    view.locator("#status.ok").filter(has_text="Downloaded").wait_for(timeout=15_000)
    assert (
        ".json" in view.locator("#status").inner_text() and "redacted" in view.locator("#status").inner_text()
    )
    [item] = extension_downloads(browser, ext_url)
    assert item["mime"].startswith("application/json")
    assert "my key is" in item["text"] and SECRET not in item["text"] and AWS not in item["text"]
