"""The library page over an archive of 10,000 conversations built by the test through `mnemo import` (the
real host then serves every list and search): opened from the popup, paged as it scrolls, filtered by site
and dates, sorted, searched by a half-remembered phrase with the hit marked, driven by the keyboard, and
telling a user what to do when nothing matches."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest

from robustness.figures import record

pytestmark = pytest.mark.browser
CHATGPT = 9_000
CLAUDE = 1_000
PAGE = 100
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
WORDS = ["tide", "crucible", "harbour", "lantern"]


def chatgpt_export(n: int) -> list[dict]:
    """A ChatGPT export: conversation i was last active at T0 + i hours."""
    out = []
    for i in range(n):
        cid = f"00000000-0000-4000-8000-{i:012d}"
        t = (T0 + timedelta(hours=i)).timestamp()
        word = WORDS[i % 4]

        def node(node_id, parent, children, role, text, when):
            message = {
                "id": node_id,
                "author": {"role": role},
                "create_time": when,
                "content": {"content_type": "text", "parts": [text]},
            }
            return {"id": node_id, "parent": parent, "children": children, "message": message}

        mapping = {
            "root": {"id": "root", "message": None, "parent": None, "children": ["u"]},
            "u": node("u", "root", ["a"], "user", f"question {i} about the {word}", t),
            "a": node("a", "u", [], "assistant", f"answer {i}: the {word} numbered zq{i:05d}", t),
        }
        out.append(
            {
                "title": f"Conversation {i:05d} {word}",
                "create_time": t,
                "update_time": t,
                "mapping": mapping,
                "current_node": "a",
                "conversation_id": cid,
                "id": cid,
            }
        )
    return out


def claude_export(n: int) -> list[dict]:
    out = []
    for i in range(n):
        when = (T0 + timedelta(hours=i, minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
        messages = [
            {"uuid": f"c{i}-0", "sender": "human", "text": f"claude question {i}", "created_at": when},
            {"uuid": f"c{i}-1", "sender": "assistant", "text": f"claude answer {i}", "created_at": when},
        ]
        out.append(
            {
                "uuid": f"11111111-0000-4000-8000-{i:012d}",
                "name": f"Claude chat {i:05d}",
                "created_at": when,
                "updated_at": when,
                "chat_messages": messages,
            }
        )
    return out


@pytest.fixture
def big_archive(tmp_path, mnemo_cli):
    for name, export in (("chatgpt", chatgpt_export(CHATGPT)), ("claude", claude_export(CLAUDE))):
        path = tmp_path / f"{name}-export" / "conversations.json"
        path.parent.mkdir()
        path.write_text(json.dumps(export), encoding="utf-8")
        mnemo_cli("import", str(path))
    assert len(json.loads(mnemo_cli("list", "--json", "--limit", "1").stdout)) == 1


def rows(page):
    return page.locator("[data-mnemosyne='conversation']")


def scroll_to_end(page, expected: int) -> None:
    """Scroll until `expected` rows are shown (each scroll pulls the next host page)."""
    while rows(page).count() < expected:
        shown = rows(page).count()
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_function(
            "(n) => document.querySelectorAll('[data-mnemosyne=conversation]').length > n", arg=shown
        )


def test_library_over_ten_thousand_conversations(browser, big_archive, ext_url, screenshot):
    popup = browser.new_page()
    popup.goto(ext_url("popup/popup.html"))
    rows(popup).first.wait_for(timeout=30_000)
    started = time.perf_counter()
    with browser.expect_page() as opened:
        popup.locator("[data-mnemosyne='open-library']").click()
    library = opened.value
    rows(library).first.wait_for(timeout=30_000)
    record(
        "library",
        "time to first rows from the popup click, 10,000 conversations (s)",
        round(time.perf_counter() - started, 2),
    )
    assert library.url == ext_url("library/library.html")

    # newest first, one host page at a time; scrolling fetches the next
    library.locator("#status", has_text="scroll").wait_for()
    assert rows(library).count() == PAGE
    assert rows(library).first.get_attribute("data-site") == "chatgpt"  # chatgpt i=8999 is the newest
    assert (
        library.locator(".row-title").first.text_content()
        == f"Conversation {CHATGPT - 1:05d} {WORDS[(CHATGPT - 1) % 4]}"
    )
    scroll_to_end(library, 3 * PAGE)
    titles = library.locator(".row-title").all_text_contents()
    assert len(set(titles)) == len(titles)
    screenshot(library, "library-light")

    # filter by site: every Claude conversation, and nothing else, paged to the end
    library.locator("[data-mnemosyne='filter-site']").select_option("claude")
    library.locator("#status", has_text="scroll").wait_for()
    scroll_to_end(library, CLAUDE)
    library.locator("#status", has_text=f"{CLAUDE} conversations").wait_for()
    assert set(
        library.locator("[data-mnemosyne='conversation']").evaluate_all(
            "(rs) => rs.map((r) => r.dataset.site)"
        )
    ) == {"claude"}

    # a date range (days are whole, both ends included) and oldest first
    library.locator("[data-mnemosyne='filter-site']").select_option("")
    library.locator("#since").fill("2024-01-02")
    library.locator("#until").fill("2024-01-03")
    library.locator("[data-mnemosyne='sort']").select_option("oldest")
    library.locator("#status", has_text="96 conversations").wait_for()  # 48 hours x (chatgpt + claude)
    first, last = (
        library.locator(".row-title").first.text_content(),
        library.locator(".row-title").last.text_content(),
    )
    assert (first, last) == ("Conversation 00024 tide", "Claude chat 00071")

    # a half-remembered phrase: ranked search with the hit marked; the date filter still applies
    library.locator("#since").fill("")
    library.locator("#until").fill("")
    library.locator("#filters").dispatch_event("change")
    started = time.perf_counter()
    library.locator("[data-mnemosyne='search']").fill("zq04242")
    library.locator(".row-title", has_text="04242").wait_for()
    record(
        "library",
        "search as you type to the one hit, 10,000 conversations (s)",
        round(time.perf_counter() - started, 2),
    )
    assert library.locator(".row-title").all_text_contents() == [f"Conversation 04242 {WORDS[4242 % 4]}"]
    assert library.locator(".row-snippet mark").first.text_content().lower() == "zq04242"

    # keyboard: down from the search box to the row, Enter opens it in the view
    library.locator("[data-mnemosyne='search']").press("ArrowDown")
    assert library.evaluate("document.activeElement.dataset.mnemosyne") == "conversation"
    with browser.expect_page() as view_opened:
        library.keyboard.press("Enter")
    view = view_opened.value
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    assert "zq04242" in view.locator("[data-mnemosyne='transcript']").text_content()

    # nothing found: an empty state that says so
    library.locator("[data-mnemosyne='search']").fill("nothing-is-called-this")
    library.locator("[data-mnemosyne='empty']").wait_for()
    assert rows(library).count() == 0
    library.emulate_media(color_scheme="dark")
    library.locator("[data-mnemosyne='search']").fill("")
    rows(library).first.wait_for()
    screenshot(library, "library-dark")


def test_library_empty_archive_says_what_to_do(browser, ext_url):
    library = browser.new_page()
    library.goto(ext_url("library/library.html"))
    empty = library.locator("[data-mnemosyne='empty']")
    empty.wait_for(timeout=15_000)
    assert "Export" in empty.text_content()
    assert rows(library).count() == 0


def test_multi_select_exports_a_zip_like_mnemo_export_and_deletes_with_undo(
    browser, tmp_path, mnemo_cli, ext_url, screenshot
):
    import zipfile

    path = tmp_path / "small-export" / "conversations.json"
    path.parent.mkdir()
    path.write_text(json.dumps(chatgpt_export(5)), encoding="utf-8")
    mnemo_cli("import", str(path))
    library = browser.new_page()
    library.goto(ext_url("library/library.html"))
    library.locator("#status", has_text="5 conversations").wait_for(timeout=15_000)
    ids = rows(library).evaluate_all("(rs) => rs.map((r) => r.dataset.conversationId)")

    # two by mouse, one by keyboard (Space on the focused row)
    rows(library).nth(0).locator("[data-mnemosyne='select']").check()
    rows(library).nth(1).locator("[data-mnemosyne='select']").check()
    rows(library).nth(3).focus()
    library.keyboard.press(" ")
    library.locator("#selection-count", has_text="3 selected").wait_for()
    screenshot(library, "library-selection")
    with library.expect_download() as downloaded:
        library.locator("[data-mnemosyne='export-zip']").click()
    archive = tmp_path / "chosen.zip"
    downloaded.value.save_as(archive)
    exported = tmp_path / "mnemo-export"
    mnemo_cli("export", "--to", "markdown", str(exported))
    with zipfile.ZipFile(archive) as zipped:
        names = sorted(zipped.namelist())
        assert len(names) == 3
        for name in names:
            assert zipped.read(name) == (exported / name).read_bytes(), name
    chosen = {ids[0], ids[1], ids[3]}
    assert all(any(i in name for i in chosen) for name in names)

    # delete two, undo: nothing is deleted; delete again: the host deletes exactly those two
    library.locator("[data-mnemosyne='clear-selection'], #clear-selection").first.click()
    for index in (0, 2):
        rows(library).nth(index).locator("[data-mnemosyne='select']").check()
    library.locator("[data-mnemosyne='delete-selected']").click()
    library.locator("[data-mnemosyne='undo']").click()
    library.locator("#status", has_text="Nothing was deleted").wait_for()
    assert rows(library).evaluate_all("(rs) => rs.filter((r) => !r.hidden).length") == 5
    assert len(json.loads(mnemo_cli("list", "--json").stdout)) == 5
    for index in (0, 2):
        rows(library).nth(index).locator("[data-mnemosyne='select']").check()
    library.locator("[data-mnemosyne='delete-selected']").click()
    assert rows(library).evaluate_all("(rs) => rs.filter((r) => !r.hidden).length") == 3
    library.locator("#status", has_text="Deleted 2").wait_for(timeout=15_000)
    left = {item["id"] for item in json.loads(mnemo_cli("list", "--json").stdout)}
    assert left == set(ids) - {ids[0], ids[2]}


def test_library_filters_and_sorts_real_conversations_through_the_ui(browser, mnemo_cli, ext_url, screenshot):
    """The fixture exports (ChatGPT and Claude) through `mnemo import`; the project, model, has-code and
    has-attachments filters and the title and length sorts, chosen in the page, show the host's sets in order."""
    from ext_fakesite import FIXTURES

    for name in ("chatgpt_export", "claude_export"):
        mnemo_cli("import", str(FIXTURES / name))
    every = json.loads(mnemo_cli("list", "--json", "--limit", "0").stdout)
    library = browser.new_page()
    library.goto(ext_url("library/library.html"))
    rows(library).first.wait_for(timeout=30_000)
    assert len(every) > PAGE  # more than one host page: the cursors of each order are used

    def shown() -> list[str]:
        return rows(library).evaluate_all("(rs) => rs.map((r) => r.dataset.conversationId)")

    def settle(count: int) -> None:
        """Every page of the new list fetched (kept scrolled to the end, which pulls the next) and the count said."""
        library.wait_for_function(
            """(n) => {
              window.scrollTo(0, document.body.scrollHeight);
              return document.querySelectorAll("[data-mnemosyne=conversation]").length === n
                && document.querySelector("#status").textContent === `${n} conversation${n === 1 ? "" : "s"}`;
            }""",
            arg=count,
        )

    by_length = sorted(every, key=lambda i: (i["length"], i["id"]), reverse=True)
    library.locator("[data-mnemosyne='sort']").select_option("length")
    settle(len(every))
    assert shown() == [i["id"] for i in by_length]

    # has code, chosen from the keyboard (Space on the focused checkbox)
    library.locator("[data-mnemosyne='filter-has-code']").focus()
    library.keyboard.press("Space")
    coded = [i["id"] for i in by_length if i["has_code"]]
    assert 0 < len(coded) < len(every)
    settle(len(coded))
    assert shown() == coded

    # a model from the host's choices, and has attachments too
    models = library.locator("[data-mnemosyne='filter-model'] option").evaluate_all(
        "(os) => os.map((o) => o.value)"
    )
    assert "gpt-4o" in models and "" in models
    library.locator("[data-mnemosyne='filter-model']").select_option("gpt-4o")
    library.locator("[data-mnemosyne='filter-has-attachments']").check()
    want = [i["id"] for i in by_length if i["has_code"] and i["has_attachments"] and i["model"] == "gpt-4o"]
    assert want
    settle(len(want))
    assert shown() == want

    # all filters off, title A-Z
    library.locator("[data-mnemosyne='filter-model']").select_option("")
    library.locator("[data-mnemosyne='filter-has-attachments']").uncheck()
    library.locator("[data-mnemosyne='filter-has-code']").uncheck()
    library.locator("[data-mnemosyne='sort']").select_option("title")
    settle(len(every))
    # an untitled conversation sorts by the words it shows: its first message's (the host's first_words)
    key = lambda i: (" ".join((i["title"] or i.get("first_words") or "").casefold().split()), i["id"])  # noqa: E731
    assert shown() == [i["id"] for i in sorted(every, key=key)]

    # a project (the custom GPT of one fixture conversation)
    projects = {i["project"] for i in every} - {None}
    if projects:
        project = sorted(projects)[0]
        library.locator("[data-mnemosyne='filter-project']").select_option(project)
        want = [i["id"] for i in sorted(every, key=key) if i["project"] == project]
        settle(len(want))
        assert shown() == want
        library.locator("[data-mnemosyne='filter-project']").select_option("")

    # a search, filtered by has code and sorted longest first in the page
    library.locator("[data-mnemosyne='search']").fill("the")
    library.locator("#status", has_text="matches").wait_for()
    library.locator("[data-mnemosyne='filter-has-code']").check()
    library.locator("#status", has_text="matches").wait_for()
    library.locator("[data-mnemosyne='sort']").select_option("length")
    library.locator("#status", has_text="matches").wait_for()
    lengths = {i["id"]: i["length"] for i in every}
    ids = shown()
    assert ids and set(ids) <= set(coded)
    assert [lengths[i] for i in ids] == sorted((lengths[i] for i in ids), reverse=True)
    library.emulate_media(color_scheme="dark")
    screenshot(library, "library-filters-dark")


