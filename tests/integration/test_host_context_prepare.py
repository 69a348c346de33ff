"""After a save's reply (or a `get`'s) a host splits the conversation into the context engine's units, so the
context the user asks for next (Continue in, redacted by default) does not split and term the whole
history first. In-process through the real actions and a real archive."""

from __future__ import annotations

import pytest

from mnemosyne.context import corpus, units
from mnemosyne.nativehost.actions import context, get, save
from mnemosyne.prepare import unit_cache
from test_host_paging_interop import big_chatgpt_payload


@pytest.fixture
def session(host_session):
    return host_session


def splits(monkeypatch, session=None) -> list[str]:
    """The message texts a host (`session`) or a command splits from now on (cache misses), all in this
    process (a helper process sharing a long history's split would count its own: test_shared_work.py)."""
    monkeypatch.setenv("MNEMOSYNE_ONE_PROCESS", "1")
    if session is not None:
        session.preparation.close()  # (its worker: a host session's after_reply started one)
    seen: list[str] = []
    original = units.split_units

    def counted(text: str):
        seen.append(text)
        return original(text)

    monkeypatch.setattr(units, "split_units", counted)
    return seen


def read_back(monkeypatch) -> list[str]:
    """The texts whose units the host reads back from the archive from now on."""
    seen: list[str] = []
    original = unit_cache.UnitCache._stored_units

    def counted(self, text: str):
        seen.append(text)
        return original(self, text)

    monkeypatch.setattr(unit_cache.UnitCache, "_stored_units", counted)
    return seen


def corpora_built(monkeypatch) -> list[int]:
    """The corpora (term statistics, relevance) the engine builds from now on: one entry per corpus."""
    built: list[int] = []

    class Counted(corpus.Corpus):
        def __init__(self, turns, *args, **kwargs):
            built.append(len(turns))
            super().__init__(turns, *args, **kwargs)

    monkeypatch.setattr(corpus, "Corpus", Counted)
    return built


def full_context(session, conv_id: str, redact: bool) -> str:
    reply = context.run(
        {"conversation_id": conv_id, "target": "chatgpt", "budget": 2000, "redact": redact}, session
    )
    text = reply["chunk"]
    while reply["next_cursor"]:
        reply = context.run({"conversation_id": conv_id, "cursor": reply["next_cursor"]}, session)
        text += reply["chunk"]
    return text


@pytest.mark.parametrize("redact", [True, False])
def test_the_context_after_a_save_splits_nothing_and_is_the_same(session, monkeypatch, redact):
    """The host prepares the version the last context asked for (redacted unless the extension's setting
    turned it off)."""
    session.preparation.caches.clear()
    if not redact:
        session.preparation.redacted_contexts = False  # (as after a context asked for without redaction)
    conv_id = save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, session)["conversation_id"]
    session.after_reply(lambda: False)  # what the host does once the save's reply is written
    seen = splits(monkeypatch, session)
    built = corpora_built(monkeypatch)
    prepared = full_context(session, conv_id, redact)
    assert seen == [] and built == []  # nothing split, and its statistics and relevance were ready
    # the same build from nothing (no units in memory nor in the archive): the same context, every message split
    session.preparation.caches.clear()
    session.archive().conn.execute("DELETE FROM context_units")
    cold = full_context(session, conv_id, redact)
    assert cold == prepared
    assert len(seen) > 50


def test_the_redacted_context_after_a_save_searches_no_text_again(session, monkeypatch):
    """After a save's reply the host redacts the conversation into its caches' memo (a secret in a title and
    a message among its texts): the redacted context asked for next, and the units stored after it, search
    no text for secrets again, and the context holds none of them."""
    from mnemosyne.redact import Redactor

    session.preparation.caches.clear()
    payload = secret_payload("secret-memo")
    payload["title"] = "Mail dana.kowalski@example.org"
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, session)["conversation_id"]
    session.after_reply(lambda: False)
    assert session.preparation.caches.redactions  # the host's memo, filled after the reply
    searched: list[str] = []
    original = Redactor._pattern_for
    monkeypatch.setattr(
        Redactor, "_pattern_for", lambda self, text: searched.append(text) or original(self, text)
    )
    text = full_context(session, conv_id, True)
    session.after_reply(lambda: False)  # the units of both versions stored
    assert searched == []
    assert "dana.kowalski@example.org" not in text and "[REDACTED:email]" in text


def test_no_preparation_while_a_request_waits(session, monkeypatch):
    session.preparation.caches.clear()
    save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, session)
    seen = splits(monkeypatch, session)
    session.after_reply(lambda: True)  # a request is waiting: it is answered first
    assert seen == []
    session.after_reply(lambda: False)  # the conversation saved is not prepared later by another reply
    assert seen == []


