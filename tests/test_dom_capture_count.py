"""Nothing the page shows is silently lost by the DOM fallback: for saved pages (real ones, and the Sept-2026
ChatGPT page built from published measurements), the turns and words counted here with Python's html.parser,
independently of the extension's adapters, are all in what the host saves from the extension's capture;
anything the capture could not read is counted in the conversation's warnings."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mnemosyne.readers import capture as capture_reader
from mnemosyne.readers.base import RawInput, ReadContext

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HIDDEN_TAGS = {"script", "style", "svg", "button", "template", "noscript", "title", "head"}


class VisibleMessages(HTMLParser):
    """Messages the page shows: (role, visible words) per message region, in document order.

    `regions(tag, attrs) -> role | None` names a message region; text inside hidden parts (screen-reader
    labels, buttons, aria-hidden, scripts) is not visible and is not counted."""

    def __init__(self, regions) -> None:
        super().__init__(convert_charrefs=True)
        self.regions = regions
        self.stack: list[
            tuple[str, str | None, bool, str | None]
        ] = []  # tag, role opened here, hidden, turn key
        self.messages: list[tuple[str, list[str], str | None]] = []

    def _inside(self) -> tuple[bool, bool]:
        region = any(role for _, role, _, _ in self.stack)
        hidden = any(h for _, _, h, _ in self.stack)
        return region, hidden

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        region, hidden = self._inside()
        role = None if region else self.regions(tag, a)
        turn_key = (
            a.get("data-turn-key")
            or a.get("data-index")
            or next((k for *_, k in reversed(self.stack) if k), None)
        )
        if role:
            self.messages.append((role, [], turn_key))
        classes = (a.get("class") or "").split()
        hide = (
            tag in HIDDEN_TAGS
            or "sr-only" in classes
            or "cdk-visually-hidden" in classes
            or "katex-mathml" in classes
            or a.get("aria-hidden") == "true"
            or a.get("role") == "toolbar"
        )
        if tag == "img" and (region or role) and not hidden and a.get("alt"):
            self.messages[-1][1].extend(words(a["alt"]))
        if tag not in VOID:
            self.stack.append((tag, role, hide, a.get("data-turn-key") or a.get("data-index")))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        region, hidden = self._inside()
        if region and not hidden:
            self.messages[-1][1].extend(words(data))


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def chatgpt_regions(tag, a):
    role = a.get("data-message-author-role")
    if role in ("user", "assistant"):
        return role
    if "data-user-message-bubble" in a:
        return "user"
    if (
        a.get("data-markdown-text-style") == "assistant-message"
        or a.get("data-testid") == "generated-image-preview"
    ):
        return "assistant"
    return None


def claude_regions(tag, a):
    if a.get("data-testid") == "user-message":
        return "user"
    return "assistant" if "font-claude-response" in (a.get("class") or "").split() else None


def gemini_regions(tag, a):
    # a Deep Research report open in its side panel is one more answer
    return {
        "user-query": "user",
        "model-response": "assistant",
        "deep-research-immersive-panel": "assistant",
    }.get(tag)


def deepseek_regions(tag, a):
    """A prompt's text sits in the user bubble's text block, an answer's in its .ds-markdown blocks (the
    collapsed thinking header is the site's button, not text of the conversation)."""
    classes = (a.get("class") or "").split()
    if "ds-markdown" in classes:
        return "assistant"
    return "user" if "fbb737a4" in classes else None


def merge_answer_blocks(messages):
    """The Sept-2026 page shows one answer as several blocks: the assistant regions of one turn are one message."""
    out: list[tuple[str, list[str], str | None]] = []
    for role, ws, turn in messages:
        if out and role == "assistant" and out[-1][0] == "assistant" and turn and out[-1][2] == turn:
            out[-1][1].extend(ws)
        else:
            out.append((role, list(ws), turn))
    return [(role, ws) for role, ws, _ in out if ws]  # a region with no visible word shows nothing to lose


