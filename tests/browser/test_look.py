"""Every extension surface in real Chromium, light and dark, with and without the host: body text reads at
14-16 px (Chromium's extension-page stylesheet shrinks an unset body to 75 %), the popup fits Chrome's 600 px
cap with search first, the library's filters sit in one row at 1280 px, and without the host each surface shows
the README's set-up commands with "Check again" and no raw code. Screenshots of each go to the folder named by
MNEMOSYNE_SCREENSHOTS (default /tmp/mnemosyne-screenshots), never into the repository."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from closed_ui import ClosedUi
from ext_fakesite import chatgpt_api_fixture
from test_export import chatgpt_page
from test_view_render import EDITS, FIXTURES, FORKED, tide_with_extras

from support.cli import mnemo

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("MNEMOSYNE_SCREENSHOTS", "/tmp/mnemosyne-screenshots"))
SETUP_COMMANDS = "pip install .\nmnemo install --browser all"
BODY = """() => ({font: parseFloat(getComputedStyle(document.body).fontSize),
  background: getComputedStyle(document.body).backgroundColor,
  text: document.body.innerText})"""


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def import_many(tmp_path, env, count: int) -> list[str]:
    """`count` conversations (the Tide one with rich extras, then copies of the ChatGPT fixture) through
    `mnemo import`; their archive ids, newest first."""
    first = tide_with_extras()
    others = []
    for i in range(count - 1):
        api = copy.deepcopy(chatgpt_api_fixture())
        api["title"] = f"Saved conversation {i + 1}" if i else None  # one untitled, as many imports are
        api["conversation_id"] = f"6925e174-6714-832f-8946-{i:012d}"
        api["id"] = api["conversation_id"]
        api["update_time"] = float(api.get("update_time") or 1.7e9) - (i + 1) * 3600
        others.append(api)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([first, *others]), encoding="utf-8")
    mnemo(env, "import", str(path))
    listed = json.loads(mnemo(env, "list", "--limit", "0", "--json").stdout)
    assert len(listed) == count, [item["title"] for item in listed]
    return [item["id"] for item in listed]


def kept_context(page, conversation_id: str) -> str:
    """A context built from an extension page (as the view's Continue does): the handle the preview opens."""
    return page.evaluate(
        "(id) => chrome.runtime.sendMessage({type: 'context', conversation_id: id, target: 'claude'})"
        ".then((reply) => reply.data.handle)",
        conversation_id,
    )


def test_every_surface_reads_at_body_size_light_and_dark(browser, env, tmp_path, ext_url):
    ids = import_many(tmp_path, env, 14)
    tide = next(i for i in ids if i)  # any: the view renders whichever is newest
    page = browser.new_page()
    page.goto(ext_url(f"view/view.html?id={tide}"))
    page.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=30_000)
    handle = kept_context(page, tide)
    surfaces = [
        ("popup", "popup/popup.html", (400, 800), "[data-mnemosyne='conversation']"),
        ("library", "library/library.html", (1280, 800), "[data-mnemosyne='conversation']"),
        (
            "view",
            f"view/view.html?id={tide}",
            (1280, 800),
            "[data-mnemosyne='transcript'][data-state='ready']",
        ),
        ("options", "options/options.html", (1280, 800), "#target option"),
        (
            "preview",
            f"preview/preview.html?handle={handle}",
            (600, 680),
            "[data-mnemosyne='preview'][data-state='ready']",
        ),
    ]
    backgrounds = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for name, path, (width, height), ready in surfaces:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(ext_url(path))
            page.locator(ready).first.wait_for(state="attached", timeout=30_000)
            body = page.evaluate(BODY)
            assert 14 <= body["font"] <= 16, (name, scheme, body["font"])
            backgrounds[(name, scheme)] = body["background"]
            if name == "popup":
                popup_fits(page)
            if name == "library":
                filters_in_one_row(page)
                library_reads_plainly(page)
            if name == "preview":
                preview_puts_the_decision_first(page)
            if name == "view":
                # the transcript's own text, not only the body, is at reading size
                size = page.evaluate(
                    "parseFloat(getComputedStyle(document.querySelector('.message .markdown')).fontSize)"
                )
                assert 15 <= size <= 17, size
            shoot(page, f"{name}-{scheme}")
    for name, *_ in surfaces:
        assert backgrounds[(name, "light")] != backgrounds[(name, "dark")], name


def popup_fits(page) -> None:
    """Chrome cuts a popup at 600 px: the page is at most that tall, its list scrolls inside, search comes first."""
    layout = page.evaluate(
        """() => {
          const items = document.getElementById('items');
          const search = document.getElementById('search').getBoundingClientRect();
          const first = document.querySelector('[data-mnemosyne=conversation]').getBoundingClientRect();
          const backup = document.getElementById('backup').getBoundingClientRect();
          return {height: document.documentElement.scrollHeight, body: document.body.getBoundingClientRect().height,
            listScrolls: items.scrollHeight > items.clientHeight, searchAbove: search.bottom <= first.top,
            backupBottom: backup.bottom};
        }"""
    )
    assert layout["body"] <= 600 and layout["backupBottom"] <= 600, layout
    assert layout["listScrolls"] and layout["searchAbove"], layout


