"""What the site tab downloads for a backup is read a chunk at a time, in real Chromium against a real HTTPS server
answering under claude.ai's name: a body without a Content-Length and a gzip body that expands are given up at
the user's size cap (counted in decoded bytes), and a body that drips is given up when the service worker gives up
on the tab. The server sees the tab hang up."""

from __future__ import annotations

import copy
import gzip
import re
import uuid

import pytest
from ext_fakesite import CLAUDE_ORG, claude_api_from_export, claude_export_conversation, shell
from local_https import LocalHttps, chunked, drip, gzip_body
from test_backup import FAST, claude_routes, open_popup, wait_state

from conftest import launch

pytestmark = pytest.mark.browser
MB = 1_000_000
CAP_MB = 1
STREAMED = 64 * MB  # served without a Content-Length
BOMB = 300 * MB  # zeros, gzip-encoded in about 300 KB
TAB_TIMEOUT_MS = 3_000


@pytest.fixture
def server(tmp_path):
    served = LocalHttps("claude.ai", tmp_path).start()
    yield served
    served.stop()


@pytest.fixture
def browser_with_server(playwright_instance, profile_dir, env, sites, installed_host, extension_id, server):
    """Chromium as in `browser`, with claude.ai resolved to the local server (routes still serve the rest)."""
    ctx = launch(
        playwright_instance,
        profile_dir,
        env,
        sites,
        extra_args=(server.resolver_rule(),),
        ignore_https_errors=True,
    )
    if not ctx.service_workers:
        ctx.wait_for_event("serviceworker", timeout=15_000)
    yield ctx
    ctx.close()


def file_entry(file_uuid: str, name: str) -> dict:
    return {
        "file_kind": "image",
        "file_uuid": file_uuid,
        "file_name": name,
        "preview_asset": {"url": f"/api/{CLAUDE_ORG}/files/{file_uuid}/preview", "file_variant": "preview"},
    }


def test_the_site_tab_stops_reading_at_the_cap_and_when_the_worker_gives_up(
    browser_with_server, server, ext_url
):
    browser = browser_with_server
    uuids = {
        name: str(uuid.uuid5(uuid.NAMESPACE_URL, f"tab-download/{name}")) for name in ("big", "bomb", "slow")
    }
    paths = {name: f"/api/{CLAUDE_ORG}/files/{u}/preview" for name, u in uuids.items()}
    server.answers[paths["big"]] = chunked(STREAMED)
    bomb = gzip.compress(b"\0" * BOMB, compresslevel=9)
    server.answers[paths["bomb"]] = gzip_body(bomb)
    server.answers[paths["slow"]] = drip(200_000, every=0.1, longest=60)

    conv = copy.deepcopy(claude_api_from_export(claude_export_conversation()))
    conv.update(
        uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, "tab-downloads")),
        name="Files",
        updated_at="2026-11-20T10:00:00Z",
    )
    first_user = next(m for m in conv["chat_messages"] if m.get("sender") == "human")
    first_user["files_v2"] = [file_entry(uuids[n], f"{n}.png") for n in ("big", "bomb", "slow")]
    project = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "no-project")), "name": "P", "prompt_template": ""}
    claude_routes(browser, [conv], project)
    # the files go past the routes, to the network: claude.ai is the local server there
    browser.route(
        re.compile(rf"^https://claude\.ai/api/{CLAUDE_ORG}/files/"), lambda route: route.continue_()
    )
    browser.route(
        "https://claude.ai/",
        lambda route: route.fulfill(content_type="text/html", body=shell("<p>home</p>", "Claude")),
    )
    browser.new_page().goto("https://claude.ai/")
    policy = {**FAST, "tabTimeoutMs": TAB_TIMEOUT_MS, "maxAttempts": 1}
    popup = open_popup(browser, ext_url, policy)
    popup.evaluate(f"() => chrome.storage.sync.set({{attachmentCapMb: {CAP_MB}}})")
    popup.click("[data-mnemosyne='backup-all']")
    done = wait_state(popup, "done", 120_000)

    (big,) = server.finished(paths["big"])
    # not the 64 MB streamed: the tab stopped near the 1 MB cap (what it and the kernel buffer is more)
    assert big.hung_up and big.sent < 24 * MB, big
    (bombed,) = server.finished(paths["bomb"])
    assert bombed.hung_up and bombed.sent < len(bomb) // 2, (bombed, len(bomb))  # stopped at 1 MB decoded
    (slow,) = server.finished(paths["slow"])  # the tab hung up when the worker gave up, not at the end
    assert slow.hung_up and slow.seconds < TAB_TIMEOUT_MS / 1000 + 10, slow
    assert (done["done"], done["failed"]) == ("1", "0"), done
    assert "files: 0 saved, 3 not saved" in done["text"], done["text"]
    warnings = popup.locator("[data-mnemosyne='backup-file-warnings'] li")
    reasons = {
        warnings.nth(i).text_content().split(" ")[0]: warnings.nth(i).get_attribute("data-reason")
        for i in range(warnings.count())
    }
    assert reasons == {"big.png": "TOO_LARGE", "bomb.png": "TOO_LARGE", "slow.png": "TAB_TIMEOUT"}, reasons
