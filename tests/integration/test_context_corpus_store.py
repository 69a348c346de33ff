"""A conversation's corpus is stored in the archive with its units and read back by a later process, which then
reads back only the units of the turns a build looks at (prepare/corpus_store.py, archive/context_units.py).

Real archive, real host actions; a build from the stored corpus must give the context a build from nothing
gives, byte for byte, and a stored corpus that is damaged or of other turns is not used."""

from __future__ import annotations

import zlib

import msgspec
import pytest

from mnemosyne.context import corpus
from mnemosyne.nativehost.actions import delete, save
from mnemosyne.prepare import corpus_store, unit_store
from mnemosyne.service.context import STORED_CORPORA
from test_context_units_store import forget_everything, grown_by_an_exchange, payload_with_a_secret
from test_host_context_prepare import full_context


def corpus_rows(session, conv_id: str) -> dict[bytes, bytes]:
    from mnemosyne.archive import context_units

    return context_units.stored(session.archive().conn, conv_id, corpus_store.FORMAT)


def scorings(monkeypatch) -> list[int]:
    """How many corpora are made from their units (scored) from now on."""
    made: list[int] = []
    original = corpus.Corpus.score

    def counted(self, *args):
        made.append(1)
        return original(self, *args)

    monkeypatch.setattr(corpus.Corpus, "score", counted)
    return made


def unpacked(monkeypatch) -> list[bytes]:
    """The unit rows read back from now on."""
    read: list[bytes] = []
    original = unit_store.unpack
    monkeypatch.setattr(unit_store, "unpack", lambda blob: read.append(blob) or original(blob))
    return read


def from_nothing(session, conv_id: str) -> str:
    """The context with nothing in memory nor stored of the conversation."""
    forget_everything(session)
    session.renders.clear()
    session.archive().conn.execute("DELETE FROM context_units WHERE conversation_id = ?", (conv_id,))
    return full_context(session, conv_id, True)


def saved(session, payload: dict) -> str:
    forget_everything(session)  # (what other tests built of the same conversation is not this host's)
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, session)["conversation_id"]
    session.after_reply(lambda: False)  # prepared; its units and corpus stored
    return conv_id


def test_a_restarted_host_builds_from_the_stored_corpus_without_making_it_again(host_session, monkeypatch):
    conv_id = saved(host_session, payload_with_a_secret())
    assert len(corpus_rows(host_session, conv_id)) == 1  # the redacted path's, the version prepared
    forget_everything(host_session)
    host_session.renders.clear()
    made, read = scorings(monkeypatch), unpacked(monkeypatch)
    stored = full_context(host_session, conv_id, True)
    assert made == [] and read  # its statistics and relevance read back; the units it looks at too
    assert stored == from_nothing(host_session, conv_id)
    assert made == [1]  # (the build from nothing made its corpus)


def test_a_damaged_corpus_row_is_refused_and_the_corpus_made_again(host_session, monkeypatch):
    conv_id = saved(host_session, payload_with_a_secret())
    host_session.archive().conn.execute(
        "UPDATE context_units SET units = ? WHERE conversation_id = ? AND format = ?",
        (zlib.compress(b"\x93\x01\x02\x03"), conv_id, corpus_store.FORMAT),
    )
    forget_everything(host_session)
    host_session.renders.clear()
    made = scorings(monkeypatch)
    damaged = full_context(host_session, conv_id, True)
    assert made == [1]
    assert damaged == from_nothing(host_session, conv_id)


def test_a_grown_conversation_makes_its_corpus_again_and_stores_the_new_one(host_session, monkeypatch):
    """Continued on the site and saved again: the stored corpus is of the turns before (its statistics and
    the query, the last user turns, changed), so it is not used; the one made is stored, and at most two are
    kept (a redacted and a plain path's)."""
    payload = payload_with_a_secret()
    conv_id = saved(host_session, payload)
    before = set(corpus_rows(host_session, conv_id))
    grown = grown_by_an_exchange(payload)
    save.run({"payload": grown, "kind": "chatgpt_api"}, host_session)
    host_session.preparation._to_prepare = None
    forget_everything(host_session)
    host_session.renders.clear()
    made = scorings(monkeypatch)
    context = full_context(host_session, conv_id, True)
    assert made == [1] and "It was 412 EUR." in context
    host_session.after_reply(lambda: False)
    after = set(corpus_rows(host_session, conv_id))
    assert len(after - before) == 1 and len(after) <= STORED_CORPORA  # the new one, beside at most one other
    assert context == from_nothing(host_session, conv_id)


