"""The context engine's units are stored in the archive once a conversation is prepared or built, and read
back by a later process instead of split again (prepare/unit_store.py, archive/context_units.py).

Real archive, real host actions, real fixture conversations; a build from stored units must give the
context a build from nothing gives, byte for byte."""

from __future__ import annotations

import copy
import importlib.util
import sys
import zlib
from pathlib import Path

import msgspec
import pytest

from conversation_samples import claude_style_tools, every_part, fixture_conversations
from mnemosyne import tokens
from mnemosyne.archive import context_units
from mnemosyne.cjk import has_cjk
from mnemosyne.context import units
from mnemosyne.context.engine import unit_texts
from mnemosyne.model import Conversation
from mnemosyne.nativehost.actions import delete, save
from mnemosyne.prepare import caches as caches_module
from mnemosyne.prepare import corpus_store, unit_cache, unit_store
from mnemosyne.redact import redact_conversation
from mnemosyne.tokens.policy import COUNTED_ENCODING
from test_host_context_prepare import full_context, splits
from test_host_paging_interop import big_chatgpt_payload

SECRET = "write to dana.kowalski@example.org about the invoice"


def payload_with_a_secret() -> dict:
    """A conversation of about 1.4 MB whose redacted copy differs from it in one message."""
    payload = big_chatgpt_payload()
    parts = payload["mapping"]["m10"]["message"]["content"]["parts"]
    parts[0] = parts[0] + " " + SECRET
    return payload


def grown_by_an_exchange(payload: dict) -> dict:
    """`payload` (a ChatGPT conversation) continued on the site by a question and its answer."""
    grown = copy.deepcopy(payload)
    mapping, last = grown["mapping"], grown["current_node"]
    for mid, role, text in (
        ("q1", "user", "What was the invoice total again?"),
        ("a1", "assistant", "It was 412 EUR."),
    ):
        mapping[last]["children"] = [mid]
        mapping[mid] = copy.deepcopy(mapping[last]) | {"id": mid, "parent": last, "children": []}
        mapping[mid]["message"] = copy.deepcopy(mapping[last]["message"]) | {"id": mid}
        mapping[mid]["message"]["author"] = {"role": role, "name": None, "metadata": {}}
        mapping[mid]["message"]["content"] = {"content_type": "text", "parts": [text]}
        last = mid
    grown["current_node"] = last
    return grown


def stored_rows(session, conv_id: str) -> dict[bytes, bytes]:
    return context_units.stored(session.archive().conn, conv_id, unit_store.FORMAT)


def forget_everything(session) -> None:
    """As in a restarted host: nothing of any conversation in memory."""
    session.preparation.caches.clear()