def test_reading_a_conversation_prepares_its_context(session, monkeypatch):
    """The library's reading view (`get`) is where Continue in is asked for next: after its reply the
    host splits the conversation, so the context splits nothing."""
    conv_id = save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, session)["conversation_id"]
    session.after_reply(lambda: False)
    session.preparation.caches.clear()  # as after a host restart: nothing of it in memory
    get.run({"conversation_id": conv_id, "format": "markdown"}, session)
    session.after_reply(lambda: False)
    seen = splits(monkeypatch, session)
    full_context(session, conv_id, True)
    assert seen == []


def test_the_units_come_before_the_search_index(session, monkeypatch):
    """Continue in saves, then asks for the context at once: after the save's reply the host splits the
    conversation first, and writes its search index after (a context asked for meanwhile waited for it);
    storing the units, a text at a time, comes last (a pick then waits for one text, not for the index)."""
    from mnemosyne.context import engine
    from mnemosyne.service import context as service_context

    order: list[str] = []
    original_prepare = engine.prepare
    monkeypatch.setattr(
        engine,
        "prepare",
        lambda conv, go, *a, **kw: order.append("units") or original_prepare(conv, go, *a, **kw),
    )
    original_store = service_context.store_units
    monkeypatch.setattr(
        service_context, "store_units", lambda *a: order.append("store") or original_store(*a)
    )
    conv_id = save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, session)["conversation_id"]
    arc = session.archive()
    original_index = arc.index_pending
    monkeypatch.setattr(
        arc, "index_pending", lambda more=lambda: True: order.append("index") or original_index(more)
    )
    session.after_reply(lambda: False)
    assert order == ["units", "index", "store"]
    assert (
        arc.conn.execute(
            "SELECT count(*) FROM index_pending WHERE conversation_id = ?", (conv_id,)
        ).fetchone()[0]
        == 0
    )


def test_a_conversation_saved_again_unchanged_is_not_weighed_again(session, monkeypatch):
    """The corpus kept from the first save's preparation is prepared once: a re-save (keep-current, a
    second Export) does not weigh and count its densest units again while the next request may wait."""
    from mnemosyne.context import digest

    session.preparation.caches.clear()
    payload = big_chatgpt_payload()
    save.run({"payload": payload, "kind": "chatgpt_api"}, session)
    marked: list[int] = []
    original = digest.mark_repeats_and_corrections

    def counted(units, *args):
        marked.append(len(units))
        return original(units, *args)

    monkeypatch.setattr(digest, "mark_repeats_and_corrections", counted)
    session.after_reply(lambda: False)
    first = len(marked)  # (one corpus: with no secret in it, the redacted copy has the plain one's texts)
    assert first >= 1
    again = save.run({"payload": payload, "kind": "chatgpt_api"}, session)
    assert again["status"] == "unchanged"
    session.after_reply(lambda: False)
    assert len(marked) == first


def secret_payload(conv_id: str) -> dict:
    """A conversation whose redacted copy differs from it in one message (an e-mail address)."""
    payload = big_chatgpt_payload()
    payload["conversation_id"] = payload["id"] = conv_id
    parts = payload["mapping"]["m10"]["message"]["content"]["parts"]
    parts[0] += f" Write to dana.kowalski@example.org about {conv_id}."  # (each its own texts)
    return payload


def test_the_host_prepares_the_version_the_last_context_asked_for(session, monkeypatch):
    """Redacted by default (the extension's default); plain once the extension asked for a plain context
    (its setting turned redaction off). Only that version's corpus is made after the next save."""
    session.preparation.caches.clear()
    first = save.run({"payload": secret_payload("secret-1"), "kind": "chatgpt_api"}, session)[
        "conversation_id"
    ]
    session.after_reply(lambda: False)
    built = corpora_built(monkeypatch)
    full_context(session, first, True)
    assert built == []  # the redacted version was prepared
    full_context(session, first, False)
    assert len(built) == 1  # the plain one was not: made now
    assert session.preparation.redacted_contexts is False
    second = save.run({"payload": secret_payload("secret-2"), "kind": "chatgpt_api"}, session)[
        "conversation_id"
    ]
    session.after_reply(lambda: False)
    built.clear()
    full_context(session, second, False)
    assert built == []  # the plain version was prepared this time
    full_context(session, second, True)
    assert len(built) == 1


def own_texts_payload(conv_id: str) -> dict:
    """big_chatgpt_payload with every text its own (marked with `conv_id`)."""
    payload = big_chatgpt_payload()
    payload["conversation_id"] = payload["id"] = conv_id
    for node in payload["mapping"].values():
        if node.get("message"):
            parts = node["message"]["content"]["parts"]
            parts[:] = [f"{p} [{conv_id}]" if isinstance(p, str) and p else p for p in parts]
    return payload


