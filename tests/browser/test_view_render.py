"""The conversation view renders the archive's Markdown through shared/render.js (headings, lists, tables,
highlighted code, math, task lists, safe links) and switches between the branches the archive keeps.
Both conversations go in through `mnemo import` and come back through the real host."""

from __future__ import annotations

import copy
import json

import pytest
from ext_downloads import extension_downloads
from ext_fakesite import FIXTURES, chatgpt_api_fixture

pytestmark = pytest.mark.browser
FORKED = "0029-Title_Engaging_narrative_elements-68942c11-9018-8331-89b8-5bf83df856cd.json"
EDITS = ("Continue", "Please proceed. Do not ask any additional follow-up questions.")
EXTRA = """## Worked example

| step | value |
|---|---|
| anneal | 450 °C |

```python
def anneal(temperature: int) -> str:
    return f"held at {temperature}"
```

The energy is $E = mc^2$ and

$$
\\int_0^1 x^2 \\, dx = \\frac{1}{3}
$$

- [x] heat the crucible
- [ ] let it cool

See [the notes](https://example.org/notes) or [this](javascript:window.__pwned=1)."""


def tide_with_extras(text: str = EXTRA) -> dict:
    """The real Tide conversation (headings, bold, lists) with one more real-shaped assistant turn that holds
    what it lacks (by default: a table, code, math and a task list)."""
    api = copy.deepcopy(chatgpt_api_fixture())
    leaf = api["current_node"]
    template = next(
        n["message"]
        for n in api["mapping"].values()
        if n.get("message")
        and n["message"]["author"]["role"] == "assistant"
        and n["message"]["content"]["content_type"] == "text"
    )
    message = copy.deepcopy(template)
    message.update(id="extra-turn", create_time=(template.get("create_time") or 1764090000.0) + 1)
    message["content"] = {"content_type": "text", "parts": [text]}
    api["mapping"]["extra-turn"] = {"id": "extra-turn", "message": message, "parent": leaf, "children": []}
    api["mapping"][leaf]["children"].append("extra-turn")
    api["current_node"] = "extra-turn"
    return api


def import_api(tmp_path, mnemo_cli, api: dict, name: str) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(api), encoding="utf-8")
    mnemo_cli("import", str(path))
    listed = json.loads(mnemo_cli("list", "--json").stdout)
    return next(item["id"] for item in listed if item["title"] == api["title"])


def test_view_renders_markdown_code_math_and_safe_links(browser, tmp_path, mnemo_cli, ext_url, screenshot):
    conversation_id = import_api(tmp_path, mnemo_cli, tide_with_extras(), "tide.json")
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    transcript = view.locator("[data-mnemosyne='transcript']")
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    rendered = transcript.locator(".markdown")
    assert rendered.locator("h1, h2, h3").count() >= 2
    assert rendered.locator("strong").count() >= 1
    assert rendered.locator("li").count() >= 3
    assert rendered.locator("td").all_text_contents() == ["anneal", "450 °C"]
    assert rendered.locator("code.language-python .hljs-keyword").first.text_content() == "def"
    assert rendered.locator("math").count() == 2
    assert rendered.locator("math[display='block'] mfrac").count() == 1
    assert rendered.locator(".task-box").all_text_contents() == ["☑", "☐"]
    links = rendered.locator("a[href]")
    assert [links.nth(i).get_attribute("href") for i in range(links.count())] == ["https://example.org/notes"]
    assert links.first.get_attribute("rel") == "noopener noreferrer"
    assert links.first.get_attribute("target") == "_blank"
    assert "[this](javascript:window.__pwned=1)" in rendered.last.text_content()  # shown, not linked
    assert "**" not in rendered.first.text_content()  # no raw Markdown left in what was rendered
    assert view.evaluate("window.__pwned") is None
    screenshot(view, "view-rendered-light")
    view.emulate_media(color_scheme="dark")
    screenshot(view, "view-rendered-dark")


