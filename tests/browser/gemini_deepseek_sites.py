"""gemini.google.com and chat.deepseek.com served offline (FakeSites routes), and what their captured pages show,
counted with html.parser independently of the extension's adapters.

Gemini's API answers in the shape of the real hNvQHb response (tests/fixtures/more_sites/gemini): its one real
turn is the template, filled with each turn the served page shows, newest first and in two pages, as the site
pages a long conversation. DeepSeek's API answers history_messages holding the message the real completion
stream built (tests/support/deepseek_sse.py) and its prompt.
"""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from ext_fakesite import FIXTURES, FakeSites, TextBody, shell, strip_scripts

from support.deepseek_sse import replay

MORE = FIXTURES / "more_sites"
GEMINI_PAGE = MORE / "gemini" / "nuncaeslupus__gemini__real-capture.html"
GEMINI_ID = "c686dff8a50c68d8"  # the first turn's container id on that page
GEMINI_AT = "AJvLN6test-at-token"
DEEPSEEK_PAGE = MORE / "deepseek" / "covai__deepseek-chat.html"
DEEPSEEK_STREAM = MORE / "deepseek" / "chromai__request-response-20251121.md"
DEEPSEEK_TOKEN = "deepseek-test-user-token"
BATCHEXECUTE = "https://gemini.google.com/_/BardChatUi/data/batchexecute"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def page_html(path: Path, title: str, head: str = "") -> str:
    """A captured page without its scripts; a fragment gets a minimal document around it."""
    html = strip_scripts(path.read_text(encoding="utf-8"))
    if "<head" not in html:
        return shell(html, title, head)
    return re.sub(r"<head[^>]*>", lambda m: m.group(0) + head, html, count=1)


class Shown(HTMLParser):
    """The messages a page shows: (role, text) for each region `regions(tag, classes)` names, in order."""

    def __init__(self, regions) -> None:
        super().__init__(convert_charrefs=True)
        self.regions = regions
        self.stack: list[tuple[str, bool, bool]] = []  # tag, opens a message, hidden
        self.messages: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        inside = any(opens for _, opens, _ in self.stack)
        role = None if inside else self.regions(tag, classes)
        if role:
            self.messages.append([role, ""])
        hidden = tag in ("button", "svg", "script", "style") or "cdk-visually-hidden" in classes
        # a formula is counted once, as its TeX: its drawn glyphs and MathML copy are not words
        hidden = (
            hidden or a.get("aria-hidden") == "true" or "katex-html" in classes or "katex-mathml" in classes
        )
        if tag not in VOID:
            self.stack.append((tag, bool(role), hidden))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        tex = bool(self.stack) and self.stack[-1][0] == "annotation"  # the formula's TeX, inside its MathML
        if any(opens for _, opens, _ in self.stack) and (tex or not any(h for *_, h in self.stack)):
            self.messages[-1][1] += data


def shown_messages(path: Path, regions) -> list[tuple[str, str]]:
    parser = Shown(regions)
    parser.feed(path.read_text(encoding="utf-8"))
    return [(role, re.sub(r"\s+", " ", text).strip()) for role, text in parser.messages]


def gemini_shown() -> list[tuple[str, str]]:
    return shown_messages(
        GEMINI_PAGE, lambda tag, _: {"user-query": "user", "model-response": "assistant"}.get(tag)
    )


def deepseek_shown() -> list[tuple[str, str]]:
    def regions(tag, classes):
        return (
            ("assistant" if "ds-markdown" in classes else "user" if "fbb737a4" in classes else None)
            if tag == "div"
            else None
        )

    return shown_messages(DEEPSEEK_PAGE, regions)


# --- Gemini --------------------------------------------------------------------------------------------------


def _response_text(reply: list) -> str:
    rows = [["wrb.fr", "hNvQHb", json.dumps(reply), None, None, None, "generic"]]
    line = json.dumps(rows)
    return f")]}}'\n\n{len(line)}\n{line}\n"


