"""Serve chatgpt.com, claude.ai, gemini.google.com and the other chat sites offline from tests/fixtures, at their
real URLs.

Saved pages are served with their <script> elements removed: the sites' bundles cannot load offline, and
what the extension reads is the rendered DOM the page was saved with. API routes answer with fixture JSON
(or with an error status to force the DOM fallback). Every request that no route claims is aborted, so a
test can never reach the network.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ACCESS_TOKEN = "fake-access-token-for-tests"
CLAUDE_ORG = "0b5bd5a7-3a5e-4c3b-8a51-6f0a0cf0e0aa"
CLAUDE_ROOT = "00000000-0000-4000-8000-000000000000"

SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>", re.S | re.I)


def strip_scripts(html: str) -> str:
    return SCRIPT.sub("", html)


def shell(body: str, title: str, head: str = "") -> str:
    """A minimal page around a saved DOM fragment: a header for the site's actions and a scroll root."""
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>"
        + title
        + "</title>"
        + head
        + "</head><body>"
        "<header id='page-header'><div id='conversation-header-actions'><button data-testid='share-chat-button'>Share</button></div>"
        "</header><main><div data-scroll-root style='height:600px;overflow-y:auto'>"
        + body
        + "</div></main></body></html>"
    )


def chatgpt_api_fixture(
    name: str = "0119-Tide_anneal_crucible_explanation-6925e174-6714-832f-8946-84bdb22f6d2e.json",
) -> dict:
    return json.loads((FIXTURES / "chatgpt_api" / "elinvoss" / name).read_text(encoding="utf-8"))


