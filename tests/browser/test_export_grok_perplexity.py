"""Export from grok.com and www.perplexity.ai pages served offline into the real archive, through the real host:
with the site's API answering (its JSON read by the host) and with it failing (the page DOM swept). Every
visible turn is saved, counted independently from the served page."""

from __future__ import annotations

import json
import re

import pytest
from closed_ui import ClosedUi
from ext_fakesite import FIXTURES, shell, strip_scripts

pytestmark = pytest.mark.browser

GROK_ID = "495b3f4a-b882-4ce6-b5c9-ee5d317c6d3b"
GROK_PAGE = FIXTURES / "dom_grok" / "built_grok_thread.html"
PPLX = FIXTURES / "more_sites" / "perplexity"
PPLX_PAGES = ("covai__perplexity-chat.html", "sho7650__perplexity__deep-research.html")
SLUG = "tide-tables-Xs6pxUAfRwqwP8Wg0SsM6Q"


def serve_more_sites(browser, sites) -> None:
    """grok.com and www.perplexity.ai answered by the fake sites (later routes win over the offline catch-all)."""
    for origin in ("https://grok.com/**", "https://www.perplexity.ai/**"):
        browser.route(origin, sites._handle)


def archived(mnemo_cli) -> list[dict]:
    return json.loads(mnemo_cli("list", "--json").stdout)


def portable(mnemo_cli, conversation_id: str) -> dict:
    return json.loads(mnemo_cli("show", conversation_id, "--json").stdout)


def texts(conversation: dict) -> str:
    return "\n".join(p.get("text", "") for m in conversation["messages"] for p in m["parts"])


# --- grok.com ------------------------------------------------------------------------------------------


def grok_page() -> tuple[str, list[str]]:
    """The page, and its message ids in page order as a pattern finds them in the HTML."""
    html = GROK_PAGE.read_text(encoding="utf-8")
    ids = re.findall(r'id="response-([0-9a-f-]{36})"', html)
    return shell(html, "Reading files - Grok"), ids


def grok_api(ids: list[str]) -> tuple[dict, dict]:
    nodes = [{"responseId": ids[0], "sender": "human"}]
    for parent, rid in zip(ids, ids[1:]):
        nodes.append(
            {
                "responseId": rid,
                "sender": "ASSISTANT" if len(nodes) % 2 else "human",
                "parentResponseId": parent,
            }
        )
    responses = [
        {**node, "message": f"turn {n} of the API copy", "createTime": f"2026-02-18T18:0{n}:00Z"}
        for n, node in enumerate(nodes)
    ]
    return {"responseNodes": nodes, "inflightResponses": []}, {"responses": responses}


def test_grok_export_through_the_api(browser, sites, mnemo_cli):
    serve_more_sites(browser, sites)
    html, ids = grok_page()
    tree, loaded = grok_api(ids)
    base = f"https://grok.com/rest/app-chat/conversations/{GROK_ID}"
    sites.pages[f"https://grok.com/c/{GROK_ID}"] = html
    sites.json_routes[f"{base}/response-node"] = (200, tree)

    def load(request):
        asked = json.loads(request.post_data or "{}").get("responseIds")
        return (200, loaded) if request.method == "POST" and asked == ids else (400, {"error": "bad request"})

    sites.json_routes[f"{base}/load-responses"] = (200, load)
    page = browser.new_page()
    page.goto(f"https://grok.com/c/{GROK_ID}")
    result = ClosedUi(page).export()
    assert (result["state"], result["path"]) == ("success", "api"), result["text"]
    items = archived(mnemo_cli)
    assert [(i["site"], i["source_id"]) for i in items] == [("grok", GROK_ID)]
    conversation = portable(mnemo_cli, items[0]["id"])
    assert conversation["provenance"]["method"] == "site_api"
    assert [m["id"] for m in conversation["messages"]] == ids  # every turn the page shows
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"] * 2


