"""Render once per paged request: a long-lived host keeps the text of a `get` or `context`
and serves its following pages from it, instead of rendering the whole document again for every page.
In-process through the real actions and a real archive; the one-shot path (a new process per page) still
works from the stateless cursor."""

from __future__ import annotations

import pytest

from mnemosyne.nativehost import paging
from mnemosyne.nativehost.actions import context, delete, get, save
from mnemosyne.nativehost.session import HostSession
from test_host_paging_interop import big_chatgpt_payload


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def session(host_session):
    host_session.renders = paging.RenderCache(clock=Clock())
    return host_session


@pytest.fixture
def big_id(session) -> str:
    return save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, session)["conversation_id"]


def all_pages(action, params: dict, session) -> tuple[str, int, dict]:
    first = action.run(dict(params), session)
    chunks, reply, pages = [first["chunk"]], first, 1
    while reply["next_cursor"]:
        reply = action.run({**params, "cursor": reply["next_cursor"]}, session)
        chunks.append(reply["chunk"])
        pages += 1
    return "".join(chunks), pages, first


def count_writes(monkeypatch) -> list[int]:
    """Count renders of the Markdown writer (the cost each page used to pay)."""
    from mnemosyne.writers import markdown

    calls: list[int] = []
    original = markdown.write

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(markdown, "write", counted)
    return calls


def test_get_renders_once_for_all_its_pages(session, big_id, monkeypatch):
    calls = count_writes(monkeypatch)
    text, pages, first = all_pages(get, {"conversation_id": big_id, "format": "markdown"}, session)
    assert pages >= 2
    assert len(calls) == 1  # was one render per page
    assert first["filename"].endswith(".md") and first["total_chars"] == len(text)
    # the same text as a fresh, stateless render of each page (the one-shot host's way)
    fresh = HostSession()
    try:
        alone, alone_pages, _ = all_pages(get, {"conversation_id": big_id, "format": "markdown"}, fresh)
    finally:
        fresh.close()
    assert (alone, alone_pages) == (text, pages)


def test_context_renders_once_for_all_its_pages(session, big_id):
    params = {"conversation_id": big_id, "target": "gpt-4.1", "budget": 2_000_000, "redact": True}
    before = session.renders.renders
    text, pages, first = all_pages(context, params, session)
    assert pages >= 2, "the test needs a context longer than one page"
    assert session.renders.renders - before == 1
    assert first["report"]["tokens"] > 0 and first["total_chars"] == len(text)


def test_a_cursor_page_after_expiry_renders_again_and_still_fits(session, big_id, monkeypatch):
    calls = count_writes(monkeypatch)
    params = {"conversation_id": big_id, "format": "markdown"}
    first = get.run(dict(params), session)
    session.renders.clock.now += session.renders.ttl + 1  # the kept text expired
    second = get.run({**params, "cursor": first["next_cursor"]}, session)
    assert len(calls) == 2  # the stateless fallback rendered again
    whole = all_pages(get, params, session)[0]
    assert whole.startswith(first["chunk"] + second["chunk"])


def test_a_new_request_renders_fresh_and_writes_clear_the_kept_texts(session, big_id, monkeypatch):
    calls = count_writes(monkeypatch)
    params = {"conversation_id": big_id, "format": "markdown"}
    first = get.run(dict(params), session)
    get.run(dict(params), session)  # a new first page is a new document: rendered, not reused
    assert len(calls) == 2
    delete.run({"conversation_id": big_id}, session)
    with pytest.raises(Exception) as gone:  # nothing of the deleted conversation comes from the cache
        get.run({**params, "cursor": first["next_cursor"]}, session)
    assert getattr(gone.value, "code", "") == "NOT_FOUND"


def test_the_cache_is_bounded_in_entries_and_characters():
    cache = paging.RenderCache(max_entries=2, max_chars=100, clock=Clock())
    for key in ("a", "b", "c"):
        cache.text(key, None, lambda key=key: (key * 10, {}))
    assert list(cache._entries) == ["b", "c"]  # the oldest went
    cache.text("d", None, lambda: ("d" * 95, {}))
    assert list(cache._entries) == ["d"] and cache._size() <= 100
    cache.text("e", None, lambda: ("e" * 101, {}))  # bigger than the whole bound: served, not kept
    assert "e" not in cache._entries
    assert cache.text("d", "cursor", lambda: pytest.fail("rendered again")).text == "d" * 95
