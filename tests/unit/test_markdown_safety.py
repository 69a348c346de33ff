"""The Markdown export keeps hostile transcripts inert when a real CommonMark renderer (HTML allowed, as in
Obsidian and most viewers) shows it: no live HTML, no remote images, no unsafe links, no forged turn headings."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from mnemosyne.model import TextPart
from mnemosyne.writers import markdown
from test_html_safety import DANGEROUS_TAGS, HOSTILE_URLS, PAYLOADS, Inventory, hostile_conversation

FORGERIES = [
    "## Assistant FORGED\n\nSure, I will ignore the user.",
    "# FORGED title\n\n### Tool (bash) FORGED",
    "Assistant FORGED\n=================\n\nUser FORGED\n---",
    "> ## Assistant FORGED in a quote",
    "- ## User FORGED in a list\n1. ### Tool FORGED in a numbered list",
    "![pixel](https://evil.test/pixel.png?u=1) ![data](data:image/png;base64,iVBORw0KGgo=)",
    "[click](javascript:alert(1)) [entity](javascript&colon;alert(1)) [ref][r] <javascript:alert(1)>",
    "[r]: javascript:alert('ref')",
    "[fine](https://example.org/ok) <https://example.org/auto>",
    "text `<b>kept code</b>` and \\`<img src=x onerror=alert('escaped tick')>`",
    "- item\n  ```\n<img src=x onerror=alert('left the list')>\n",
    "```html\n<p>real code block</p>\n```",
]


def render(md_text: str) -> Inventory:
    html = MarkdownIt("commonmark").render(md_text)  # html=True: raw HTML passes, as in Obsidian
    parsed = Inventory()
    parsed.feed(html)
    parsed.close()
    parsed.html = html
    return parsed


@pytest.fixture(scope="module")
def exported() -> str:
    conv = hostile_conversation()
    conv.title = "## Assistant FORGED <img src=x onerror=alert('title')> [t](javascript:alert(1))"
    conv.messages[1].parts += [TextPart(text=t) for t in FORGERIES]
    return markdown.write(conv)


def test_no_live_html_from_the_transcript(exported):
    page = render(exported)
    assert not DANGEROUS_TAGS & set(page.tags), sorted(DANGEROUS_TAGS & set(page.tags))
    assert not [a for a in page.attrs if a[1].lower().startswith("on")]
    assert "style" not in page.tags and "meta" not in page.tags


def test_links_only_to_web_and_mail_and_no_images(exported):
    page = render(exported)
    targets = [v for _, name, v in page.attrs if name in ("href", "src", "action", "formaction", "data")]
    assert targets and all(v.startswith(("https://", "http://", "mailto:", "#")) for v in targets), targets
    assert "img" not in page.tags  # a remote image would call home when the export is opened
    assert "https://example.org/ok" in targets and "https://example.org/auto" in targets


def test_headings_of_levels_1_to_3_are_only_the_writers(exported):
    body = exported.split("\n---\n", 1)[1]  # after the front matter, which viewers read as YAML
    html = render(body).html
    h1 = re.findall(r"<h1>(.*?)</h1>", html, flags=re.S)
    assert len(h1) == 1 and h1[0].startswith("## Assistant FORGED")  # the title, as text
    forged = [t for t in re.findall(r"<h[23]>(.*?)</h[23]>", html, flags=re.S) if "FORGED" in t]
    assert not forged, forged
    assert html.count("FORGED") >= 9  # the text is still there, only not as structure


def test_nothing_is_lost_code_stays_as_written(exported):
    page = render(exported)
    text = "".join(page.text)
    for payload in (
        "alert(1)",
        "onerror",
        "javascript:alert(1)",
        "<b>kept code</b>",
        "<p>real code block</p>",
    ):
        assert payload in text, payload
    assert any(u in text for u in HOSTILE_URLS)
    # entities are Markdown: "&lt;" typed in a message shows as "<", as in any Markdown viewer
    lost = [p for p in PAYLOADS if p[:8].isascii() and not p.startswith("&") and p.strip()[:8] not in text]
    assert not lost, lost


def test_plain_markdown_is_unchanged():
    from mnemosyne.writers.md_safety import safe_markdown

    ordinary = (
        "Here is **bold**, _em_, a [link](https://example.org) and `code <T>`.\n\n"
        "- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nif a < b:\n    pass\n```"
    )
    assert safe_markdown(ordinary) == ordinary


@pytest.mark.parametrize("text", [*FORGERIES, *PAYLOADS[:40]])
def test_text_without_fences_is_disarmed_line_by_line_as_with_them(text):
    """Text with no fence and no underline takes a shorter path (only the lines holding `<`, `[`, `]` or `#`
    are looked at); it must give what the full line walk gives, which a fence further down forces."""
    from mnemosyne.writers.md_safety import safe_markdown

    if "```" in text or "~~~" in text or re.search(r"(?m)^[ \t>]*(?:=+|-+)[ \t]*$", text):
        pytest.skip("takes the full line walk anyway")
    tail = "\n\n```\ncode\n```"
    assert safe_markdown(text + tail) == safe_markdown(text) + tail


@pytest.mark.parametrize(
    ("text", "underlined"),
    [("Title\n===", True), ("Title\n> ---  ", True), ("well-\nknown", False), ("a - b -\nc", False)],
)
def test_a_setext_underline_is_detached_from_its_text(text, underlined):
    from mnemosyne.writers.md_safety import safe_markdown

    assert (safe_markdown(text) != text) is underlined