def gemini_api_pages() -> list[str]:
    """The site's two answers for the served page's conversation: the newest turns first, then the rest."""
    text = (MORE / "gemini" / "blackiya__hNvQHb_sample_gemini_conversation.txt").read_text(encoding="utf-8")
    template = json.loads(json.loads(text.split("\n")[3])[0][2])[0][0]
    shown = gemini_shown()
    turns = []
    for n in range(0, len(shown), 2):
        turn = copy.deepcopy(template)
        turn[0] = [f"c_{GEMINI_ID}", f"r_turn{n // 2}"]
        turn[2][0] = [shown[n][1]]
        candidate = turn[3][0][0]
        candidate[0] = turn[3][3] = f"rc_turn{n // 2}"
        candidate[1] = [shown[n + 1][1]]
        candidate[37] = None  # the template's thinking and paragraphs belong to another answer
        turn[3][12] = None
        turn[4] = [1768841280 + 60 * n, 0]
        turns.append(turn)
    newest = list(reversed(turns))
    return [
        _response_text([newest[:2], "page-two-token", None, 0]),
        _response_text([newest[2:], None, None, 0]),
    ]


def serve_gemini(sites: FakeSites, *, api_status: int = 200) -> str:
    """The captured Gemini page at its conversation URL, with its session tokens; the API pages or an error."""
    tokens = json.dumps(
        {"SNlM0e": GEMINI_AT, "cfb2h": "boq_assistant-bard-web-server_20260101.00_p0", "FdrFJe": "-42"}
    )
    head = f"<script>window.WIZ_global_data = {tokens};</script>"
    url = f"https://gemini.google.com/app/{GEMINI_ID}"
    sites.pages[url] = page_html(GEMINI_PAGE, "Gemini", head)
    pages = gemini_api_pages()
    asked: list[int] = []

    def batchexecute(request):
        if api_status != 200:
            return api_status, TextBody(")]}'\n", "text/plain")
        if request.headers.get("x-same-domain") != "1":
            return 400, TextBody("missing X-Same-Domain", "text/plain")
        body = (
            getattr(request, "post_data", None) or ""
        )  # (Firefox's intercepts carry no body: pages in turn)
        if body and f"at={GEMINI_AT}" not in body:
            return 401, TextBody("no at token", "text/plain")
        second = "page-two-token" in body if body else bool(asked)
        asked.append(1)
        return 200, TextBody(pages[1] if second else pages[0])

    sites.json_routes[f"{BATCHEXECUTE}$"] = (200, batchexecute)
    return url


# --- DeepSeek ------------------------------------------------------------------------------------------------


def deepseek_history() -> dict:
    text = DEEPSEEK_STREAM.read_text(encoding="utf-8")
    request = json.loads(text.split("## Request Payload")[1].split("##")[0])
    answer = replay(text.split("## Response Payload")[1].split("## Expected Extraction Result")[0])
    prompt = {
        "message_id": answer["parent_id"],
        "parent_id": None,
        "role": "USER",
        "inserted_at": answer["inserted_at"],
        "files": [],
        "fragments": [{"id": 1, "type": "REQUEST", "content": request["prompt"]}],
    }
    session = {
        "id": request["chat_session_id"],
        "title": "User Greets AI Assistant for Testing",
        "current_message_id": answer["message_id"],
        "inserted_at": 1763793566.4,
        "updated_at": 1763793569.4,
    }
    return {
        "code": 0,
        "msg": "",
        "data": {
            "biz_code": 0,
            "biz_msg": "",
            "biz_data": {"chat_session": session, "chat_messages": [prompt, answer]},
        },
    }


def serve_deepseek(sites: FakeSites, *, api_status: int = 200) -> str:
    history = deepseek_history()
    session = history["data"]["biz_data"]["chat_session"]["id"]
    token = json.dumps(json.dumps({"value": DEEPSEEK_TOKEN, "__version": "0"}))
    # the custom scrollbars' gutters are absolutely placed inside boxes the site's stylesheet (absent here)
    # positions: without it one covers the whole page
    head = (
        f"<script>localStorage.setItem('userToken', {token});</script>"
        "<style>.ds-scroll-area__gutters { display: none; }</style>"
    )
    url = f"https://chat.deepseek.com/a/chat/s/{session}"
    sites.pages[url] = page_html(DEEPSEEK_PAGE, "Curiosity leads to remarkable discoveries - DeepSeek", head)

    def history_messages(request):
        if api_status != 200:
            return api_status, {"code": 40003, "msg": "blocked"}
        if request.headers.get("authorization") != f"Bearer {DEEPSEEK_TOKEN}":
            return 401, {"code": 40002, "msg": "unauthorized"}
        if f"chat_session_id={session}" not in request.url:
            return 404, {"code": 40004, "msg": "no such session"}
        return 200, history

    sites.json_routes["https://chat.deepseek.com/api/v0/chat/history_messages$"] = (200, history_messages)
    return url
