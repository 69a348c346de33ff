"""Untitled conversations in real Chromium with the real host: the library and the popup show each by the plain
words of its first user message (no Markdown marks, a long one cut with an ellipsis), as does the view's heading,
and the library's Title A-Z puts them among the titled ones by those words, in the list and in search
results alike."""

from __future__ import annotations

import pytest

from test_derived_titles import TITLED, expected_titles, write_export

pytestmark = pytest.mark.browser

ROW_TITLES = (
    "[...document.querySelectorAll('[data-mnemosyne=conversation] .row-title')].map((n) => n.textContent)"
)


@pytest.fixture
def untitled_archive(tmp_path, mnemo_cli):
    path = tmp_path / "untitled" / "conversations.json"
    path.parent.mkdir()
    write_export(path)
    mnemo_cli("import", str(path))


def sorted_by_title(library) -> list[str]:
    library.select_option("[data-mnemosyne='sort']", "title")
    library.wait_for_function(
        f"(first) => {ROW_TITLES}[0] === first", arg=expected_titles()[0], timeout=15_000
    )
    return library.evaluate(ROW_TITLES)


def test_untitled_conversations_read_and_sort_by_their_first_words(browser, untitled_archive, ext_url):
    library = browser.new_page()
    library.goto(ext_url("library/library.html"))
    library.locator("[data-mnemosyne='conversation']").nth(len(expected_titles()) - 1).wait_for(
        timeout=15_000
    )
    assert sorted_by_title(library) == expected_titles()
    derived = library.locator(".row-title[data-derived='true']")
    assert derived.count() == len(expected_titles()) - len(TITLED)
    assert "Untitled" not in library.evaluate(ROW_TITLES)
    for title in library.evaluate(ROW_TITLES):
        assert not any(mark in title for mark in ("**", "`", "# ", "](", "> ", "```"))
        assert len(title) <= 80

    # a search's results sort by the same words
    library.fill(
        "[data-mnemosyne='search']", "about"
    )  # the titled ones' first messages, and none of the rest
    library.locator(".row-snippet").first.wait_for(timeout=15_000)
    library.fill("[data-mnemosyne='search']", "sure")  # every answer: all of them, as search results
    library.wait_for_function(
        "(n) => document.querySelectorAll('.row-snippet').length === n",
        arg=len(expected_titles()),
        timeout=15_000,
    )
    assert library.evaluate(ROW_TITLES) == expected_titles()

    # the popup shows the same words
    popup = browser.new_page()
    popup.goto(ext_url("popup/popup.html"))
    popup.locator("[data-mnemosyne='conversation']").nth(len(expected_titles()) - 1).wait_for(timeout=15_000)
    shown = popup.evaluate(
        "[...document.querySelectorAll('[data-mnemosyne=conversation] .item-title')].map((n) => n.textContent)"
    )
    assert sorted(shown, key=str.casefold) == expected_titles()

    # the view of one reads the same words as its heading
    zebra = library.locator(".row-title", has_text="Zebra crossings").locator(
        "xpath=ancestor::*[@data-conversation-id][1]"
    )
    conv_id = zebra.get_attribute("data-conversation-id")
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conv_id}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    assert view.locator("#title").inner_text() == "Zebra crossings in Lisbon, why so many?"
    assert view.title() == "Zebra crossings in Lisbon, why so many?"
