"""Firefox: grok.com's Export through its API, whose turns come from a POST (load-responses) read a chunk at a
time through `content.fetch`, the page's fetch: the reply crosses Firefox's Xray wrappers and must still parse."""

from __future__ import annotations

import json

import pytest
from ext_fakesite import FakeSites
from test_export_grok_perplexity import GROK_ID, grok_api, grok_page
from test_firefox import FIREFOX, firefox, open_and_export, serve_intercepts

from support.cli import mnemo

pytestmark = pytest.mark.browser


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_grok_export_reads_the_posted_turns(tmp_path, env):
    sites = FakeSites()
    html, ids = grok_page()
    tree, loaded = grok_api(ids)
    base = f"https://grok.com/rest/app-chat/conversations/{GROK_ID}"
    sites.pages[f"https://grok.com/c/{GROK_ID}"] = html
    sites.json_routes[f"{base}/response-node"] = (200, tree)
    sites.json_routes[f"{base}/load-responses"] = (200, loaded)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        detail = open_and_export(bidi, f"https://grok.com/c/{GROK_ID}")
        assert (detail["path"], detail["status"]) == ("api", "created"), detail

    assert any(seen["url"].endswith("/load-responses") for seen in sites.seen)
    shown = json.loads(mnemo(ff_env, "show", detail["conversationId"], "--json").stdout)
    assert [m["id"] for m in shown["messages"]] == ids
    assert "turn 1 of the API copy" in "\n".join(
        p.get("text", "") for m in shown["messages"] for p in m["parts"]
    )