def test_grok_dom_fallback_when_the_api_fails(browser, sites, mnemo_cli):
    serve_more_sites(browser, sites)
    html, ids = grok_page()
    sites.pages[f"https://grok.com/c/{GROK_ID}"] = html
    sites.json_routes["https://grok.com/rest/"] = (403, {"error": "blocked"})
    page = browser.new_page()
    page.goto(f"https://grok.com/c/{GROK_ID}")
    result = ClosedUi(page).export()
    assert (result["state"], result["path"]) == ("success", "dom"), result["text"]
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    assert (
        conversation["provenance"]["method"] == "page_dom" and conversation["provenance"]["partial"] is False
    )
    assert len(conversation["messages"]) == len(ids) == 4
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"] * 2
    text = texts(conversation)
    assert "```python" in text and "print(line.rstrip())" in text
    assert "| Method | Memory |" in text and "Thought for 4s" in text
    assert conversation["source"]["conversation_id"] == GROK_ID


# --- www.perplexity.ai ---------------------------------------------------------------------------------


def perplexity_page(name: str) -> tuple[str, int]:
    """The page, and how many turns it shows: its questions and its answers, counted by pattern in the HTML."""
    html = strip_scripts((PPLX / name).read_text(encoding="utf-8"))
    shown = len(re.findall(r'class="group/query', html)) + len(re.findall(r'id="markdown-content-\d+"', html))
    return shell(html, "Thread - Perplexity"), shown


def perplexity_thread() -> dict:
    frames = [
        json.loads(line)
        for line in (PPLX / "pplx-agent-tools__sse_example-com-prompt.events.jsonl").read_text().splitlines()
    ]
    entry = dict(next(f for f in frames if f.get("status") == "COMPLETED"), thread_url_slug=SLUG)
    return {"status": "success", "entries": [entry], "has_next_page": False}


def test_perplexity_export_through_the_api(browser, sites, mnemo_cli):
    serve_more_sites(browser, sites)
    html, shown = perplexity_page(PPLX_PAGES[0])
    sites.pages[f"https://www.perplexity.ai/search/{SLUG}"] = html

    def thread(request):
        wanted = ("with_schematized_response=true", "from_first=true")
        return (
            (200, perplexity_thread()) if all(w in request.url for w in wanted) else (400, {"error": "query"})
        )

    sites.json_routes[f"https://www.perplexity.ai/rest/thread/{SLUG}"] = (200, thread)
    page = browser.new_page()
    page.goto(f"https://www.perplexity.ai/search/{SLUG}")
    result = ClosedUi(page).export()
    assert (result["state"], result["path"]) == ("success", "api"), result["text"]
    items = archived(mnemo_cli)
    assert [(i["site"], i["source_id"]) for i in items] == [("perplexity", SLUG)]
    conversation = portable(mnemo_cli, items[0]["id"])
    assert len(conversation["messages"]) == shown == 2
    assert "illustrative examples" in texts(conversation)


@pytest.mark.parametrize("name", PPLX_PAGES)
def test_perplexity_dom_fallback_saves_every_turn(browser, sites, mnemo_cli, name):
    serve_more_sites(browser, sites)
    html, shown = perplexity_page(name)
    sites.pages[f"https://www.perplexity.ai/search/{SLUG}"] = html
    sites.json_routes["https://www.perplexity.ai/rest/"] = (500, {"error": "down"})
    page = browser.new_page()
    page.goto(f"https://www.perplexity.ai/search/{SLUG}")
    result = ClosedUi(page).export()
    assert (result["state"], result["path"]) == ("success", "dom"), result["text"]
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    assert conversation["provenance"]["method"] == "page_dom"
    assert len(conversation["messages"]) == shown == 2
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"]
    # the answer's text as the page shows it, each formula as the TeX it was rendered from
    answer_page = page.evaluate(
        """() => {
          const answer = document.querySelector("[id^='markdown-content-']");
          for (const math of answer.querySelectorAll(".katex")) {
            math.replaceWith(math.querySelector("annotation")?.textContent ?? "");  // after the export: only the test reads it
          }
          return answer.innerText;
        }"""
    )
    words = re.findall(r"\w+", answer_page)
    saved = texts(conversation)
    missing = [w for w in words if w not in saved]
    assert words and not missing, missing[:20]  # the answer's words, as the page shows them
    if "deep-research" in name:
        assert "Perplexity AI 提供機能まとめ" in saved and "| モード |" in saved.replace(
            "  ", " "
        )  # the report box