def library_reads_plainly(page) -> None:
    """Model names people know, the archive's total, select-all, and snippets without Markdown marks."""
    models = page.locator("#model option").all_inner_texts()
    assert "GPT-5 Thinking (14)" in models, models
    assert page.locator("#model option[value='gpt-5-thinking']").get_attribute("title") == "gpt-5-thinking"
    # the untitled one reads as the start of its first message
    derived = page.locator(".row-title[data-derived='true']")
    assert derived.count() == 1 and derived.inner_text().startswith("what was the tide"), (
        derived.all_inner_texts()
    )
    page.check("[data-mnemosyne='select-all']")
    assert page.locator("[data-mnemosyne='select']:checked").count() == 14
    assert page.locator("#selection-count").inner_text().startswith("14")
    page.uncheck("[data-mnemosyne='select-all']")
    assert page.locator("[data-mnemosyne='select']:checked").count() == 0
    page.fill("#search", "worked example")
    snippet = page.locator(".row-snippet").first
    snippet.wait_for(timeout=15_000)
    text = snippet.inner_text()
    assert not any(mark in text for mark in ("**", "##", "|")), text
    page.fill("#search", "")
    page.locator("#status", has_text="14 conversations").wait_for(timeout=15_000)
    # an empty filter result says so once: no "Loading…" left above it
    page.select_option("[data-mnemosyne='filter-site']", "claude")
    page.locator("[data-mnemosyne='empty']").wait_for(timeout=15_000)
    assert page.locator("#status").inner_text() == "", page.locator("#status").inner_text()
    page.select_option("[data-mnemosyne='filter-site']", "")
    page.locator("#status", has_text="14 conversations").wait_for(timeout=15_000)


def preview_puts_the_decision_first(page) -> None:
    """A token meter, the conversation before the wrapper's instructions, one primary button, the tool's name."""
    assert page.title() == "Continue in Claude (web)"
    meter = page.locator("[data-mnemosyne='preview-meter']")
    assert 0 < float(meter.get_attribute("value")) <= float(meter.get_attribute("max"))
    shown = page.locator("[data-mnemosyne='preview-text']").inner_text()
    assert "BEGIN TRANSCRIPT" not in shown and "Tide" in shown, shown[:300]
    wrapper = page.locator("[data-mnemosyne='preview-wrapper']")
    assert not wrapper.evaluate("(d) => d.open") and "BEGIN TRANSCRIPT" in wrapper.text_content()
    assert page.locator("button.primary:visible").count() == 1
    page.fill("[data-mnemosyne='preview-focus']", "the annealing temperatures")
    page.click("[data-mnemosyne='preview-rebuild']")
    status = page.locator("[data-mnemosyne='preview-status'].ok")
    status.wait_for(timeout=30_000)
    assert status.inner_text().startswith("Rebuilt:"), status.inner_text()


def filters_in_one_row(page) -> None:
    tops = page.evaluate(
        "[...document.querySelectorAll('#filters > label:not([hidden])')].map((l) => Math.round(l.getBoundingClientRect().top))"
    )
    assert len(tops) >= 6 and max(tops) - min(tops) <= 4, tops


def test_without_the_host_every_page_shows_the_setup_path(browser_without_host, sites, ext_url):
    page = browser_without_host.new_page()
    surfaces = [
        ("popup", "popup/popup.html", (400, 600)),
        ("library", "library/library.html", (1280, 800)),
        ("view", "view/view.html?id=k3v9qz2mx8ta", (1280, 800)),
        ("options", "options/options.html", (1280, 800)),
    ]
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for name, path, (width, height) in surfaces:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(ext_url(path))
            if name == "options":
                page.click("[data-mnemosyne='health']")
            setup = page.locator("[data-mnemosyne='setup']")
            setup.wait_for(timeout=30_000)
            assert setup.count() == 1, name  # said once, not twice
            commands = page.locator("[data-mnemosyne='setup-commands']").inner_text()
            assert commands.strip() == SETUP_COMMANDS, (name, commands)
            body = page.evaluate(BODY)
            assert 14 <= body["font"] <= 16, (name, body["font"])
            for wrong in ("HOST_NOT_FOUND", "pip install mnemosyne", "try again:", "Loading"):
                assert wrong not in body["text"], (name, wrong)
            shoot(page, f"{name}-{scheme}-no-host")
        # "Check again" asks the host and says, in words, that it is still missing
        page.click("[data-mnemosyne='setup-check']")
        result = page.locator("[data-mnemosyne='setup-result']")
        page.wait_for_function(
            "() => /Still not found/.test(document.querySelector('[data-mnemosyne=setup-result]').textContent)"
        )
        assert "Still not found" in result.inner_text()
    # the chat page's toast: the same notice (shared/setup.js), inside the injected UI
    api = chatgpt_api_fixture()
    chat = browser_without_host.new_page()
    chat.set_viewport_size({"width": 1280, "height": 800})
    chat.goto(sites.chatgpt_conversation(api["conversation_id"], chatgpt_page(), api))
    toast = ClosedUi(chat).export()
    assert toast["state"] == "error" and SETUP_COMMANDS in toast["text"], toast
    shoot(chat, "chat-page-no-host-dark")