def planted_fact_conversations() -> list[Conversation]:
    """The planted-fact bench's conversations (English and Chinese, tables, lists, code), both halves."""
    path = Path(__file__).parents[1] / "bench" / "context_quality.py"
    spec = importlib.util.spec_from_file_location("context_quality_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return [module.build(lang, 100, half)[0] for lang in ("en", "zh") for half in ("tuning", "test")]


def test_every_sample_texts_units_come_back_as_they_were_split():
    convs = [c for _, c in fixture_conversations()] + planted_fact_conversations()
    convs += [every_part(), claude_style_tools()]
    texts = {
        t for conv in convs for version in (conv, redact_conversation(conv)[0]) for t in unit_texts(version)
    }
    assert len(texts) > 800
    assert any(has_cjk(t) for t in texts) and any("```" in t for t in texts) and any("|" in t for t in texts)
    enc = tokens.encoding(COUNTED_ENCODING)
    for text in texts:
        split = units.split_units(text)
        counts = [len(enc.encode_ordinary(p[1])) for p in split.parts]
        blob = unit_store.pack(split, counts)
        assert blob is not None
        assert unit_store.unpack(blob) == split
        back = unit_store.unpack(blob)
        assert back is not None
        assert [(p[2], p[3]) for p in back.parts] == [(p[2], p[3]) for p in split.parts]  # order too
        assert back.counts == tuple(counts)


@pytest.mark.parametrize(
    ("text", "term"),
    [("数据库设计。数据库设计的要点", "设计"), ("The schema design. Schema design matters", "design")],
)
def test_a_term_read_back_is_the_string_a_split_made(text, term):
    """Memory: a term read back is one string however many units hold it, as a split's are (the decoder
    makes a new one for each: a host that read back the units of 5 MB of Chinese held 58 MB more)."""
    split = units.split_units(text)
    back = unit_store.unpack(unit_store.pack(split, [1] * len(split.parts)) or b"")
    assert back is not None and len(back.parts) == 2
    split_term = next(k for k in split.parts[0][2] if k == term)
    assert all(next(k for k in part[2] if k == term) is split_term for part in back.parts)
    # and the string of their kinds' letters, which units with the same kinds share
    assert [p[3] for p in back.parts] == [p[3] for p in split.parts]
    assert all(b[3] is s[3] for b, s in zip(back.parts, split.parts))


def test_units_with_the_same_kinds_of_terms_share_one_string_of_their_letters():
    """Memory: a unit's terms are its keys and one string of their kinds' letters, shared by every unit
    with the same kinds (a dict per unit took 19 MB for the units of 5 MB of English, these 7 MB)."""
    one = units.split_units("Rye bread needs time. Spelt bread needs water.")
    two = units.split_units("Oat cakes hold butter.")
    # (upper case: the first unit of its text to use the term; bread and needs come again)
    assert [p[3] for p in one.parts] == ["WWWW", "WwwW"] and two.parts[0][3] == "WWWW"
    assert one.parts[0][3] is two.parts[0][3]


def _row(units: tuple) -> bytes:
    return zlib.compress(msgspec.msgpack.encode((*units, [1] * len(units[0]))), 1)


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"not zlib at all",
        zlib.compress(b"\x93\x01\x02\x03"),  # MessagePack, not the layout
        zlib.compress(msgspec.msgpack.encode(([["sentence", "a b", ["a"], "w", []]], [3], [0], [False]))),
        zlib.compress(  # a negative count
            msgspec.msgpack.encode(([["sentence", "a b", ["a"], "w", []]], [3], [0], [False], [False], [-1]))
        ),
        _row(([["sentence", "a b", ["a"], "v", []]], [3], [0], [False], [False])),  # unknown term kind
        _row(([["sentence", "a b", ["a"], "ww", []]], [3], [0], [False], [False])),  # a kind without a key
        _row(([["sentence", "a b", ["a", "b"], "w", []]], [3], [0], [False], [False])),  # a key without one
        _row(([["poem", "a b", ["a"], "w", []]], [3], [0], [False], [False])),  # unknown unit kind
        _row(([["sentence", "a b", ["a"], "w", []]], [3, 4], [0], [False], [False])),  # lengths differ
        _row(([["sentence", "a b", {"a": "word"}, []]], [3], [0], [False], [False])),  # format 2's layout
        zlib.compress(b"\x00" * (unit_store.MAX_UNPACKED + 1)),  # inflates past the bound
    ],
)
def test_a_damaged_or_foreign_row_is_refused(blob):
    assert unit_store.unpack(blob) is None


def test_a_refused_row_is_split_again_and_the_build_is_the_same(host_session, monkeypatch):
    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    host_session.after_reply(lambda: False)
    expected = full_context(host_session, conv_id, True)
    conn = host_session.archive().conn
    conn.execute("UPDATE context_units SET units = x'00'")  # every row damaged
    forget_everything(host_session)
    host_session.renders.clear()
    seen = splits(monkeypatch, host_session)
    assert full_context(host_session, conv_id, True) == expected
    assert len(seen) > 200


def test_a_save_stores_the_units_of_its_texts_redacted_and_plain(host_session):
    payload = payload_with_a_secret()
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)["conversation_id"]
    assert stored_rows(host_session, conv_id) == {}  # after the reply, not before it
    host_session.after_reply(lambda: False)
    conv = host_session.archive().get(conv_id)
    rows = stored_rows(host_session, conv_id)
    texts = unit_texts(conv)
    assert set(rows) == {unit_store.key(t) for t in texts}
    assert any(SECRET in t for t in texts) and any(
        "[email" in t.lower() or "redacted" in t.lower() for t in texts if SECRET not in t and "[10]" in t
    )
    enc = tokens.encoding(COUNTED_ENCODING)
    for text in texts:
        back = unit_store.unpack(rows[unit_store.key(text)])
        assert back == units.split_units(text)
        assert back is not None and back.counts == tuple(len(enc.encode_ordinary(p[1])) for p in back.parts)


@pytest.mark.parametrize("redact", [True, False])
def test_a_restarted_host_reads_the_units_back_and_builds_the_same_context(host_session, monkeypatch, redact):
    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    host_session.after_reply(lambda: False)
    forget_everything(host_session)
    host_session.renders.clear()
    seen = splits(monkeypatch, host_session)
    stored = full_context(host_session, conv_id, redact)
    assert seen == []  # every text read back from the archive
    forget_everything(host_session)
    host_session.renders.clear()
    host_session.archive().conn.execute("DELETE FROM context_units")
    split = full_context(host_session, conv_id, redact)
    assert stored == split
    assert len(seen) > 200


