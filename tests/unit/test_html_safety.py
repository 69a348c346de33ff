"""The HTML writer must keep hostile transcripts inert (chatgpt-exporter#95, DiscordChatExporter#1567...)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

import conversation_samples as samples
from mnemosyne.model import (
    ArtifactPart,
    AttachmentPart,
    Citation,
    CitationPart,
    CodePart,
    Instruction,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from mnemosyne.writers import html

PAYLOADS = [
    "<script>alert(1)</script>",
    "</title><script>alert(document.domain)</script>",
    '<img src=x onerror="alert(1)">',
    "<svg onload=alert(1)><circle r=1 /></svg>",
    "<svg><script>alert(1)</script></svg>",
    '"><iframe src="javascript:alert(1)"></iframe>',
    "' onmouseover='alert(1)' x='",
    '" autofocus onfocus="alert(1)',
    '<a href="javascript:alert(1)">click</a>',
    "<style>body{background:url(https://evil.test/x)}</style>",
    "<link rel=stylesheet href=https://evil.test/x.css>",
    '<meta http-equiv="refresh" content="0;url=https://evil.test">',
    "<base href=https://evil.test/>",
    "<!-- --><script>alert(1)</script>",
    "<![CDATA[<script>alert(1)</script>]]>",
    "$' $& $` $1 \\1 \\g<0> {title} {{title}} %s",
    "<object data=javascript:alert(1)></object><embed src=x>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<form action=https://evil.test><button formaction=javascript:alert(1)>x</button></form>",
    "\u202e<script>gnp.exe\u202c",
    "&lt;script&gt; already escaped &amp;",
]
HOSTILE_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    'https://ok.test/"onmouseover="alert(1)',
    "https://ok.test/ onclick=alert(1)",
    "file:///etc/passwd",
    "//evil.test/x",
]
DANGEROUS_TAGS = {
    "script",
    "iframe",
    "object",
    "embed",
    "svg",
    "math",
    "img",
    "link",
    "base",
    "form",
    "button",
    "input",
    "frame",
    "frameset",
    "applet",
    "audio",
    "video",
    "source",
    "template",
}


class Inventory(HTMLParser):
    """Every live tag and attribute the browser would build from the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        self.tags.append(tag)
        self.attrs.extend((tag, name, value or "") for name, value in attrs)

    handle_startendtag = handle_starttag

    def handle_data(self, data):  # noqa: ANN001
        self.text.append(data)


def hostile_conversation():
    conv = samples.every_part()
    conv.title = " ".join(PAYLOADS[:3])
    conv.source.url = "javascript:alert('source')"
    conv.default_model = '"><script>alert(1)</script>'
    conv.instructions = [Instruction(kind="system_prompt", title="<b onclick=x>", text=PAYLOADS[1])]
    msg = conv.messages[1]  # u1 on the active path
    msg.parts = [
        TextPart(text=p, citations=[Citation(title=p, url=u) for u in HOSTILE_URLS]) for p in PAYLOADS
    ]
    msg.parts += [
        AttachmentPart(
            kind="image", name=PAYLOADS[2], mime_type='image/png" onload="x', extracted_text=PAYLOADS[0]
        ),
        CodePart(code=PAYLOADS[4], language='js" onmouseover="alert(1)'),
        ToolCallPart(name=PAYLOADS[0], arguments={"q": PAYLOADS[2]}),
        ToolResultPart(name=PAYLOADS[3], output=PAYLOADS[5], is_error=True),
        ReasoningPart(text=PAYLOADS[6], summary=PAYLOADS[7]),
        CitationPart(title=PAYLOADS[8], url=HOSTILE_URLS[0], text=PAYLOADS[9]),
        ArtifactPart(title=PAYLOADS[10], kind="text/html", language="<x>", content=PAYLOADS[11]),
    ]
    return conv


@pytest.fixture(scope="module")
def page() -> str:
    return html.write(hostile_conversation())


@pytest.fixture(scope="module")
def inventory(page) -> Inventory:
    parsed = Inventory()
    parsed.feed(page)
    parsed.close()
    return parsed


def test_no_live_tags_from_the_transcript(inventory):
    assert not DANGEROUS_TAGS & set(inventory.tags)
    assert (
        inventory.tags.count("style") == 1
        and inventory.tags.count("meta") == 4
        and inventory.tags.count("title") == 1
    )


def test_no_event_handlers_and_only_web_links(inventory):
    assert not [a for a in inventory.attrs if a[1].startswith("on")]
    hrefs = [
        value
        for tag, name, value in inventory.attrs
        if name in ("href", "src", "action", "formaction", "data")
    ]
    # only the two friendly links of the later messages; every hostile URL stayed text
    assert hrefs == ["https://en.wikipedia.org/wiki/Prime_number", "https://www.mersenne.org/"]
    allowed = {
        "lang",
        "charset",
        "http-equiv",
        "content",
        "name",
        "class",
        "href",
        "rel",
        "open",
        "data-language",
    }
    assert {name for _, name, _ in inventory.attrs} <= allowed


def test_payload_text_survives_as_visible_text(page, inventory):
    text = "".join(inventory.text)
    for payload in PAYLOADS[:12]:
        assert payload.strip() in text, payload
    assert "$' $& $` $1 \\1 \\g<0> {title} {{title}} %s" in text  # no template/replacement processing
    assert "&lt;script&gt; already escaped &amp;" in text  # escaped once more, shown literally
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_strict_csp_and_no_script_anywhere(page, inventory):
    assert (
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
    ) in page
    assert page.index("Content-Security-Policy") < page.index("<title>")
    csp = [v for t, n, v in inventory.attrs if t == "meta" and n == "content" and "default-src" in v]
    assert csp == [html.CSP]
    assert "<script" not in page.lower()


def test_language_and_class_attributes_are_constrained(inventory):
    languages = [v for _, n, v in inventory.attrs if n == "data-language"]
    assert languages and all(
        v.replace("-", "").replace("_", "").replace("+", "").replace("#", "").replace(".", "").isalnum()
        for v in languages
    )
    classes = {v for _, n, v in inventory.attrs if n == "class"}
    assert classes <= {
        "meta",
        "instructions",
        "user",
        "assistant",
        "tool",
        "system",
        "text",
        "label",
        "error",
        "result",
        "reasoning",
        "artifact",
        "sources",
        "attachment",
        "note",
    }


def test_web_links_still_work_on_a_friendly_conversation():
    page = html.write(samples.every_part())
    assert (
        '<a href="https://en.wikipedia.org/wiki/Prime_number" rel="noopener noreferrer nofollow">Prime number</a>'
        in page
    )
    assert "javascript:alert(1)" in page and 'href="javascript' not in page
    assert "<h2>Tool (python)</h2>" in page and "Old answer" not in page
