"""Hostile content in the real popup and conversation view: a corpus of markup, event handlers, javascript:
links, SVG and CSS payloads in titles and message texts, saved through the real Export button and host, then
shown in the popup list, a search whose snippets hit the payloads, and the conversation view.

Measured on every page: payloads that ran (each sets its own window.__pwned_<n>), CSP violations (a second
layer, counted apart: a blocked payload still means markup went live), elements of a dangerous kind inserted
beyond the page's own markup (taken from the same page over an empty archive), on* attributes, and links
with a javascript:/data:/vbscript: target. All must be 0, and every payload must be shown as text.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections import Counter
from pathlib import Path

import pytest
from closed_ui import ClosedUi
from ext_fakesite import FIXTURES, chatgpt_api_fixture, strip_scripts
from hostile_corpus import chunks, payloads

from robustness.figures import record
from support.browser import settle

pytestmark = pytest.mark.browser
EXTENSION_DIR = Path(__file__).resolve().parents[2] / "extension"
CHECK = "hostile render"
CONVERSATIONS = 4
MARKER = "【0†source】"  # a browsing citation's place in the text: becomes its superscript numbers
DANGEROUS = [
    "script",
    "img",
    "svg",
    "iframe",
    "object",
    "embed",
    "style",
    "link",
    "meta",
    "base",
    "form",
    "input",
    "video",
    "audio",
    "math",
    "template",
    "noscript",
    "frame",
    "source",
    "marquee",
]

# Runs before any page script (CDP, not subject to the page's CSP): logs CSP violations and every element of
# a dangerous kind ever inserted, so one that is inserted and removed again still counts.
PROBE = """(() => {
  const dangerous = new Set(%s);
  const probe = { violations: [], inserted: [] };
  Object.defineProperty(window, '__mnemoProbe', { value: probe });
  const describe = (e) => [e.localName, e.id, e.getAttribute('class') || '', e.getAttribute('src') || '',
                           e.getAttribute('href') || '', e.getAttribute('rel') || ''].join('|');
  const note = (node) => {
    if (node.nodeType !== 1) return;
    for (const e of [node, ...node.querySelectorAll('*')]) if (dangerous.has(e.localName)) probe.inserted.push(describe(e));
  };
  document.addEventListener('securitypolicyviolation', (e) => probe.violations.push(e.violatedDirective + ' ' + e.blockedURI), true);
  new MutationObserver((records) => { for (const r of records) r.addedNodes.forEach(note); })
    .observe(document, { childList: true, subtree: true });
})()""" % json.dumps(DANGEROUS)

MEASURE = """() => {
  const all = [];
  const walk = (root) => { for (const e of root.querySelectorAll('*')) { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); } };
  walk(document);
  const badUrl = /^\\s*(javascript|data|vbscript):/i;
  return {
    ran: Object.keys(window).filter((k) => /^__pwned_\\d+$/.test(k)).sort(),
    violations: window.__mnemoProbe.violations,
    inserted: window.__mnemoProbe.inserted,
    onAttributes: all.flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => e.localName + '@' + a.name)),
    badLinks: all.filter((e) => ['href', 'src', 'action', 'formaction', 'xlink:href', 'data'].some((n) => badUrl.test(e.getAttribute(n) || ''))).length,
    shadowRoots: all.filter((e) => e.shadowRoot).length,
  };
}"""


def hostile_citations(text: str, start: int, end: int) -> list[dict]:
    """ChatGPT `metadata.citations` (2023-24 browsing) pointing at a marker at [start, end) of the text: the
    payload as title and snippet, under URLs that must never become links (script schemes) and one that
    must, with the payload in its query."""
    urls = [
        "javascript:window.__pwned_90=1",
        "data:text/html,<script>window.__pwned_91=1</script>",
        " JaVaScRiPt:window.__pwned_92=1",
        "https://example.org/?q=" + text[:40],
    ]
    return [
        {"start_ix": start, "end_ix": end, "metadata": {"title": text, "url": url, "text": text}}
        for url in urls
    ]


def chatgpt_api(title: str, texts: list[str], index: int) -> dict:
    """A ChatGPT API reply (the fixture's shape) whose title and alternating user/assistant turns are `texts`."""
    api = copy.deepcopy(chatgpt_api_fixture())
    template = next(
        node["message"]
        for node in api["mapping"].values()
        if node.get("message") and node["message"]["author"]["role"] == "user"
    )
    conversation_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"hostile-render/{index}"))
    mapping = {
        "client-created-root": {"id": "client-created-root", "message": None, "parent": None, "children": []}
    }
    parent = "client-created-root"
    for turn, text in enumerate(texts):
        node_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"hostile-render/{index}/{turn}"))
        message = copy.deepcopy(template)
        message.update(id=node_id, create_time=1764090000.0 + turn)
        message["author"] = {**message["author"], "role": "user" if turn % 2 == 0 else "assistant"}
        message["content"] = {"content_type": "text", "parts": [text]}
        if (
            turn % 2
        ):  # the assistant's echo cites its payload: numbers and footnotes with hostile titles, URLs
            cited = f"{text} {MARKER}"
            message["content"]["parts"] = [cited]
            citations = hostile_citations(text, len(text) + 1, len(cited))
            message["metadata"] = {**(message.get("metadata") or {}), "citations": citations}
        mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        mapping[parent]["children"].append(node_id)
        parent = node_id
    api.update(
        title=title, mapping=mapping, current_node=parent, conversation_id=conversation_id, id=conversation_id
    )
    return api