def test_a_context_stores_what_it_split_after_its_reply(host_session):
    """A conversation saved before units were stored (an import, an older archive) gets them from its
    first context, once the reply is out."""
    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    host_session.preparation._to_prepare = None  # saved, never prepared
    forget_everything(host_session)
    full_context(host_session, conv_id, True)
    assert stored_rows(host_session, conv_id) == {}
    host_session.after_reply(lambda: False)
    conv = host_session.archive().get(conv_id)
    assert set(stored_rows(host_session, conv_id)) == {unit_store.key(t) for t in unit_texts(conv)}


def test_a_long_conversations_units_are_written_a_few_at_a_time_and_all_stored(host_session, monkeypatch):
    from mnemosyne.archive import db
    from mnemosyne.service import context as service_context

    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    transactions: list[int] = []
    original = db.Transaction.__enter__

    def counted(self):
        transactions.append(1)
        return original(self)

    monkeypatch.setattr(service_context, "STORE_CHUNK_BYTES", 1)  # a transaction for every row
    monkeypatch.setattr(db.Transaction, "__enter__", counted)
    arc = host_session.archive()
    conv = arc.get(conv_id)
    written = service_context.store_units(arc, conv, host_session.preparation.caches)
    keys = {unit_store.key(t) for t in unit_texts(conv)}
    assert written == len(keys) and set(stored_rows(host_session, conv_id)) == keys
    assert len(transactions) >= written > 100


def test_rows_go_with_their_conversation_and_with_texts_it_no_longer_has(host_session):
    payload = payload_with_a_secret()
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)["conversation_id"]
    host_session.after_reply(lambda: False)
    before = set(stored_rows(host_session, conv_id))
    # the site's copy changed a message in place (an edit the site does not keep as a branch)
    changed = copy.deepcopy(payload)
    changed["mapping"]["m20"]["message"]["content"]["parts"] = ["A wholly new text for turn twenty."]
    changed["update_time"] = changed.get("update_time", 0) + 100
    save.run({"payload": changed, "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: False)
    conv = host_session.archive().get(conv_id)
    after = set(stored_rows(host_session, conv_id))
    assert after == {unit_store.key(t) for t in unit_texts(conv)}
    assert after != before
    delete.run({"conversation_id": conv_id}, host_session)
    left = host_session.archive().conn.execute("SELECT count(*) FROM context_units").fetchone()[0]
    assert left == 0


def test_a_re_save_keeps_the_units_and_a_restarted_host_splits_only_the_new_turns(host_session, monkeypatch):
    """Continued on the site and saved again (the menu's save), after a browser restart: the units of the
    turns the archive had are read back; only the new exchange is split."""
    payload = payload_with_a_secret()
    conv_id = save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)["conversation_id"]
    host_session.after_reply(lambda: False)
    before = set(stored_rows(host_session, conv_id))
    grown = grown_by_an_exchange(payload)
    assert save.run({"payload": grown, "kind": "chatgpt_api"}, host_session)["status"] == "updated"
    assert set(stored_rows(host_session, conv_id)) == before  # the save that replaced it kept them
    host_session.preparation._to_prepare = None
    forget_everything(host_session)
    host_session.renders.clear()
    seen = splits(monkeypatch, host_session)
    full_context(host_session, conv_id, True)
    assert sorted(seen) == sorted({"What was the invoice total again?", "It was 412 EUR."})


def test_rows_of_another_format_are_not_read_and_are_replaced(host_session, monkeypatch):
    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    host_session.after_reply(lambda: False)
    conn = host_session.archive().conn
    conn.execute("UPDATE context_units SET format = format + 1")
    forget_everything(host_session)
    host_session.renders.clear()
    seen = splits(monkeypatch, host_session)
    full_context(host_session, conv_id, True)
    assert len(seen) > 200  # the other format's rows are not read
    host_session.after_reply(lambda: False)
    formats = conn.execute("SELECT DISTINCT format FROM context_units").fetchall()
    assert sorted(formats) == [(unit_store.FORMAT,), (corpus_store.FORMAT,)]  # units and the corpus, anew


def test_the_cli_stores_the_units_and_builds_the_same_context_from_them(mnemo_home, capsys, monkeypatch):
    from mnemosyne.archive import open_archive
    from mnemosyne.cli.main import main
    from mnemosyne.service import save_payload

    with open_archive() as arc:
        conv_id = save_payload(arc, payload_with_a_secret(), kind="chatgpt_api").id
    assert main(["context", conv_id, "--target", "chatgpt", "--budget", "3000", "--redact"]) == 0
    first = capsys.readouterr().out
    with open_archive() as arc:
        rows = context_units.stored(arc.conn, conv_id, unit_store.FORMAT)
        assert set(rows) == {unit_store.key(t) for t in unit_texts(arc.get(conv_id))}
    seen = splits(monkeypatch)
    assert main(["context", conv_id, "--target", "chatgpt", "--budget", "3000", "--redact"]) == 0
    assert capsys.readouterr().out == first
    assert seen == []


def test_the_rows_are_read_only_when_a_text_is_not_in_memory(host_session, monkeypatch):
    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    host_session.after_reply(lambda: False)
    reads: list[tuple[str, int]] = []
    original = context_units.stored
    monkeypatch.setattr(context_units, "stored", lambda *a: reads.append(a[1:]) or original(*a))
    host_session.renders.clear()
    full_context(host_session, conv_id, True)
    assert reads == []  # a warm build: every text in memory
    forget_everything(host_session)
    host_session.renders.clear()
    full_context(host_session, conv_id, True)
    # read once for the whole build: its corpus, then the units of the turns it looks at
    assert reads == [(conv_id, corpus_store.FORMAT), (conv_id, unit_store.FORMAT)]


def test_the_cli_prints_its_context_and_succeeds_when_the_units_cannot_be_stored(
    mnemo_home, capsys, monkeypatch
):
    """Storing is an optimisation after the output: another process holding the write lock (or any archive
    error) leaves the units unstored, and the command still succeeds without waiting out the lock."""
    import time

    from mnemosyne.archive import db, open_archive
    from mnemosyne.cli.main import main
    from mnemosyne.service import save_payload

    with open_archive() as arc:
        conv_id = save_payload(arc, payload_with_a_secret(), kind="chatgpt_api").id
    # a lock waited out would take two minutes: far from the command's own time, however loaded the machine
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 120_000)
    with open_archive() as other:
        other.conn.execute("BEGIN IMMEDIATE")  # another process writing
        started = time.monotonic()
        assert main(["context", conv_id, "--target", "chatgpt", "--budget", "3000"]) == 0
        waited = time.monotonic() - started
        other.conn.execute("ROLLBACK")
    out = capsys.readouterr()
    assert "[user #" in out.out and "tokens" in out.err
    assert waited < 60  # not the busy timeout
    with open_archive() as arc:
        assert context_units.stored(arc.conn, conv_id, unit_store.FORMAT) == {}