def claude_api_from_export(conversation: dict, *, messages_key: str = "chat_messages") -> dict:
    """Shape one conversation of a Claude export like the live chat_conversations?tree=True reply: each message
    gets parent_message_uuid (a linear chain), and the conversation gets current_leaf_message_uuid."""
    shaped = dict(conversation)
    # claude.ai ids are UUIDs (export fixtures sometimes use readable ids): derive a stable one
    shaped["uuid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"claude-test/{conversation['uuid']}"))
    messages = []
    parent = CLAUDE_ROOT
    for index, message in enumerate(conversation[messages_key]):
        item = dict(message)
        item.setdefault("index", index)
        item["parent_message_uuid"] = parent
        messages.append(item)
        parent = item["uuid"]
    shaped["chat_messages"] = messages
    shaped["current_leaf_message_uuid"] = parent
    shaped.setdefault("model", "claude-sonnet-4")
    shaped.setdefault("settings", {})
    return shaped


def claude_export_conversation(name: str = "echomine_claude_tool_messages.json", index: int = 0) -> dict:
    data = json.loads((FIXTURES / "claude_export" / name).read_text(encoding="utf-8"))
    return data[index] if isinstance(data, list) else data


@dataclass(frozen=True)
class TextBody:
    """A route's answer sent as this text, not as JSON."""

    text: str
    content_type: str = "application/json; charset=utf-8"


@dataclass
class FakeSites:
    """Route table for one browser context; tests adjust it before navigating."""

    pages: dict[str, str] = field(default_factory=dict)  # full URL (no query) -> HTML
    json_routes: dict[str, tuple[int, object]] = field(default_factory=dict)  # path prefix -> (status, body)
    seen: list[dict] = field(default_factory=list)  # requests the fake sites answered (url, headers)
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # full URL -> (content type, bytes)

    def install(self, ctx) -> None:
        # registered first, so it runs last: every web request nobody serves fails (offline). Extension
        # pages' own files (chrome-extension://) are not web requests and must load.
        ctx.route(re.compile(r"^(https?|wss?)://"), lambda route: route.abort())
        for origin in (
            "https://chatgpt.com/**",
            "https://claude.ai/**",
            "https://gemini.google.com/**",
            "https://example.com/**",
            "https://chat.deepseek.com/**",
            "https://grok.com/**",
            "https://www.perplexity.ai/**",
            "https://chat.mistral.ai/**",
            "https://chat.qwen.ai/**",
        ):
            ctx.route(origin, self._handle)

    def _handle(self, route) -> None:
        answer = self.answer(route.request, is_document=route.request.resource_type == "document")
        if answer is None:
            route.abort()
        else:
            status, content_type, body, headers = answer
            route.fulfill(status=status, content_type=content_type, body=body, headers=headers)

    def answer(self, request, *, is_document: bool) -> tuple[int, str, str | bytes, dict[str, str]] | None:
        """(status, content type, body, extra headers) for a request (anything with .url and .headers), or None
        to fail it. Shared by the Playwright routes and the Firefox test's WebDriver BiDi intercepts. A callable
        route answers (status, body) or (status, body, headers)."""
        url = request.url.split("#")[0]
        path_and_query = re.sub(r"^https://[^/]+", "", url)
        origin = url[: len(url) - len(path_and_query)]
        self.seen.append({"url": url, "headers": dict(request.headers)})
        if url in self.files:
            content_type, data = self.files[url]
            return 200, content_type, data, {}
        for prefix, (status, body) in sorted(self.json_routes.items(), key=lambda item: -len(item[0])):
            exact = prefix.endswith("$")  # "...$": this path only (any query), not everything under it
            if (url.split("?")[0] == prefix[:-1]) if exact else (origin + path_and_query).startswith(prefix):
                headers: dict[str, str] = {}
                if callable(body):
                    status, body, *more = body(request)
                    headers = more[0] if more else {}
                if isinstance(body, TextBody):  # an API that answers text, not JSON (Gemini's batchexecute)
                    return status, body.content_type, body.text, headers
                return status, "application/json", json.dumps(body), headers
        page = self.pages.get(url.split("?")[0])
        if page is not None and is_document:
            return 200, "text/html; charset=utf-8", page, {}
        return None

    # --- ChatGPT ---------------------------------------------------------------------------------
    def chatgpt_conversation(
        self, conversation_id: str, html: str, api: dict | None, *, api_status: int = 200
    ) -> str:
        url = f"https://chatgpt.com/c/{conversation_id}"
        self.pages[url] = html
        expires = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 3600))
        if api_status == 200:
            self.json_routes["https://chatgpt.com/api/auth/session$"] = (
                200,
                {"accessToken": ACCESS_TOKEN, "expires": expires, "user": {"id": "user-test"}},
            )

            def conversation(request):
                if request.headers.get("authorization") != f"Bearer {ACCESS_TOKEN}":
                    return 401, {"detail": "unauthorized"}
                return 200, api

            self.json_routes[f"https://chatgpt.com/backend-api/conversation/{conversation_id}"] = (
                200,
                conversation,
            )
        else:
            self.json_routes["https://chatgpt.com/api/auth/session"] = (api_status, {"error": "blocked"})
            self.json_routes["https://chatgpt.com/backend-api/"] = (api_status, {"detail": "blocked"})
        return url

    # --- Claude ----------------------------------------------------------------------------------
    def claude_conversation(self, html: str, api: dict | None, *, api_status: int = 200) -> str:
        conversation_id = (api or {}).get("uuid") or str(uuid.uuid4())
        url = f"https://claude.ai/chat/{conversation_id}"
        self.pages[url] = html
        if api_status == 200:
            self.json_routes["https://claude.ai/api/organizations$"] = (
                200,
                [
                    {"uuid": "api-only-org", "capabilities": ["api"]},
                    {"uuid": CLAUDE_ORG, "capabilities": ["chat", "claude_pro"]},
                ],
            )

            def conversation(request):
                wanted = ("tree=True", "rendering_mode=messages", "render_all_tools=true")
                if not all(part in request.url for part in wanted):
                    return 400, {"error": "missing query"}
                return 200, api

            self.json_routes[
                f"https://claude.ai/api/organizations/{CLAUDE_ORG}/chat_conversations/{conversation_id}"
            ] = (200, conversation)
        else:
            self.json_routes["https://claude.ai/api/"] = (api_status, {"error": "blocked"})
        return url


def open_chatgpt_conversation(browser, sites, api: dict | None = None):
    """A new tab on the fake chatgpt.com showing a real saved page, its API serving `api` (default: the fixture)."""
    api = api or chatgpt_api_fixture()
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    page = browser.new_page()
    page.goto(sites.chatgpt_conversation(api["conversation_id"], html, api))
    return page


def idless_chatgpt_pages() -> tuple[str, str]:
    """Two different chats as the page shows them: the logged-out full page and a code thread."""
    second = strip_scripts((FIXTURES / "dom_chatgpt" / "ys_chatgpt.html").read_text(encoding="utf-8"))
    first = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    return first, shell(second, "ChatGPT")


def block_chatgpt_api(sites: FakeSites) -> None:
    """The site's API refuses every call (signed out, rate limited): the extension reads the page."""
    sites.json_routes["https://chatgpt.com/api/auth/session"] = (403, {"error": "blocked"})
    sites.json_routes["https://chatgpt.com/backend-api/"] = (403, {"detail": "blocked"})