@pytest.fixture
def ten_thousand(env):
    """10,000 conversations imported with `mnemo import` before the browser starts."""
    import library_archive

    return library_archive.build(env)


def select_filters(page, *, site="", project="", model="", code=False, attachments=False, since="", until=""):
    """Set every filter control at once, then one change event (one refresh of the list)."""
    page.evaluate(
        """(f) => {
          const $ = (id) => document.getElementById(id);
          $("site").value = f.site; $("project").value = f.project; $("model").value = f.model;
          $("has-code").checked = f.code; $("has-attachments").checked = f.attachments;
          $("since").value = f.since; $("until").value = f.until;
          $("filters").dispatchEvent(new Event("change"));
        }""",
        {
            "site": site,
            "project": project,
            "model": model,
            "code": code,
            "attachments": attachments,
            "since": since,
            "until": until,
        },
    )


def shown_when_settled(page, count: int) -> list[str]:
    """The row ids once exactly `count` are shown and the status says that is all (scrolling pulls each page)."""
    page.wait_for_function(
        """(n) => {
          window.scrollTo(0, document.body.scrollHeight);
          return document.querySelectorAll("[data-mnemosyne=conversation]").length === n
            && document.querySelector("#status").textContent === `${n} conversations`;
        }""",
        arg=count,
        timeout=60_000,
    )
    return rows(page).evaluate_all("(rs) => rs.map((r) => r.dataset.conversationId)")