def test_the_corpus_rows_go_with_their_conversation_and_stay_when_its_units_are_stored(host_session):
    from mnemosyne.service.context import store_units

    conv_id = saved(host_session, payload_with_a_secret())
    rows = corpus_rows(host_session, conv_id)
    arc = host_session.archive()
    arc.conn.execute(  # the units of a text the conversation no longer has
        "INSERT INTO context_units (conversation_id, text_key, format, units) VALUES (?, ?, ?, ?)",
        (conv_id, b"\x00" * 16, unit_store.FORMAT, b"x"),
    )
    store_units(
        arc, arc.get(conv_id), host_session.preparation.caches
    )  # drops the rows of texts it no longer has
    left = arc.conn.execute("SELECT count(*) FROM context_units WHERE text_key = ?", (b"\x00" * 16,))
    assert left.fetchone()[0] == 0
    assert rows and corpus_rows(host_session, conv_id) == rows
    delete.run({"conversation_id": conv_id}, host_session)
    assert corpus_rows(host_session, conv_id) == {}


def _row(stored: corpus_store.Stored) -> bytes:
    return zlib.compress(msgspec.msgpack.encode(stored), 1)


def _valid(**changes) -> corpus_store.Stored:
    fields = dict(
        parts=[2, 1],
        sizes=[10, 12, 7],
        df={"rent": 2, "£40": 1},
        first_turn={"rent": 0, "£40": 1},
        last_turn={"rent": 1, "£40": 1},
        kind_of={"rent": "word", "£40": "number"},
        relevance={0: 0.5, 2: 1.0},
        densities=[(2.0, [1.0, 0.5, 2.0], [False, False, False])],
    )
    fields.update(changes)
    return corpus_store.Stored(**fields)


def test_a_valid_row_comes_back_as_it_was_written():
    assert corpus_store.unpack(_row(_valid())) == _valid()


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"not zlib at all",
        zlib.compress(b"\x93\x01\x02\x03"),  # MessagePack, not the layout
        _row(_valid(parts=[2, 2])),  # more units than sizes
        _row(_valid(parts=[4, -1])),  # a negative count
        _row(_valid(first_turn={"rent": 0})),  # a term without its first turn
        _row(_valid(relevance={3: 1.0})),  # relevance of a unit that is not there
        _row(_valid(densities=[(2.0, [1.0], [False, False, False])])),  # densities of fewer units
        zlib.compress(msgspec.msgpack.encode(_valid()).replace(b"word", b"verb")),  # a kind of no term
        zlib.compress(b"\x00" * (corpus_store.MAX_UNPACKED + 1)),  # inflates past the bound
    ],
)
def test_a_damaged_or_foreign_corpus_row_is_refused(blob):
    assert corpus_store.unpack(blob) is None


def bench_payload(chinese: bool) -> dict:
    """A ChatGPT conversation of real sentences (the benchmarks' corpus: tests/bench/corpus.py), 0.3 MB."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "bench" / "corpus.py"
    spec = importlib.util.spec_from_file_location("bench_corpus_for_store", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.chatgpt_conversation(11, messages=601, chinese=chinese)


@pytest.mark.parametrize("chinese", [False, True])
def test_contexts_from_a_stored_corpus_are_those_of_a_build_from_nothing(host_session, monkeypatch, chinese):
    from mnemosyne.nativehost.actions import context

    conv_id = saved(host_session, bench_payload(chinese))
    asks = [("chatgpt", 2000), ("claude", 8000), ("gpt-4o", 20000)]

    def contexts() -> list[str]:
        out = []
        for target, budget in asks:
            host_session.renders.clear()
            params = {"conversation_id": conv_id, "target": target, "budget": budget, "redact": True}
            reply = context.run(params, host_session)
            text = reply["chunk"]
            while reply["next_cursor"]:
                reply = context.run(
                    {"conversation_id": conv_id, "cursor": reply["next_cursor"]}, host_session
                )
                text += reply["chunk"]
            out.append(text)
        return out

    forget_everything(host_session)
    made = scorings(monkeypatch)
    stored = contexts()
    assert made == []
    forget_everything(host_session)
    host_session.archive().conn.execute("DELETE FROM context_units WHERE conversation_id = ?", (conv_id,))
    assert stored == contexts() and made == [1]


def test_the_key_tells_turns_query_and_its_turns_apart_and_takes_any_text():
    from mnemosyne.context.turns import Turn

    turns = [Turn(0, "m0", "user", "the rent is £35"), Turn(1, "m1", "assistant", "noted \ud800")]
    base = corpus_store.key(turns, {"rent": "word"}, {0})
    others = [
        corpus_store.key(turns[:1], {"rent": "word"}, {0}),  # a turn fewer
        corpus_store.key([turns[0], Turn(1, "m1", "assistant", "noted")], {"rent": "word"}, {0}),  # a text
        corpus_store.key(turns, {"rent": "name"}, {0}),  # a query term's kind
        corpus_store.key(turns, {"ren": "word", "t": "word"}, {0}),  # the same characters, other terms
        corpus_store.key(turns, {"rent": "word"}, {1}),  # the query's turns
    ]
    assert len({base, *others}) == 6 and base == corpus_store.key(list(turns), {"rent": "word"}, {0})
