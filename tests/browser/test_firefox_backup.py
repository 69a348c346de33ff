"""Back up everything in Firefox ESR (WebDriver BiDi), with the real host: the library's backup-all lists a served
ChatGPT account (two list pages, an archived chat, an empty project sidebar) through the chatgpt.com tab's content
script, saves every conversation into the archive, and a second run fetches none."""

from __future__ import annotations

import json
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
from ext_fakesite import ACCESS_TOKEN, FakeSites, chatgpt_api_fixture, shell
from test_firefox import FIREFOX, firefox, serve_intercepts

from support.cli import mnemo

pytestmark = pytest.mark.browser


def served_account(sites: FakeSites, main: list[str], archived: list[str]) -> list[str]:
    """Routes of a ChatGPT account; returns the list of conversation ids fetched (in order)."""
    base = chatgpt_api_fixture()
    fetched: list[str] = []
    updated = {cid: f"2026-11-{i + 1:02d}T08:00:00Z" for i, cid in enumerate(main + archived)}
    expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
    sites.pages["https://chatgpt.com/"] = shell("<p>home</p>", "ChatGPT")
    sites.json_routes["https://chatgpt.com/api/auth/session$"] = (
        200,
        {"accessToken": ACCESS_TOKEN, "expires": expires},
    )

    def listing(request):
        query = {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}
        ids = archived if query.get("is_archived") == "true" else main
        offset, limit = (
            int(query["offset"]),
            5,
        )  # the site may answer fewer than asked: paging follows `total`
        page = ids[offset : offset + limit]
        items = [{"id": c, "title": f"Chat {c[:6]}", "update_time": updated[c]} for c in page]
        return 200, {"items": items, "total": len(ids), "limit": limit, "offset": offset}

    def conversation(request):
        cid = urlsplit(request.url).path.rsplit("/", 1)[-1]
        if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}" or cid not in updated:
            return 404, {"detail": "not found"}
        fetched.append(cid)
        return 200, {**base, "conversation_id": cid, "id": cid, "title": f"Chat {cid[:6]}"}

    sites.json_routes["https://chatgpt.com/backend-api/conversations$"] = (200, listing)
    sites.json_routes["https://chatgpt.com/backend-api/gizmos/snorlax/sidebar$"] = (
        200,
        {"items": [], "cursor": None},
    )
    sites.json_routes["https://chatgpt.com/backend-api/conversation/"] = (200, conversation)
    return fetched


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_backup_all_from_the_library(tmp_path, env):
    main = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"ff-backup/{i}")) for i in range(11)]
    archived = [str(uuid.uuid5(uuid.NAMESPACE_URL, "ff-backup/archived"))]
    with firefox(tmp_path, env) as (bidi, internal, ff_env):
        sites = FakeSites()
        fetched = served_account(sites, main, archived)
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
        bidi.evaluate(
            library,
            "browser.storage.local.set({backupTestPolicy: {spacingMs: 0, burst: 100000, refillPerMinute: 100000}})",
        )
        progress = "document.querySelector('[data-mnemosyne=backup-progress]')"
        bidi.evaluate(library, "document.querySelector('[data-mnemosyne=backup-all]').click()")
        state = bidi.wait_for(
            library,
            f"{progress}.dataset.state === 'done' ? JSON.stringify({progress}.dataset) : ''",
            timeout=120,
        )
        counts = json.loads(state)
        assert (counts["done"], counts["skipped"], counts["failed"], counts["left"]) == (
            "12",
            "0",
            "0",
            "0",
        ), counts
        assert sorted(fetched) == sorted(main + archived)
        listed = json.loads(mnemo(ff_env, "list", "--source", "chatgpt", "--limit", "0", "--json").stdout)
        assert {item["source_id"] for item in listed} == set(main + archived)

        # a second run over the unchanged account fetches no conversation
        bidi.evaluate(library, "document.querySelector('[data-mnemosyne=backup-all]').click()")
        state = bidi.wait_for(
            library,
            f"{progress}.dataset.state === 'done' && {progress}.dataset.skipped === '12'"
            f" ? JSON.stringify({progress}.dataset) : ''",
            timeout=60,
        )
        assert len(fetched) == 12, fetched
