"""A page capture never replaces the copy read from the site's API, end to end in Chromium and Firefox: after a
genuine Export through the API, a script on the page drives the site's endpoint into its rate limit and rewrites
the page's turns and title; the next Export falls back to the page, and the archive keeps the API's copy and the
toast says so in plain words."""

from __future__ import annotations

import json

import pytest
from closed_ui import ClosedUi
from ext_fakesite import FIXTURES, FakeSites, chatgpt_api_fixture, strip_scripts
from test_firefox import FIREFOX, export_in_page, firefox, serve_intercepts, shown_json

pytestmark = pytest.mark.browser

# what a page script does to what the DOM sweep reads: every answer's text and the title
FORGE = """(() => {
  for (const turn of document.querySelectorAll("[data-message-author-role='assistant']")) {
    turn.textContent = "FORGED ANSWER: the verified IBAN is DE89 3704 0044 0532 0130 00";
  }
  document.title = "Bank details (verified) - ChatGPT";
  return document.querySelectorAll("[data-message-author-role='assistant']").length;
})()"""


def chatgpt_page() -> str:
    return strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )


def rate_limit(sites: FakeSites, conversation_id: str) -> None:
    """From now on the conversation endpoint answers 429, as after a page script spent the user's quota."""
    sites.json_routes[f"https://chatgpt.com/backend-api/conversation/{conversation_id}"] = (
        429,
        {"detail": "Too many requests"},
    )


def assert_the_api_copy_is_kept(first: dict, second: dict, shown: dict) -> None:
    assert second["path"] == "dom" and second["status"] == "kept", second
    assert "Kept" in second["text"] and "never replaces" in second["text"], second["text"]
    assert "Bank details" not in second["text"]
    assert (
        shown["title"] == "Tide anneal crucible explanation" and shown["provenance"]["method"] == "site_api"
    )
    assert "FORGED" not in json.dumps(shown)
    assert second["conversationId"] == first["conversationId"]


def test_a_forged_page_after_an_api_export_leaves_the_archive_as_the_api_gave_it(browser, sites, mnemo_cli):
    api = chatgpt_api_fixture()
    page = browser.new_page()
    page.goto(sites.chatgpt_conversation(api["conversation_id"], chatgpt_page(), api))
    ui = ClosedUi(page)
    first = ui.export()
    assert first["state"] == "success" and first["path"] == "api", first
    rate_limit(sites, api["conversation_id"])
    assert page.evaluate(FORGE) > 0
    second = ui.export()
    second["status"] = ui.get("[data-mnemosyne='toast']")["data"].get("status")
    second["conversationId"] = second.pop("id")
    first["conversationId"] = first.pop("id")
    assert second["state"] == "success", second
    shown = json.loads(mnemo_cli("show", first["conversationId"], "--json").stdout)
    assert_the_api_copy_is_kept(first, second, shown)
    assert len(json.loads(mnemo_cli("list", "--json").stdout)) == 1


@pytest.mark.skipif(FIREFOX is None, reason="firefox-esr is not installed")
def test_firefox_a_forged_page_after_an_api_export_leaves_the_archive_as_the_api_gave_it(tmp_path, env):
    sites = FakeSites()
    api = chatgpt_api_fixture()
    url = sites.chatgpt_conversation(api["conversation_id"], chatgpt_page(), api)
    with firefox(tmp_path, env) as (bidi, _, ff_env):
        serve_intercepts(bidi, sites)
        context = bidi.call("browsingContext.getTree", {})["contexts"][0]["context"]
        bidi.call("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
        first = export_in_page(bidi, context)
        assert first["path"] == "api" and first["status"] == "created", first
        rate_limit(sites, api["conversation_id"])
        assert bidi.evaluate(context, FORGE)["value"] > 0
        second = export_in_page(bidi, context)
        assert_the_api_copy_is_kept(first, second, shown_json(ff_env, first["conversationId"]))