def test_the_host_holds_the_units_of_the_conversation_it_serves_only(session, monkeypatch):
    """Memory: a host turning to another conversation (a save, a context, a read) lets the engine's units and
    corpora, the token counts memo and the redaction memo of the others go — a host's memory grew by 40-50
    MB with each distinct 1 MB conversation until the caches' bounds, about 290 MB (the counts memo alone:
    10-20 MB, long_session_memory.py). A conversation it comes back to is read back from the archive (not
    split again) and gives the same context."""
    session.preparation.caches.clear()
    first = save.run({"payload": own_texts_payload("conv-a"), "kind": "chatgpt_api"}, session)
    session.after_reply(lambda: False)
    before = full_context(session, first["conversation_id"], True)
    session.after_reply(lambda: False)
    assert any("[conv-a]" in text for text in session.preparation.caches.units.texts())
    assert any("[conv-a]" in text for text in session.preparation.caches.redactions.texts())
    assert any("[conv-a]" in text for memo in session.preparation.caches.counts.values() for text in memo)

    second = save.run({"payload": own_texts_payload("conv-b"), "kind": "chatgpt_api"}, session)
    session.after_reply(lambda: False)
    assert any("[conv-b]" in text for text in session.preparation.caches.units.texts())
    assert not any("[conv-a]" in text for text in session.preparation.caches.units.texts())
    assert {c.owner for c in session.preparation.caches.corpora.values()} == {second["conversation_id"]}
    assert not any("[conv-a]" in text for text in session.preparation.caches.redactions.texts())
    assert not any("[conv-a]" in text for memo in session.preparation.caches.counts.values() for text in memo)

    seen = splits(monkeypatch, session)
    assert full_context(session, first["conversation_id"], True) == before
    assert seen == []  # its units were read back from the archive
    assert not any(
        "[conv-b]" in text for text in session.preparation.caches.units.texts()
    )  # a context turns to its conversation too


def test_what_a_preparation_cut_short_split_serves_the_context_asked_for_next(session, monkeypatch):
    """A pick arrives while the host prepares the conversation the menu saved: the texts split so far are
    not split again by the context (turning to the conversation lets only other conversations go)."""
    session.preparation.caches.clear()
    first = save.run({"payload": own_texts_payload("conv-a"), "kind": "chatgpt_api"}, session)
    session.after_reply(lambda: False)
    full_context(session, first["conversation_id"], True)
    session.after_reply(lambda: False)
    second = save.run({"payload": own_texts_payload("conv-b"), "kind": "chatgpt_api"}, session)
    seen = splits(monkeypatch, session)
    looks = iter(range(10_000))
    session.after_reply(lambda: next(looks) > 20)  # the pick arrives after a few texts
    assert 0 < len(seen) < 60
    before = list(seen)
    full_context(session, second["conversation_id"], True)
    assert len(seen) > len(before)  # the context split the rest
    assert len(set(seen)) == len(seen)  # and nothing twice


def test_a_conversation_longer_than_the_unit_cache_is_split_once_to_be_prepared(session, monkeypatch):
    """A conversation whose units the cache cannot hold (more than about 1.5 MB of distinct text): its
    preparation makes the corpus from what it split, every text once (the cache let the first ones go before
    the corpus took them, which split them again: a third of a 5 MB conversation's texts)."""
    from mnemosyne.context import engine

    session.preparation.caches.clear()
    conv_id = save.run({"payload": own_texts_payload("conv-a"), "kind": "chatgpt_api"}, session)[
        "conversation_id"
    ]
    conv = session.archive().get(conv_id)
    seen = splits(monkeypatch, session)
    monkeypatch.setattr(unit_cache, "CACHE_TERMS", 200)  # a few texts' units
    engine.prepare(conv, lambda: True, session.preparation.caches, redacted=False)
    assert len(seen) == len(set(seen)) == len({m.id for m in conv.messages}) > 100


def test_after_a_context_is_built_the_host_prepares_without_making_units_again(session, monkeypatch):
    """A context's reply leaves the conversation's corpus in memory: the work after it (preparing the
    conversation the host turned to) takes that corpus as it is. It split or read back every text whose
    units the cache had let go (a long conversation: all but the last 1.5 MB), only to find the corpus
    they would make already there: 20 MB of a 5 MB Chinese conversation's host, and seconds of work."""
    session.preparation.caches.clear()
    conv_id = save.run({"payload": own_texts_payload("conv-built"), "kind": "chatgpt_api"}, session)[
        "conversation_id"
    ]
    session.after_reply(lambda: False)  # prepared, and stored (units and corpus)
    full_context(session, conv_id, True)
    # (as the cache lets a long conversation's first texts go; its corpus is kept)
    session.preparation.caches.units.clear()
    seen = splits(monkeypatch, session)
    read = read_back(monkeypatch)
    session.after_reply(lambda: False)
    assert seen == [] and read == []
    # and the next context of it is the one a fresh host builds
    assert full_context(session, conv_id, True) == _fresh_context(session, conv_id)


def _fresh_context(session, conv_id: str) -> str:
    session.preparation.caches.clear()
    session.archive().conn.execute("DELETE FROM context_units")  # (corpora too)
    return full_context(session, conv_id, True)