def shown_first(page, count: int) -> list[str]:
    """The first `count` row ids (scrolling until the pages that hold them have come)."""
    page.wait_for_function(
        """(n) => {
          window.scrollTo(0, document.body.scrollHeight);
          return document.querySelectorAll("[data-mnemosyne=conversation]").length >= n;
        }""",
        arg=count,
        timeout=60_000,
    )
    return rows(page).evaluate_all("(rs, n) => rs.slice(0, n).map((r) => r.dataset.conversationId)", count)


def test_every_filter_and_sort_over_ten_thousand_conversations(ten_thousand, browser, ext_url, screenshot):
    """Each sort of the menu over all 10,000 (the first three host pages, so two cursors each), and each
    filter (project, model, has code, has attachments, a date range, site) over its whole set, paged to the
    end, against the order worked out from the generated conversations."""
    from library_archive import expected

    convs = ten_thousand
    library = browser.new_page()
    library.goto(ext_url("library/library.html"))
    rows(library).first.wait_for(timeout=30_000)
    assert library.locator("#selection").is_hidden()  # no "0 selected" bar before anything is chosen
    sort = library.locator("[data-mnemosyne='sort']")

    for order in ("newest", "oldest", "created", "title", "length"):
        sort.select_option(order)
        assert shown_first(library, 3 * PAGE) == expected(convs, order)[: 3 * PAGE], order

    def check(order: str, keep, **chosen) -> int:
        sort.select_option(order)
        select_filters(library, **chosen)
        want = expected(convs, order, keep)
        assert 0 < len(want) < len(convs) // 10, chosen
        assert shown_when_settled(library, len(want)) == want, (order, chosen)
        return len(want)

    assert check("length", lambda c: c.project == "Alpha", project="Alpha") == 625
    assert check("title", lambda c: c.model == "o3", model="o3") == 200
    assert check("created", lambda c: c.has_code, code=True) == 770
    assert check("oldest", lambda c: c.has_attachments, attachments=True) == 223
    # a date range of last activity: whole days, both ends included
    check(
        "newest",
        lambda c: "2024-03-01" <= c.updated[:10] <= "2024-03-10",
        since="2024-03-01",
        until="2024-03-10",
    )
    # every kind at once
    assert (
        check("oldest", lambda c: c.site == "claude" and c.project == "Alpha", site="claude", project="Alpha")
        == 125
    )
    library.evaluate("scrollTo(0, 0)")  # the filters chosen, above the rows they give
    screenshot(library, "library-filtered")
    check(
        "title",
        lambda c: c.site == "chatgpt" and c.project == "Alpha" and c.has_code and c.model == "gpt-4o",
        site="chatgpt",
        project="Alpha",
        model="gpt-4o",
        code=True,
    )