def test_view_keeps_the_words_after_one_line_display_math(browser, tmp_path, mnemo_cli, ext_url):
    # texmath's block rule ended at the closing $$ and dropped the rest of the line
    conversation_id = import_api(tmp_path, mnemo_cli, tide_with_extras("$$E=mc^2$$ and more"), "tide.json")
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    paragraph = view.locator("[data-mnemosyne='transcript'] .markdown").last.locator("p", has_text="and more")
    paragraph.wait_for(timeout=5_000)  # visible
    assert paragraph.inner_text().split()[-2:] == ["and", "more"]  # laid out, not only in the DOM
    formula = paragraph.locator(".katex math[display='block']")
    assert formula.locator("annotation").text_content() == "E=mc^2"
    assert formula.locator("msup").count() == 1  # rendered by KaTeX, not left as TeX
    assert formula.bounding_box()["height"] > 0


def test_branch_switch_shows_the_other_edit(browser, tmp_path, mnemo_cli, ext_url, screenshot):
    api = json.loads((FIXTURES / "chatgpt_api" / "elinvoss" / FORKED).read_text(encoding="utf-8"))
    conversation_id = import_api(tmp_path, mnemo_cli, api, "forked.json")
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    transcript = view.locator("[data-mnemosyne='transcript']")
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    users = lambda: view.locator(".message.role-user").all_text_contents()  # noqa: E731
    shown = [edit for edit in EDITS if any(edit in text for text in users())]
    assert shown == [EDITS[1]], shown  # the active branch (current_node) runs through the newer edit
    other = EDITS[1 - EDITS.index(shown[0])]
    fork = view.locator(".message.role-user", has_text=shown[0]).locator("[data-mnemosyne='branch-switch']")
    position = fork.locator(".branch-position").text_content()
    assert position == "2 of 2"
    before = transcript.text_content()
    screenshot(view, "view-branch-switch")

    fork.locator(".branch-next").click()
    switched = view.locator(".message.role-user", has_text=other)
    switched.wait_for()
    assert not any(shown[0] == text.strip() for text in users())
    assert switched.locator(".branch-position").text_content() != position
    assert transcript.text_content() != before

    # downloads and Continue in write the branch on screen, not the active one
    view.locator("[data-mnemosyne='download-markdown']").click()  # saved by the worker's downloads API
    view.locator("#status.ok").filter(has_text="Downloaded").wait_for(timeout=15_000)
    markdown = extension_downloads(browser, ext_url)[0]["text"]  # the newest: this page downloaded once
    assert other in markdown and f"\n{shown[0]}\n" not in markdown
    view.context.grant_permissions(["clipboard-read", "clipboard-write"])
    view.locator("[data-mnemosyne='continue-target']").select_option("agents-md")
    view.locator("[data-mnemosyne='continue']").click()
    view.locator("[data-mnemosyne='preview-confirm']").click()
    view.locator("#status.ok").wait_for(timeout=30_000)
    copied = view.evaluate("navigator.clipboard.readText()")
    assert other in copied and f"\n{shown[0]}\n" not in copied

    # and back: the branch first shown comes back whole
    switched.locator("[data-mnemosyne='branch-switch'] .branch-prev").click()
    view.locator(".message.role-user", has_text=shown[0]).wait_for()
    # (the switch renders the branch again: plain text first, formatted in slices until data-state="ready")
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    assert transcript.text_content() == before


