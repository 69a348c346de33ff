"""Export from the captured Gemini and DeepSeek pages, served offline, into the real archive through the real
host: through each site's own API (Gemini's batchexecute pages, DeepSeek's history_messages with the page's
token), and through the page when the API fails. Every message the page shows (counted with html.parser, not
with the extension's selectors) is saved."""

from __future__ import annotations

import json
import re
from collections import Counter
from urllib.parse import parse_qs

import pytest
from closed_ui import ClosedUi
from gemini_deepseek_sites import (
    BATCHEXECUTE,
    DEEPSEEK_TOKEN,
    GEMINI_AT,
    GEMINI_ID,
    deepseek_shown,
    gemini_shown,
    serve_deepseek,
    serve_gemini,
)

pytestmark = pytest.mark.browser


def words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


def saved(mnemo_cli) -> dict:
    [item] = json.loads(mnemo_cli("list", "--json").stdout)
    return json.loads(mnemo_cli("show", item["id"], "--json").stdout)


def message_texts(conversation: dict) -> list[tuple[str, str]]:
    out = []
    for message in conversation["messages"]:
        text = " ".join(p.get("text", "") for p in message["parts"] if p["type"] in ("text", "reasoning"))
        out.append((message["role"], text))
    return out


def assert_every_shown_message_saved(shown, conversation) -> None:
    kept = message_texts(conversation)
    assert [role for role, _ in kept] == [role for role, _ in shown]
    for (role, text), (_, saved_text) in zip(shown, kept, strict=True):
        missing = words(text) - words(saved_text)
        assert not missing, f"{role} message lost words the page shows: {dict(missing.most_common(8))}"


def export(page) -> dict:
    result = ClosedUi(page).export()
    assert result["state"] == "success", result["text"]
    return result


def test_gemini_export_reads_every_page_of_the_api(browser, sites, mnemo_cli):
    page = browser.new_page()
    page.goto(serve_gemini(sites))
    shown = gemini_shown()
    assert len(shown) == 6, "the independent count found the page's three turns"
    # the bar sits in the page's top bar actions, not floating
    ClosedUi(page).wait("[data-mnemosyne='export']")
    assert page.locator("top-bar-actions mnemosyne-ui[data-mnemosyne-host='bar']").count() == 1
    assert export(page)["path"] == "api"
    conversation = saved(mnemo_cli)
    assert conversation["source"]["site"] == "gemini"
    assert conversation["source"]["conversation_id"] == f"c_{GEMINI_ID}"
    assert conversation["provenance"]["method"] == "site_api"
    assert_every_shown_message_saved(shown, conversation)
    asked = [r for r in sites.seen if r["url"].startswith(BATCHEXECUTE)]
    assert len(asked) == 2, "the conversation's second page was read"
    query = parse_qs(asked[0]["url"].split("?", 1)[1])
    assert query["rpcids"] == ["hNvQHb"] and query["f.sid"] == ["-42"] and query["bl"][0].startswith("boq_")
    assert all(r["headers"].get("x-same-domain") == "1" for r in asked)
    # the page's at token went in the POST body, to gemini.google.com only
    assert GEMINI_AT not in " ".join(r["url"] for r in sites.seen)


def test_gemini_export_reads_the_page_when_the_api_fails(browser, sites, mnemo_cli):
    page = browser.new_page()
    page.goto(serve_gemini(sites, api_status=500))
    result = export(page)
    assert result["path"] == "dom"
    conversation = saved(mnemo_cli)
    assert conversation["provenance"]["method"] == "page_dom"
    assert conversation["source"]["site"] == "gemini"
    assert_every_shown_message_saved(gemini_shown(), conversation)
    # the formulas the page shows keep their TeX (this page's attribute holds it with doubled backslashes)
    assert any(re.search(r"\$KE = \\+frac\{1\}\{2\}mv\^2\$", text) for _, text in message_texts(conversation))


def test_deepseek_export_through_the_api_with_the_pages_token(browser, sites, mnemo_cli):
    page = browser.new_page()
    page.goto(serve_deepseek(sites))
    shown = deepseek_shown()
    assert [role for role, _ in shown] == ["user", "assistant"]
    assert export(page)["path"] == "api"
    conversation = saved(mnemo_cli)
    assert (
        conversation["source"]["site"] == "deepseek"
        and conversation["title"] == "User Greets AI Assistant for Testing"
    )
    assert [m["role"] for m in conversation["messages"]] == [role for role, _ in shown]
    assert "DeepSeek" in message_texts(conversation)[1][1]
    asked = [r for r in sites.seen if "/api/v0/chat/history_messages" in r["url"]]
    assert asked and all(r["headers"].get("authorization") == f"Bearer {DEEPSEEK_TOKEN}" for r in asked)
    assert all(
        r["url"].startswith("https://chat.deepseek.com/")
        for r in sites.seen
        if "authorization" in r["headers"]
    )


def test_deepseek_export_reads_the_page_when_the_api_fails(browser, sites, mnemo_cli):
    page = browser.new_page()
    page.goto(serve_deepseek(sites, api_status=403))
    assert export(page)["path"] == "dom"
    conversation = saved(mnemo_cli)
    assert conversation["provenance"]["method"] == "page_dom" and conversation["source"]["site"] == "deepseek"
    assert_every_shown_message_saved(deepseek_shown(), conversation)
    answer = message_texts(conversation)[1][1]
    assert "```elixir" in answer and "| Country |" in answer and "$e^{i\\pi} + 1 = 0$" in answer


def test_a_gemini_tab_can_save_only_gemini(browser, sites, mnemo_cli):
    from gemini_deepseek_sites import deepseek_history, gemini_api_pages
    from test_security import content_script_world

    page = browser.new_page()
    url = serve_gemini(sites)
    page.goto(url)
    send = content_script_world(page)
    deepseek_url = "https://chat.deepseek.com/a/chat/s/d213f7b1-0aa7-47a2-a6cf-3b4910a66b3a"
    gemini_payload = {
        "format": "batchexecute",
        "rpcid": "hNvQHb",
        "conversation_id": f"c_{GEMINI_ID}",
        "title": None,
        "responses": gemini_api_pages(),
    }
    forged = [
        {"type": "save", "kind": "deepseek_api", "payload": deepseek_history(), "source_url": url},
        {"type": "save", "kind": "gemini_api", "payload": gemini_payload, "source_url": deepseek_url},
        {"type": "save", "kind": "deepseek_api", "payload": deepseek_history(), "source_url": deepseek_url},
    ]
    for message in forged:
        reply = send(message)
        assert reply["ok"] is False and reply["error"]["code"] == "FORBIDDEN", (message["kind"], reply)
    assert mnemo_cli("list", "--json").stdout.strip() == "[]"
    reply = send({"type": "save", "kind": "gemini_api", "payload": gemini_payload, "source_url": url})
    assert reply["ok"] is True, reply
    assert [item["site"] for item in json.loads(mnemo_cli("list", "--json").stdout)] == ["gemini"]
