"""Firefox: Export on the captured Gemini and DeepSeek pages, served offline over WebDriver BiDi, saves through
the real Firefox native host: Gemini through its batchexecute pages (content.fetch POSTs with the page's
tokens), DeepSeek through history_messages with the page's token, and DeepSeek's page when its API refuses."""

from __future__ import annotations

import json

import pytest
from ext_fakesite import FakeSites
from gemini_deepseek_sites import (
    BATCHEXECUTE,
    DEEPSEEK_TOKEN,
    deepseek_shown,
    gemini_shown,
    serve_deepseek,
    serve_gemini,
)
from test_firefox import FIREFOX, firefox, open_and_export, serve_intercepts

from support.cli import mnemo

pytestmark = [pytest.mark.browser, pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")]


def saved(env: dict[str, str], conversation_id: str) -> dict:
    return json.loads(mnemo(env, "show", conversation_id, "--json").stdout)


def test_firefox_exports_gemini_through_its_api_pages(tmp_path, env):
    sites = FakeSites()
    url = serve_gemini(sites)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        detail = open_and_export(bidi, url)
        assert detail["path"] == "api" and detail["status"] == "created", detail
    asked = [seen for seen in sites.seen if seen["url"].startswith(BATCHEXECUTE)]
    assert len(asked) == 2 and all(seen["headers"].get("x-same-domain") == "1" for seen in asked)
    conversation = saved(ff_env, detail["conversationId"])
    assert conversation["source"]["site"] == "gemini" and conversation["provenance"]["method"] == "site_api"
    assert [m["role"] for m in conversation["messages"]] == [role for role, _ in gemini_shown()]


def test_firefox_exports_deepseek_through_its_api_and_its_page(tmp_path, env):
    sites = FakeSites()
    url = serve_deepseek(sites)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        through_api = open_and_export(bidi, url)
        assert through_api["path"] == "api" and through_api["status"] == "created", through_api
        refused = FakeSites()
        serve_deepseek(refused, api_status=403)
        sites.json_routes.update(refused.json_routes)
        from_page = open_and_export(bidi, url)
        assert from_page["path"] == "dom", from_page
    asked = [seen for seen in sites.seen if "/api/v0/chat/history_messages" in seen["url"]]
    assert asked and asked[0]["headers"].get("authorization") == f"Bearer {DEEPSEEK_TOKEN}"
    conversation = saved(ff_env, through_api["conversationId"])
    assert conversation["source"]["site"] == "deepseek"
    assert [m["role"] for m in conversation["messages"]] == [role for role, _ in deepseek_shown()]
