"""Export from served chatgpt.com / claude.ai pages into the real archive, through the real host.

API path first (the site's JSON), DOM fallback when the API routes fail, and the "host not installed" message.
"""

from __future__ import annotations

import json

import pytest
from closed_ui import ClosedUi
from ext_fakesite import (
    FIXTURES,
    block_chatgpt_api,
    chatgpt_api_fixture,
    claude_api_from_export,
    claude_export_conversation,
    idless_chatgpt_pages,
    shell,
    strip_scripts,
)

pytestmark = pytest.mark.browser


def chatgpt_page() -> str:
    return strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )


def claude_page() -> str:
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_edges_claude_001.html").read_text(encoding="utf-8"))
    return shell(body, "Research question - Claude")


def export(page) -> dict:
    return ClosedUi(page).export()


def archived(mnemo_cli) -> list[dict]:
    return json.loads(mnemo_cli("list", "--json").stdout)


def portable(mnemo_cli, conversation_id: str) -> dict:
    return json.loads(mnemo_cli("show", conversation_id, "--json").stdout)


def test_chatgpt_export_through_api_saves_to_archive(browser, sites, mnemo_cli, screenshot):
    api = chatgpt_api_fixture()
    url = sites.chatgpt_conversation(api["conversation_id"], chatgpt_page(), api)
    page = browser.new_page()
    page.goto(url)
    ClosedUi(page).wait("[data-mnemosyne='export']")
    # placed in the site's header actions, not floating
    assert (
        page.locator(
            "[data-testid='thread-header-right-actions'] mnemosyne-ui[data-mnemosyne-host='bar']"
        ).count()
        == 1
    )
    screenshot(page.locator("header").first, "chatgpt-export-button")
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert result["path"] == "api"
    assert "Tide anneal crucible explanation" in result["text"]
    items = archived(mnemo_cli)
    assert [item["title"] for item in items] == ["Tide anneal crucible explanation"]
    assert items[0]["site"] == "chatgpt" and items[0]["source_id"] == api["conversation_id"]
    conversation = portable(mnemo_cli, items[0]["id"])
    assert conversation["provenance"]["method"] == "site_api"
    assert {m["role"] for m in conversation["messages"]} >= {"user", "assistant"}
    # the token went to chatgpt.com only, as a bearer header on the conversation request
    conv_requests = [r for r in sites.seen if "/backend-api/conversation/" in r["url"]]
    assert conv_requests and all(
        r["headers"].get("authorization", "").startswith("Bearer ") for r in conv_requests
    )
    assert all(
        r["url"].startswith("https://chatgpt.com/") for r in sites.seen if "authorization" in r["headers"]
    )
    # saving again is idempotent
    again = export(page)
    assert again["id"] == result["id"]
    assert len(archived(mnemo_cli)) == 1


def test_claude_export_through_api_uses_chat_org(browser, sites, mnemo_cli):
    api = claude_api_from_export(claude_export_conversation())
    url = sites.claude_conversation(claude_page(), api)
    page = browser.new_page()
    page.goto(url)
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert result["path"] == "api"
    items = archived(mnemo_cli)
    assert items[0]["title"] == "Code Execution with Tools" and items[0]["site"] == "claude"
    conversation = portable(mnemo_cli, items[0]["id"])
    tool_calls = [p for m in conversation["messages"] for p in m["parts"] if p["type"] == "tool_call"]
    assert len(tool_calls) == 2
    asked = [r["url"] for r in sites.seen if "/chat_conversations/" in r["url"]]
    assert asked and "api-only-org" not in asked[0]  # the org that can chat is tried first


def test_chatgpt_dom_fallback_when_api_forbidden(browser, sites, mnemo_cli):
    url = sites.chatgpt_conversation(
        "68b0f1c2-aaaa-bbbb-cccc-0123456789ab", chatgpt_page(), None, api_status=403
    )
    page = browser.new_page()
    page.goto(url)
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert result["path"] == "dom"
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    assert conversation["provenance"]["method"] == "page_dom"
    assert conversation["provenance"]["partial"] is False  # turns 1..4 all seen
    roles = [m["role"] for m in conversation["messages"]]
    assert roles == ["user", "assistant", "user", "assistant"]
    models = {m.get("model") for m in conversation["messages"] if m["role"] == "assistant"}
    assert models - {None}, "the model slug of the assistant turns is kept"


def test_two_id_less_chats_at_the_same_url_are_two_entries(browser, sites, mnemo_cli):
    """Logged-out and temporary chats all live at https://chatgpt.com/ with no id: a URL is never an identity,
    so two different chats saved from there are two entries, and the first is intact after the second."""
    block_chatgpt_api(sites)
    first_html, second_html = idless_chatgpt_pages()
    page = browser.new_page()
    sites.pages["https://chatgpt.com/"] = first_html
    page.goto("https://chatgpt.com/")
    first = export(page)
    assert (first["state"], first["path"]) == ("success", "dom"), first
    before = portable(mnemo_cli, first["id"])
    sites.pages["https://chatgpt.com/"] = second_html
    page.reload()
    second = export(page)
    assert (second["state"], second["path"]) == ("success", "dom"), second
    assert second["id"] != first["id"]
    assert sorted(item["id"] for item in archived(mnemo_cli)) == sorted([first["id"], second["id"]])
    after = portable(mnemo_cli, first["id"])
    assert after["messages"] == before["messages"] and after["source"].get("conversation_id") is None