def test_citations_render_as_footnote_links(browser, tmp_path, mnemo_cli, ext_url, screenshot):
    """A real ChatGPT export answer with web citations (LibreChat's fixture): its sources are numbered
    footnotes under the text, http(s) links only, each opening in a new tab without opener or referrer."""
    export = FIXTURES / "chatgpt_export" / "librechat_chatgpt-citations.json"
    cited = {
        ref["url"]
        for node in json.loads(export.read_text(encoding="utf-8"))[0]["mapping"].values()
        for ref in ((node.get("message") or {}).get("metadata") or {}).get("citations") or []
        for ref in [ref.get("metadata") or {}]
        if str(ref.get("url", "")).startswith("https://")
    }
    assert len(cited) > 3
    mnemo_cli("import", str(export))
    conversation_id = json.loads(mnemo_cli("list", "--json").stdout)[0]["id"]
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    notes = view.locator("[data-mnemosyne='citations']")
    assert notes.count() >= 1
    links = notes.locator("ol > li a")
    hrefs = links.evaluate_all("(as) => as.map((a) => a.href)")
    assert cited <= set(hrefs)
    for section in notes.all():  # each source once under a part
        listed = section.locator("a").evaluate_all("(as) => as.map((a) => a.href)")
        assert len(listed) == len(set(listed))
    assert set(links.evaluate_all("(as) => as.map((a) => a.rel + '|' + a.target)")) == {
        "noopener noreferrer|_blank"
    }
    assert all(h.startswith(("https://", "http://")) for h in hrefs)

    # and each number in the text where the answer put its marker ("【3:0†source】"), linking to that source
    answer = view.locator(".message.role-assistant .markdown", has=view.locator("sup.cite-ref"))
    assert "【" not in answer.text_content() and "†" not in answer.text_content()
    assert cited_numbers(view) == [("1", True), ("2", True), ("3", True), ("4", True)]
    view.emulate_media(color_scheme="light")
    view.locator("sup.cite-ref").first.scroll_into_view_if_needed()
    screenshot(view, "view-citations")


def cited_numbers(view) -> list[tuple[str, bool]]:
    """Each superscript number in the text: (its number, whether it links, http(s) only, new tab, no opener, to
    the source its footnote lists)."""
    return [
        (item["n"], item["ok"])
        for item in view.locator("sup.cite-ref").evaluate_all(
            r"""(sups) => sups.map((sup) => {
              const a = sup.querySelector("a");
              const note = document.getElementById(sup.firstElementChild.getAttribute("aria-describedby"));
              const listed = note?.querySelector("a");
              return { n: sup.textContent, ok: Boolean(a && listed && /^https?:\/\//.test(a.getAttribute("href"))
                && a.href === listed.href && a.rel === "noopener noreferrer" && a.target === "_blank"
                && note.closest("ol").children[Number(sup.textContent) - 1] === note) };
            })"""
        )
    ]