def test_a_host_keeps_a_long_conversations_corpus_slim_and_reads_back_the_units_it_looks_at(
    host_session, monkeypatch
):
    """A conversation whose units pass the cache's bound: after the preparation the host keeps its corpus
    slim (no units held), and its context reads back from the archive the units of the turns it looks at,
    splitting nothing; the context is the one a build from nothing gives."""
    forget_everything(host_session)  # (no corpus of another test's conversation)
    conv_id = save.run({"payload": payload_with_a_secret(), "kind": "chatgpt_api"}, host_session)[
        "conversation_id"
    ]
    host_session.after_reply(lambda: False)  # prepared whole, units stored
    (whole,) = host_session.preparation.caches.corpora.values()
    held = caches_module.terms_held([whole])
    assert whole.whole and whole.slim_weight() < held / 2
    monkeypatch.setattr(unit_cache, "CACHE_TERMS", held // 2)
    forget_everything(host_session)
    host_session.renders.clear()
    host_session.preparation.turn_to(host_session.archive().get(conv_id))
    host_session.after_reply(lambda: False)
    (slim,) = host_session.preparation.caches.corpora.values()
    assert not slim.whole and slim.texts is None
    seen = splits(monkeypatch, host_session)
    read: list[bytes] = []
    original = unit_store.unpack
    monkeypatch.setattr(unit_store, "unpack", lambda blob: read.append(blob) or original(blob))
    kept = full_context(host_session, conv_id, True)
    assert seen == [] and read  # read back, not split
    assert host_session.preparation.caches.corpora and all(
        c.texts is None for c in host_session.preparation.caches.corpora.values()
    )
    monkeypatch.setattr(unit_cache, "CACHE_TERMS", held * 2)
    forget_everything(host_session)
    host_session.renders.clear()
    host_session.archive().conn.execute("DELETE FROM context_units")
    assert full_context(host_session, conv_id, True) == kept
