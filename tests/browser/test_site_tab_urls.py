"""The site tab fetches a backup's file only where the site serves files, in real Chromium with the real host: a
ChatGPT `download_url` of /api/auth/session (same origin: it would be fetched with the user's cookies) and a
Claude file URL that climbs out with "%2e%2e" are refused on the path the browser would fetch, listed with the
reason, and never requested."""

from __future__ import annotations

import copy
import json
import re
import uuid

import pytest
from ext_fakesite import CLAUDE_ORG, claude_api_from_export, claude_export_conversation, shell
from test_backup import ChatgptAccount, claude_routes, ids, open_popup, open_site, wait_state
from test_backup_attachments import ICONS, UPLOADED, conversation_json, file_ids, held_attachments

pytestmark = pytest.mark.browser


def file_warnings(popup) -> dict[str, str]:
    items = popup.locator("[data-mnemosyne='backup-file-warnings'] li")
    return {
        items.nth(i).text_content(): items.nth(i).get_attribute("data-reason") for i in range(items.count())
    }


def test_a_chatgpt_download_url_outside_the_files_endpoints_is_not_fetched(
    browser, sites, ext_url, mnemo_cli
):
    urls = ["/api/auth/session", "/backend-api/files/../../api/auth/session", "/backend-api/%2e%2e/me"]
    conversation = conversation_json(UPLOADED)
    (photo,) = file_ids(conversation)
    account = ChatgptAccount(main=ids(len(urls), "session-url"))
    account.fixtures = {cid: conversation for cid in account.main}
    own = [f"file_{n:032d}" for n in range(len(urls))]  # each conversation its own file, at its own URL
    account.file_of = {cid: (photo, fid) for cid, fid in zip(account.main, own, strict=True)}
    account.files = {fid: (ICONS / "icon128.png").read_bytes() for fid in own}
    account.file_urls = dict(zip(own, urls, strict=True))
    account.install(browser)
    open_site(browser, sites, "https://chatgpt.com")
    popup = open_popup(browser, ext_url)
    popup.evaluate("() => chrome.storage.sync.set({attachmentCapMb: 2})")
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 90_000)

    assert done["done"] == str(len(urls)) and "files: 0 saved, 3 not saved" in done["text"], done["text"]
    assert list(file_warnings(popup).values()) == ["BAD_REQUEST"] * len(urls)
    # the session endpoint answered the adapter's token requests (JSON) only, never a file download
    assert not [
        r for r in sites.seen if "/api/auth/session" in r["url"] and r["headers"].get("accept") == "*/*"
    ]
    assert not [r for r in sites.seen if r["url"].endswith("/me")]
    assert held_attachments(mnemo_cli) == {}


def test_a_claude_file_url_that_climbs_out_of_the_files_endpoint_is_not_fetched(
    browser, sites, ext_url, mnemo_cli
):
    conv = copy.deepcopy(claude_api_from_export(claude_export_conversation()))
    conv.update(
        uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, "climb")), name="Climb", updated_at="2026-11-20T10:00:00Z"
    )
    good = str(uuid.uuid5(uuid.NAMESPACE_URL, "climb/good"))
    hostile = {
        "report.pdf": "/api/%2e%2e/settings/billing",
        "notes.pdf": f"/api/{CLAUDE_ORG}/files/%2e%2e/%2e%2e/%2e%2e/settings/billing",
        "slash.pdf": f"/api/{CLAUDE_ORG}/files/x%2f..%2f..%2fsettings/billing",
        "other.pdf": "/api/organizations",
    }
    first_user = next(m for m in conv["chat_messages"] if m.get("sender") == "human")
    first_user["files_v2"] = [
        {"file_kind": "document", "file_uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, name)), "file_name": name,
         "document_asset": {"url": url}}
        for name, url in hostile.items()
    ] + [
        {"file_kind": "image", "file_uuid": good, "file_name": "fine.png",
         "preview_asset": {"url": f"/api/{CLAUDE_ORG}/files/{good}/preview"}}
    ]  # fmt: skip
    project = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "no-project")), "name": "P", "prompt_template": ""}
    claude_routes(browser, [conv], project)
    image = (ICONS / "icon48.png").read_bytes()
    asked: list[str] = []

    def files(route):
        asked.append(route.request.url)
        route.fulfill(status=200, content_type="image/png", body=image)

    browser.route(re.compile(rf"^https://claude\.ai/api/{CLAUDE_ORG}/files/"), files)
    billing: list[str] = []
    browser.route(
        re.compile(r"^https://claude\.ai/settings/"),
        lambda route: (billing.append(route.request.url), route.fulfill(status=200, body="invoice"))[1],
    )
    sites.pages["https://claude.ai/"] = shell("<p>home</p>", "Claude")
    browser.new_page().goto("https://claude.ai/")
    popup = open_popup(browser, ext_url)
    popup.evaluate("() => chrome.storage.sync.set({attachmentCapMb: 1})")
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 60_000)

    assert "files: 1 saved, 4 not saved" in done["text"], done["text"]
    assert billing == [] and asked == [f"https://claude.ai/api/{CLAUDE_ORG}/files/{good}/preview"], (
        billing,
        asked,
    )
    warnings = file_warnings(popup)
    assert sorted(text.split(" ")[0] for text in warnings) == sorted(hostile), warnings
    assert set(warnings.values()) == {"BAD_REQUEST"}
    held = held_attachments(mnemo_cli)
    assert [a.get("name") for a in held.values()] == ["fine.png"], json.dumps(held)