def hostile_conversations() -> list[dict]:
    """Each conversation: its share of the payloads as the title, then each payload of that share sent by the
    user and echoed by the assistant (user text is shown as typed, the assistant's goes through the Markdown
    renderer), then all of them in one user turn and one assistant turn."""
    conversations = []
    for index, group in enumerate(chunks(payloads(), CONVERSATIONS)):
        turns = [text for payload in group + ["\n\n".join(group)] for text in (payload, payload)]
        conversations.append(chatgpt_api(" ".join(group), turns, index))
    return conversations


def measure(page) -> dict:
    settle(page)
    return page.evaluate(MEASURE)


def static_markup(page_file: str) -> set[str]:
    """Signatures (as the probe writes them) of the elements in an extension page's own HTML file.

    The probe may start before or after the parser has inserted them, so the baseline alone cannot
    tell them apart from inserted ones."""
    from html.parser import HTMLParser

    found: set[str] = set()

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            a = {k: v or "" for k, v in attrs}
            found.add(
                "|".join(
                    [
                        tag,
                        a.get("id", ""),
                        a.get("class", ""),
                        a.get("src", ""),
                        a.get("href", ""),
                        a.get("rel", ""),
                    ]
                )
            )

    Collect().feed((EXTENSION_DIR / page_file).read_text(encoding="utf-8"))
    return found


def live_elements(state: dict, baseline: dict, own: Counter, page_file: str | None = None) -> list[str]:
    """Inserted dangerous elements that are neither the page's own static markup nor the extension's own
    per-item elements (`own`, e.g. the popup's site icons)."""
    static = static_markup(page_file) if page_file else set()
    extra = Counter(e for e in state["inserted"] if e not in static) - Counter(baseline["inserted"]) - own
    return sorted(extra.elements())


def site_icons(popup) -> Counter:
    """The popup's own <img class=site-icon> per listed item (its only image per item)."""
    items = popup.locator("[data-mnemosyne='conversation']")
    sites = [items.nth(i).get_attribute("data-site") for i in range(items.count())]
    return Counter(f"img||site-icon|../icons/site-{site}.png||" for site in sites)


def katex_math(view) -> Counter:
    """The renderer's own <math> elements: KaTeX's MathML for `$...$` in assistant text, sanitized."""
    return Counter({"math|||||": view.locator(".markdown .katex > math").count()})


