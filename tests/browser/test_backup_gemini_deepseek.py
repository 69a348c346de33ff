"""Back up everything on Gemini and DeepSeek, in real Chromium with the real host and archive. Gemini's chat list
(MaZiqc: pinned, then the rest in pages) and reads (hNvQHb) are served from the real captured replies;
DeepSeek's session list (fetch_page, paged by updated_at) and history_messages from the real completion stream.
A second run over the unchanged account reads the lists only."""

from __future__ import annotations

import json
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
from ext_fakesite import TextBody, shell
from gemini_deepseek_sites import BATCHEXECUTE, DEEPSEEK_TOKEN, GEMINI_AT, MORE, deepseek_history
from test_backup import FAST, archive_ids, open_popup, wait_state

pytestmark = pytest.mark.browser


def gemini_tokens_head() -> str:
    tokens = json.dumps(
        {"SNlM0e": GEMINI_AT, "cfb2h": "boq_assistant-bard-web-server_20260101.00_p0", "FdrFJe": "-42"}
    )
    return f"<script>window.WIZ_global_data = {tokens};</script>"


def batch_text(rpc: str, reply) -> str:
    line = json.dumps([["wrb.fr", rpc, json.dumps(reply), None, None, None, "generic"]])
    return f")]}}'\n\n{len(line)}\n{line}\n"


def serve_gemini_account(sites, chats: list[str]) -> dict:
    """`chats` listed 20 a page (none pinned); every chat answers the real hNvQHb reply. Returns what was asked."""
    read = (MORE / "gemini" / "blackiya__hNvQHb_sample_gemini_conversation.txt").read_text(encoding="utf-8")
    asked: dict = {"lists": [], "reads": []}
    sites.pages["https://gemini.google.com/app"] = shell("<p>home</p>", "Gemini", gemini_tokens_head())

    def batchexecute(request):
        rpc = parse_qs(urlsplit(request.url).query)["rpcids"][0]
        form = parse_qs(request.post_data or "")
        if form.get("at") != [GEMINI_AT]:
            return 401, TextBody("no at", "text/plain")
        args = json.loads(json.loads(form["f.req"][0])[0][0][1])
        if rpc == "MaZiqc":
            asked["lists"].append(args)
            if args[2][0] == 1:
                return 200, TextBody(batch_text(rpc, [None, None, []]))
            start = int(args[1] or 0)
            page = [
                [c, f"chat {c}", None, None, None, [1768841280 - i, 0], None, None, None, 1]
                for i, c in enumerate(chats)
            ]
            token = str(start + 20) if start + 20 < len(chats) else None
            return 200, TextBody(batch_text(rpc, [None, token, page[start : start + 20]]))
        asked["reads"].append(args[0])
        return 200, TextBody(read)

    sites.json_routes[f"{BATCHEXECUTE}$"] = (200, batchexecute)
    return asked


def serve_deepseek_account(sites, sessions: list[str]) -> dict:
    asked: dict = {"lists": [], "reads": []}
    token = json.dumps(json.dumps({"value": DEEPSEEK_TOKEN, "__version": "0"}))
    sites.pages["https://chat.deepseek.com/"] = shell(
        "<p>home</p>", "DeepSeek", f"<script>localStorage.setItem('userToken', {token});</script>"
    )
    updated = {sid: 1765000000.0 - i for i, sid in enumerate(sessions)}

    def fetch_page(request):
        if request.headers.get("authorization") != f"Bearer {DEEPSEEK_TOKEN}":
            return 401, {"code": 40002}
        query = parse_qs(urlsplit(request.url).query)
        asked["lists"].append(request.url)
        cursor = float(query["lte_cursor.updated_at"][0]) if "lte_cursor.updated_at" in query else None
        rest = [s for s in sessions if cursor is None or updated[s] <= cursor][:10]
        items = [
            {"id": s, "title": f"chat {s[-4:]}", "updated_at": updated[s], "pinned": False} for s in rest
        ]
        more = bool(rest) and rest[-1] != sessions[-1]
        return 200, {
            "code": 0,
            "msg": "",
            "data": {"biz_code": 0, "biz_data": {"chat_sessions": items, "has_more": more}},
        }

    def history(request):
        if request.headers.get("authorization") != f"Bearer {DEEPSEEK_TOKEN}":
            return 401, {"code": 40002}
        session = parse_qs(urlsplit(request.url).query)["chat_session_id"][0]
        asked["reads"].append(session)
        reply = deepseek_history()
        reply["data"]["biz_data"]["chat_session"]["id"] = session
        return 200, reply

    sites.json_routes["https://chat.deepseek.com/api/v0/chat_session/fetch_page"] = (200, fetch_page)
    sites.json_routes["https://chat.deepseek.com/api/v0/chat/history_messages$"] = (200, history)
    return asked


def run_twice(browser, ext_url, home: str):
    page = browser.new_page()
    page.goto(home)
    popup = open_popup(browser, ext_url, FAST, file_hosts=False)
    popup.click("[data-mnemosyne='backup-all']")
    first = wait_state(popup, "done", 300_000)
    popup.click("[data-mnemosyne='backup-all']")
    popup.wait_for_function(
        "() => { const n = document.querySelector(\"[data-mnemosyne='backup-progress']\");"
        " return n.dataset.state === 'done' && n.dataset.skipped !== '0'; }",
        timeout=120_000,
    )
    return first, wait_state(popup, "done")


def test_gemini_backup_lists_every_page_reads_each_chat_once_then_skips_them(
    browser, sites, ext_url, mnemo_cli
):
    chats = [f"c_{uuid.uuid5(uuid.NAMESPACE_URL, f'gemini/{i}').hex[:16]}" for i in range(45)]
    asked = serve_gemini_account(sites, chats)
    first, second = run_twice(browser, ext_url, "https://gemini.google.com/app")
    assert (first["done"], first["failed"], first["left"]) == ("45", "0", "0"), first
    assert sorted(asked["reads"][:45]) == sorted(chats), "each chat read once"
    assert archive_ids(mnemo_cli, "gemini") == set(chats)
    # pinned (empty), then three pages of the rest, per run
    assert [(a[2][0], a[1]) for a in asked["lists"][:4]] == [(1, None), (0, None), (0, "20"), (0, "40")]
    assert second["skipped"] == "45" and len(asked["reads"]) == 45, "the second run read no chat"


def test_deepseek_backup_pages_by_updated_at_then_skips_unchanged(browser, sites, ext_url, mnemo_cli):
    sessions = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"deepseek/{i}")) for i in range(25)]
    asked = serve_deepseek_account(sites, sessions)
    first, second = run_twice(browser, ext_url, "https://chat.deepseek.com/")
    assert (first["done"], first["failed"], first["left"]) == ("25", "0", "0"), first
    assert sorted(asked["reads"]) == sorted(sessions), "each chat read once"
    assert archive_ids(mnemo_cli, "deepseek") == set(sessions)
    assert second["skipped"] == "25"