def test_a_grok_tab_can_save_only_what_grok_sent(browser, sites, mnemo_cli):
    from test_security import content_script_world

    serve_more_sites(browser, sites)
    html, ids = grok_page()
    sites.pages[f"https://grok.com/c/{GROK_ID}"] = html
    page = browser.new_page()
    page.goto(f"https://grok.com/c/{GROK_ID}")
    send = content_script_world(page)
    grok_url = f"https://grok.com/c/{GROK_ID}"
    thread = perplexity_thread()
    tree, loaded = grok_api(ids)
    grok_payload = {"conversation": {"conversationId": GROK_ID}, **tree, **loaded}
    forged = [  # another site's kind, payload or URL from this tab is forbidden
        {"type": "save", "kind": "perplexity_api", "payload": thread, "source_url": grok_url},
        {
            "type": "save",
            "kind": "grok_api",
            "payload": grok_payload,
            "source_url": f"https://www.perplexity.ai/search/{SLUG}",
        },  # fmt: skip
    ]
    for message in forged:
        reply = send(message)
        assert reply["ok"] is False and reply["error"]["code"] == "FORBIDDEN", (message["kind"], reply)
    assert mnemo_cli("list", "--json").stdout.strip() == "[]"
    reply = send({"type": "save", "kind": "grok_api", "payload": grok_payload, "source_url": grok_url})
    assert reply["ok"] is True, reply


def test_continue_in_chatgpt_from_a_perplexity_page(browser, sites):
    """Continue in… from a Perplexity thread whose API fails: the page's turns go into ChatGPT's composer, unsent."""
    from test_continue import CHATGPT_COMPOSER_PAGE, choose

    serve_more_sites(browser, sites)
    html, _shown = perplexity_page(PPLX_PAGES[0])
    sites.pages[f"https://www.perplexity.ai/search/{SLUG}"] = html
    sites.json_routes["https://www.perplexity.ai/rest/"] = (500, {"error": "down"})
    sites.pages["https://chatgpt.com/"] = CHATGPT_COMPOSER_PAGE
    page = browser.new_page()
    page.goto(f"https://www.perplexity.ai/search/{SLUG}")
    window = choose(browser, page, "chatgpt")
    with browser.expect_page() as opened:
        window.locator("[data-mnemosyne='preview-confirm']").click()
    target = opened.value
    composer = target.locator("#prompt-textarea[data-mnemosyne-filled='true']")
    composer.wait_for(timeout=20_000)
    text = composer.inner_text()
    assert "hitting all four elements" in text and "bold text" in text
    assert target.url == "https://chatgpt.com/"  # filled, not sent


def test_perplexity_dom_fallback_reads_a_thread_of_two_entries(browser, sites, mnemo_cli):
    """Both captured pages as one thread (each answer numbered 0, as each page numbers its own): four turns, in
    order, the research report's box with the second answer only."""
    serve_more_sites(browser, sites)
    bodies = [strip_scripts((PPLX / name).read_text(encoding="utf-8")) for name in PPLX_PAGES]
    html = shell("".join(bodies), "Thread - Perplexity")
    shown = len(re.findall(r'class="group/query', html)) + len(re.findall(r'id="markdown-content-\d+"', html))
    sites.pages[f"https://www.perplexity.ai/search/{SLUG}"] = html
    sites.json_routes["https://www.perplexity.ai/rest/"] = (500, {"error": "down"})
    page = browser.new_page()
    page.goto(f"https://www.perplexity.ai/search/{SLUG}")
    result = ClosedUi(page).export()
    assert (result["state"], result["path"]) == ("success", "dom"), result["text"]
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    messages = conversation["messages"]
    assert len(messages) == shown == 4
    assert [m["role"] for m in messages] == ["user", "assistant"] * 2
    first, second = (texts({"messages": [m]}) for m in messages[1::2])
    assert "hitting all four elements" in first and "提供機能まとめ" not in first
    assert "Perplexity AI 提供機能まとめ" in second and "hitting all four elements" not in second