def test_hostile_corpus_renders_inert_in_popup_search_and_view(
    browser, sites, ext_url, mnemo_cli, screenshot
):
    corpus = payloads()
    assert len(corpus) >= 40
    record(CHECK, "payloads (in titles and in messages)", len(corpus), ">= 40")
    browser.add_init_script(script=PROBE)
    pages: dict[str, dict] = {}

    # the pages' own markup, over an empty archive
    popup = browser.new_page()
    popup.goto(ext_url("popup/popup.html"))
    popup.locator("#status", has_text="empty").wait_for(timeout=15_000)
    popup_baseline = measure(popup)
    view = browser.new_page()
    view.goto(ext_url("view/view.html?id=no-such-conversation"))
    view.locator("#status.error").wait_for(timeout=15_000)
    view_baseline = measure(view)
    assert (
        "script|||popup.js||" in popup_baseline["inserted"]
        and "script|||view.js||" in view_baseline["inserted"]
    )

    # save every hostile conversation through the real Export button and host
    site_page = browser.new_page()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    conversations = hostile_conversations()
    for api in conversations:
        site_page.goto(sites.chatgpt_conversation(api["conversation_id"], html, api))
        assert ClosedUi(site_page).export()["state"] == "success"
        pages[f"site page {api['conversation_id'][:8]}"] = {**measure(site_page), "live": []}
    archived = json.loads(mnemo_cli("list", "--json").stdout)
    assert sorted(item["title"] for item in archived) == sorted(api["title"] for api in conversations)

    popup.reload()
    items = popup.locator("[data-mnemosyne='conversation']")
    items.first.wait_for(timeout=15_000)
    assert items.count() == CONVERSATIONS
    assert sorted(popup.locator(".item-title").all_text_contents()) == sorted(
        api["title"] for api in conversations
    )
    own = site_icons(popup)  # the popup's log keeps the list's icons when the search re-renders
    state = measure(popup)
    pages["popup list"] = {**state, "live": live_elements(state, popup_baseline, own, "popup/popup.html")}
    screenshot(popup, "popup-hostile-list")

    popup.locator("[data-mnemosyne='search']").fill("onerror")
    popup.locator("#status", has_text="match").wait_for(timeout=15_000)
    assert items.count() == CONVERSATIONS
    snippets = popup.locator(".item-snippet").all_text_contents()
    assert len(snippets) == CONVERSATIONS and all("onerror" in snippet for snippet in snippets)
    assert popup.locator(".item-snippet mark").count() >= CONVERSATIONS
    own += site_icons(popup)
    state = measure(popup)
    pages["popup search"] = {**state, "live": live_elements(state, popup_baseline, own, "popup/popup.html")}
    screenshot(popup, "popup-hostile-search")

    shown = set()
    for item in archived:
        view.goto(ext_url(f"view/view.html?id={item['id']}"))
        view.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=15_000)
        title = view.locator("[data-mnemosyne='title']").text_content()
        said = "".join(view.locator(".message.role-user").all_text_contents())
        rendered = view.locator(".message.role-assistant .markdown")
        assert title == item["title"]
        assert rendered.count() == view.locator(".message.role-user").count()  # every echo went through it
        footnotes = view.locator("[data-mnemosyne='citations'] li")
        assert footnotes.count() >= rendered.count()  # every echo's sources listed, as text or http(s) links
        numbers = view.locator(".message.role-assistant .markdown sup.cite-ref")
        assert numbers.count() >= rendered.count()
        assert not any(MARKER in text for text in rendered.all_text_contents())
        shown.update(payload for payload in corpus if payload in said and payload in title)
        state = measure(view)
        pages[f"view {item['id'][:8]}"] = {
            **state,
            "live": live_elements(state, view_baseline, katex_math(view), "view/view.html"),
        }
    screenshot(view, "view-hostile-corpus")

    report(pages, len(corpus), len(shown))


def report(pages: dict[str, dict], corpus_size: int, shown: int) -> None:
    ran = sorted({key for state in pages.values() for key in state["ran"]})
    violations = sum(len(state["violations"]) for state in pages.values())
    live = {name: state["live"] for name, state in pages.items() if state["live"]}
    on_attributes = {name: state["onAttributes"] for name, state in pages.items() if state["onAttributes"]}
    bad_links = sum(state["badLinks"] for state in pages.values())
    record(CHECK, "pages checked (site pages, popup list, search, views)", len(pages))
    record(CHECK, "scripts run", len(ran), "0")
    record(CHECK, "CSP violations (second layer)", violations, "0")
    record(CHECK, "live elements from transcript text", sum(map(len, live.values())), "0")
    record(CHECK, "on* attributes", sum(map(len, on_attributes.values())), "0")
    record(CHECK, "javascript:/data:/vbscript: links", bad_links, "0")
    record(CHECK, "payloads shown verbatim as text (title and transcript)", shown, str(corpus_size))
    assert ran == [], ran
    assert violations == 0, {
        name: state["violations"] for name, state in pages.items() if state["violations"]
    }
    assert live == {}, live
    assert on_attributes == {}, on_attributes
    assert bad_links == 0
    assert shown == corpus_size


def test_probe_sees_markup_that_does_go_live(browser, sites, ext_url):
    """The measurement itself: the same corpus parsed as HTML (what the pages must never do) is counted, in an
    extension page (CSP blocks the scripts, the elements still go live) and on a page without a CSP."""
    browser.add_init_script(script=PROBE)
    inject = "(ps) => { for (const p of ps) document.getElementById('items').insertAdjacentHTML('beforeend', '<li>' + p + '</li>'); }"
    popup = browser.new_page()
    popup.goto(ext_url("popup/popup.html"))
    popup.locator("#status", has_text="empty").wait_for(timeout=15_000)
    baseline = measure(popup)
    popup.evaluate(inject, payloads())
    state = measure(popup)
    assert state["ran"] == []  # the second layer: extension-page CSP
    assert len(state["violations"]) >= 20
    assert len(live_elements(state, baseline, Counter())) >= 40
    assert len(state["onAttributes"]) >= 15 and state["badLinks"] >= 10

    sites.pages["https://example.com/no-csp"] = "<!doctype html><html><body><ul id=items></ul></body></html>"
    page = browser.new_page()
    page.goto("https://example.com/no-csp")
    page.evaluate(inject, payloads())
    assert len(measure(page)["ran"]) >= 10