def test_search_citations_and_api_citations_are_numbered_in_the_text(browser, tmp_path, mnemo_cli, ext_url):
    """A real 2025 ChatGPT export answer (echomine's fixture): each cite chip the reader kept, "([Site](url))",
    becomes its source's number; a real Anthropic web-search reply (llm-anthropic's cassette): each cited
    block ends with its number."""
    from interop_cassettes import cassette_inputs

    mnemo_cli("import", str(FIXTURES / "chatgpt_export" / "echomine_003_with_code.json"))
    cassette = FIXTURES / "interop_anthropic_messages" / "llmanthropic_test_web_search.yaml"
    [(_, reply)] = [(n, d) for n, d in cassette_inputs(cassette) if n.endswith("#response0")]
    (tmp_path / "web_search.json").write_bytes(reply)
    mnemo_cli("import", str(tmp_path / "web_search.json"))
    listed = {item["site"]: item["id"] for item in json.loads(mnemo_cli("list", "--json").stdout)}
    view = browser.new_page()

    view.goto(ext_url(f"view/view.html?id={listed['chatgpt']}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    assert cited_numbers(view) == [("1", True), ("2", True), ("3", True)]
    text = view.locator(".message.role-assistant .markdown").all_text_contents()
    assert not any("Google Developers" in t for t in text)  # the chips' labels: now the numbers

    view.goto(ext_url(f"view/view.html?id={listed['anthropic']}"))
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
    numbers = cited_numbers(view)
    assert len(numbers) >= 5 and {ok for _, ok in numbers} == {True}
    ends = view.locator(".markdown:has(sup.cite-ref)").evaluate_all(
        "(ms) => ms.map((m) => m.lastElementChild.lastChild.matches?.('sup.cite-ref'))"
    )
    assert ends and all(ends)


def test_a_long_conversation_is_on_the_page_before_it_is_formatted(browser, tmp_path, mnemo_cli, ext_url):
    """300 long answers: the first screen formatted, every message's words on the page (find-in-page finds
    them), the rest formatted in idle time."""
    api = copy.deepcopy(chatgpt_api_fixture())
    parent = api["current_node"]
    template = next(
        n["message"]
        for n in api["mapping"].values()
        if (n.get("message") or {}).get("author", {}).get("role") == "assistant"
    )
    for i in range(300):
        message = copy.deepcopy(template)
        node_id = f"long-{i}"
        message.update(id=node_id, create_time=1764090000.0 + i)
        message["content"] = {
            "content_type": "text",
            "parts": [f"## Part {i}\n\n" + EXTRA.replace("anneal", f"anneal{i}")],
        }
        api["mapping"][node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        api["mapping"][parent]["children"].append(node_id)
        parent = node_id
    api["current_node"] = parent
    conversation_id = import_api(tmp_path, mnemo_cli, api, "long.json")
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    transcript = view.locator("[data-mnemosyne='transcript']")
    view.locator("[data-mnemosyne='transcript']:is([data-state='shown'], [data-state='ready'])").wait_for(
        timeout=30_000
    )
    assert "anneal299" in transcript.text_content()  # the last answer's words are on the page
    assert transcript.locator("article").first.get_attribute("data-formatted") == "true"
    last = transcript.locator("article").last
    # scrolled from the page: the plain article may be swapped for its formatted one at any moment, which a
    # handle held across that swap would miss
    transcript.evaluate("t => [...t.querySelectorAll('article')].at(-1).scrollIntoView()")
    view.locator("[data-mnemosyne='transcript'] article:last-child[data-formatted='true']").wait_for(
        timeout=30_000
    )
    assert last.locator("h2").first.text_content() == "Part 299"
    view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=120_000)
    assert transcript.locator("article[data-formatted='false']").count() == 0
    assert transcript.locator("td", has_text="anneal150").count() == 1


AI_ORIGIN = "0198-AI_Origin_Inquiry-6983ee11-711c-832f-a7b6-2a0791c4f38e.json"
AI_ORIGIN_FILE = "file_00000000c73c71f58216ef48c6464cab"  # its image part's sediment:// pointer


def png(width: int, height: int) -> bytes:
    """A real PNG (red pixels), so the test sees the browser decode it."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(("mime", "inline"), [("image/png", True), ("image/svg+xml", False)])
def test_an_attachment_the_archive_holds_is_shown_or_offered(
    browser, tmp_path, env, mnemo_cli, ext_url, mime, inline
):
    """A backup stored the image's bytes (save-attachment): the view shows a raster image inline, decoded from the
    archive; a type that could carry script (SVG) is never inlined, only offered as a file to save."""
    import base64

    from support.hostproc import HostProcess

    api = json.loads((FIXTURES / "chatgpt_api" / "elinvoss" / AI_ORIGIN).read_text(encoding="utf-8"))
    conversation_id = import_api(tmp_path, mnemo_cli, api, "ai-origin.json")
    host = HostProcess(env)
    try:
        stored = host.data(
            "save-attachment",
            site="chatgpt",
            source_id=api["conversation_id"],
            file_id=AI_ORIGIN_FILE,
            name="photo.png" if inline else "drawing.svg",
            mime=mime,
            data=base64.b64encode(png(3, 2)).decode(),
        )
    finally:
        host.kill()
    assert stored["linked"] is True
    view = browser.new_page()
    view.goto(ext_url(f"view/view.html?id={conversation_id}"))
    held = view.locator(f"[data-mnemosyne='attachment'][data-sha256='{stored['sha256']}']")
    held.first.wait_for(timeout=15_000)
    if inline:
        image = held.locator("[data-mnemosyne='attachment-image']")
        image.wait_for(timeout=15_000)
        view.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [3, 2]
    else:
        held.locator("[data-mnemosyne='attachment-save']").first.wait_for(timeout=15_000)
        assert held.locator("img").count() == 0