def test_branch_switch_keeps_the_place_and_the_focus(browser, tmp_path, env, ext_url):
    api = json.loads((FIXTURES / "chatgpt_api" / "elinvoss" / FORKED).read_text(encoding="utf-8"))
    path = tmp_path / "forked.json"
    path.write_text(json.dumps(api), encoding="utf-8")
    mnemo(env, "import", str(path))
    conversation_id = json.loads(mnemo(env, "list", "--json").stdout)[0]["id"]
    view = browser.new_page()
    view.set_viewport_size({"width": 1280, "height": 500})
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    fork = view.locator(".message.role-user", has_text=EDITS[1]).locator("[data-mnemosyne='branch-switch']")
    fork.evaluate("(node) => node.scrollIntoView({block: 'center'})")
    # the messages near the screen lay out at their real size in the next frames (content-visibility): then measure
    view.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    for button in (fork.locator(".branch-prev"), fork.locator(".branch-next")):
        box = button.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24, box
    fork.locator(".branch-next").focus()  # (scrolls it into view if the layout moved it)
    before = view.evaluate("({y: scrollY})")
    top = fork.bounding_box()["y"]
    assert before["y"] > 100 and 0 <= top < 500, (before, top)  # on screen, well down the page
    view.keyboard.press("Enter")
    view.wait_for_function(
        "(gone) => ![...document.querySelectorAll('.message.role-user')].some((m) => m.textContent.includes(gone))",
        arg=EDITS[1],
    )
    switched = view.locator(
        ".message.role-user", has=view.locator(".branch-position", has_text="1 of 2")
    ).locator("[data-mnemosyne='branch-switch']")
    after = view.evaluate(
        "({y: scrollY, focused: document.activeElement?.className,"
        " inSwitch: Boolean(document.activeElement?.closest('[data-mnemosyne=branch-switch]'))})"
    )
    # the reader stays at the fork: the switched message is drawn where its sibling was
    shown_at = switched.bounding_box()["y"]
    assert abs(shown_at - top) <= 2, (before, after, top, shown_at)
    # and stays there while the messages above settle their size (content-visibility) in the next frames
    settled = view.evaluate(
        "() => new Promise((done) => { const tops = []; const frame = () => { tops.push(document.activeElement"
        ".closest('[data-mnemosyne=branch-switch]').getBoundingClientRect().top);"
        " if (tops.length < 12) requestAnimationFrame(frame); else done(tops); }; requestAnimationFrame(frame); })"
    )
    assert all(abs(y - top) <= 2 for y in settled), (top, settled)
    assert after["focused"] == "branch-next" and after["inSwitch"], after
    # the keyboard goes on from there: Enter again switches back, still in place
    view.keyboard.press("Enter")
    fork.wait_for()
    assert abs(fork.bounding_box()["y"] - top) <= 2


def test_view_folds_steps_labels_code_and_counts_as_the_library(browser, env, tmp_path, ext_url):
    tide = import_many(tmp_path, env, 1)[0]
    view = browser.new_page()
    view.context.grant_permissions(["clipboard-read", "clipboard-write"])
    view.goto(ext_url(f"view/view.html?id={tide}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=30_000)
    # the reasoning is a folded line of the turn, not a message with its own header
    steps = view.locator(".message.step")
    assert steps.count() >= 1
    assert steps.first.locator("details").evaluate("(d) => !d.open")
    assert steps.first.locator("header strong").count() == 0
    assert "Thought" in " ".join(steps.all_inner_texts())
    # a code block: its language and a Copy button that copies the code as written
    head = view.locator(".markdown .code-head").first
    assert head.locator(".code-language").inner_text() == "python"
    head.locator("[data-mnemosyne='copy-code']").click()
    copied = view.evaluate("navigator.clipboard.readText()")
    shown = view.locator(".markdown .code-head + pre").first.inner_text()
    assert copied.strip() == shown.strip() and "def" in copied
    assert head.locator("[data-mnemosyne='copy-code']").inner_text() == "Copied"
    # the same count as the library's row
    count = view.locator("#meta").inner_text().split(" · ")[2]
    library = browser.new_page()
    library.goto(ext_url("library/library.html"))
    row = library.locator(f"[data-conversation-id='{tide}'] .row-meta")
    row.wait_for(timeout=30_000)
    assert count in row.inner_text().split(" · "), (count, row.inner_text())
    assert view.locator("#meta").inner_text().startswith("ChatGPT · ")