def test_claude_dom_fallback_keeps_code_language(browser, sites, mnemo_cli):
    body = strip_scripts((FIXTURES / "dom_claude" / "ys_claude.html").read_text(encoding="utf-8"))
    url = sites.claude_conversation(shell(body, "DOM question - Claude"), None, api_status=500)
    page = browser.new_page()
    page.goto(url)
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert result["path"] == "dom"
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"]
    code = [p for m in conversation["messages"] for p in m["parts"] if p["type"] == "code"]
    texts = "\n".join(p.get("text", "") for m in conversation["messages"] for p in m["parts"])
    assert code == [] and "```javascript" in texts  # a page capture keeps code as Markdown fences
    assert "querySelectorAll" in texts
    # no data-index rows in this page and no scrolling needed: the sweep saw the whole thread
    assert conversation["provenance"]["partial"] is False


def test_missing_host_says_how_to_install(browser_without_host, sites):
    api = chatgpt_api_fixture()
    url = sites.chatgpt_conversation(api["conversation_id"], chatgpt_page(), api)
    page = browser_without_host.new_page()
    page.goto(url)
    result = export(page)
    assert result["state"] == "error"
    # the README's set-up commands, in plain words, with "Check again"; no code, no wrong package name
    assert "pip install .\nmnemo install --browser all" in result["text"]
    assert "not set up" in result["text"] and "Check again" in result["text"]
    assert "HOST_NOT_FOUND" not in result["text"] and "pip install mnemosyne" not in result["text"]
    ui = ClosedUi(page)
    ui.click("[data-mnemosyne='setup-check']")
    for _ in range(100):  # the worker's hello fails fast: a poll while its reply arrives
        still = ui.get("[data-mnemosyne='setup-result']") or {"text": ""}
        if still["text"] and not still["text"].startswith("Checking"):
            break
        page.wait_for_timeout(100)
    assert still["text"].startswith("Still not found"), still


def test_dom_fallback_marks_a_thread_with_missing_turns_partial(browser, sites, mnemo_cli):
    # a saved fragment holding only conversation-turn-9 and -10: turns 1..8 were never seen
    body = strip_scripts((FIXTURES / "dom_chatgpt" / "ys_chatgpt.html").read_text(encoding="utf-8"))
    url = sites.chatgpt_conversation(
        "68b0f1c2-dddd-eeee-ffff-0123456789ab", shell(body, "Fragment - ChatGPT"), None, api_status=500
    )
    page = browser.new_page()
    page.goto(url)
    result = export(page)
    assert result["state"] == "success", result["text"]
    assert "missing" in result["text"]  # the toast says the capture is partial
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    assert conversation["provenance"]["partial"] is True
    code = [p for m in conversation["messages"] for p in m["parts"] if p["type"] == "code"]
    texts = "".join(p.get("text", "") for m in conversation["messages"] for p in m["parts"]) + "".join(
        p["code"] for p in code
    )
    assert code == [] and "```html" in texts  # a page capture keeps code as Markdown fences
    assert "나의 말" not in texts  # screen-reader labels are not content


def test_dom_fallback_markdown_keeps_math_tables_and_emphasis(browser, sites, mnemo_cli):
    cases = FIXTURES / "dom_chatgpt" / "jsh9_test_cases"
    body = "".join(
        strip_scripts((cases / name).read_text(encoding="utf-8"))
        for name in ("2023_08_new_format.html", "table_and_list.html")
    )
    url = sites.chatgpt_conversation(
        "68b0f1c2-1111-2222-3333-0123456789ab", shell(body, "Math and tables - ChatGPT"), None, api_status=403
    )
    page = browser.new_page()
    page.goto(url)
    result = export(page)
    assert result["state"] == "success", result["text"]
    conversation = portable(mnemo_cli, archived(mnemo_cli)[0]["id"])
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"] * 5
    text = "\n".join(p.get("text", "") for m in conversation["messages"] for p in m["parts"])
    expected = (cases / "table_and_list.md").read_text(encoding="utf-8")
    for line in (
        "| Keyword | Scope | Mutability | Hoisting |",
        "| `const` | Block-scoped | Immutable | Not hoisted |",
    ):
        assert line in expected and line in text
    assert "$1234^{5678}$" in text and "$5678^{1234}$" in text  # KaTeX kept as its TeX annotation
    assert "- **Scope**: Refers to the part of the program" in text
    assert "katex" not in text.lower()