PAGES = [
    ("chatgpt", "dom_chatgpt/aicb_chatgpt_loggedout_fullpage.html", chatgpt_regions),
    ("chatgpt", "dom_chatgpt/ys_edges_chatgpt_001.html", chatgpt_regions),
    ("chatgpt", "dom_chatgpt/jsh9_test_cases/block_quotes_0.html", chatgpt_regions),
    ("chatgpt", "dom_chatgpt/jsh9_test_cases/bulleted_list.html", chatgpt_regions),
    ("chatgpt", "dom_chatgpt/chatgpt_2026_09_timeline.html", chatgpt_regions),
    ("claude", "dom_claude/ys_edges_claude_001.html", claude_regions),
    ("claude", "dom_claude/ys_claude.html", claude_regions),
    ("gemini", "more_sites/gemini/covai__gemini-chat.html", gemini_regions),
    ("gemini", "more_sites/gemini/nuncaeslupus__gemini__real-capture.html", gemini_regions),
    ("gemini", "more_sites/gemini/nuncaeslupus__gemini__table-2026-07.html", gemini_regions),
    ("gemini", "more_sites/gemini/nuncaeslupus__gemini__deep-research-2026-07.html", gemini_regions),
    ("gemini", "more_sites/gemini/sho7650__gemini__deep-research.html", gemini_regions),
    ("deepseek", "more_sites/deepseek/covai__deepseek-chat.html", deepseek_regions),
]
PAGE_URLS = {
    "chatgpt": "https://chatgpt.com/c/68b0f1c2-0000-0000-0000-000000000000",
    "claude": "https://claude.ai/chat/x",
    "gemini": "https://gemini.google.com/app/c686dff8a50c68d8",
    "deepseek": "https://chat.deepseek.com/a/chat/s/d213f7b1-0aa7-47a2-a6cf-3b4910a66b3a",
}


def capture(site: str, page: Path) -> dict:
    node = shutil.which("node")
    assert node, "Node.js is missing: install it, then `cd extension && npm ci`"
    url = PAGE_URLS[site]
    done = subprocess.run(
        [node, "test/capture_page.mjs", site, str(page), url],
        cwd=ROOT / "extension",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def saved(payload: dict):
    raw = json.dumps(payload).encode()
    (conversation,) = capture_reader.read(RawInput(name="capture.json", raw=raw, data=payload), ReadContext())
    return conversation


@pytest.mark.parametrize(
    ("site", "name", "regions"), PAGES, ids=lambda v: v if isinstance(v, str) and "/" in v else ""
)
def test_every_turn_and_word_the_page_shows_is_saved(site, name, regions):
    page = FIXTURES / name
    parser = VisibleMessages(regions)
    parser.feed(page.read_text(encoding="utf-8"))
    shown = merge_answer_blocks(parser.messages)
    assert shown, "the independent count found no messages: the test would prove nothing"

    conversation = saved(capture(site, page))
    # a turn the page shows with nothing readable in it is kept empty and counted, never dropped silently
    readable = [m for m in conversation.messages if m.parts]
    empty = len(conversation.messages) - len(readable)
    counted = {w.code: w.count for w in conversation.warnings}
    assert counted.get("PAGE_EMPTY_TURN", 0) == empty
    assert [m.role for m in readable] == [role for role, _ in shown]

    for (role, shown_words), message in zip(shown, readable, strict=True):
        kept = Counter()
        for part in message.parts:
            kept.update(words(getattr(part, "text", "") or ""))
            kept.update(words(getattr(part, "name", "") or ""))
        missing = Counter(shown_words) - kept
        assert not missing, f"{role} message lost words the page shows: {dict(missing.most_common(10))}"


def test_capture_warnings_are_counted_in_the_saved_conversation():
    payload = {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": "chatgpt",
        "url": "https://chatgpt.com/c/abc",
        "conversation_id": "abc",
        "title": None,
        "captured_at": "2026-12-01T10:00:00Z",
        "complete": True,
        "turns": [
            {"key": "k1", "order": 0, "role": "user", "model": None, "markdown": "hi", "attachments": []}
        ],
        "warnings": [
            {"code": "UNREADABLE_ELEMENT", "message": "a frame was kept as a note", "count": 2},
            {"code": "EMPTY_TURN", "message": "a turn showed no text", "count": 1},
        ],
    }
    counted = {w.code: w.count for w in saved(payload).warnings}
    assert counted == {"PAGE_UNREADABLE_ELEMENT": 2, "PAGE_EMPTY_TURN": 1}
