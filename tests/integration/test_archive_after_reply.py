"""What a host's saves leave for after the reply (the search index, WAL checkpoints), re-saves that keep the
rows of unchanged messages, and reading a saved conversation back."""

from __future__ import annotations

import pytest

from mnemosyne.archive import open_archive
from test_archive import conversation


def _indexed_ids(arc, word: str) -> set[str]:
    rows = arc.conn.execute(
        "SELECT m.conversation_id FROM messages_fts f JOIN messages m ON m.rowid = f.rowid"
        " WHERE messages_fts MATCH ?",
        (word,),
    )
    return {r[0] for r in rows}


def test_a_deferred_save_is_indexed_after_the_reply_and_found_by_search_before(mnemo_home):
    with open_archive() as arc:
        arc.defer_index = True
        first = arc.save(conversation("d1", ["zebracorn in the first words", "reply"]))
        assert _indexed_ids(arc, "zebracorn") == set()  # the save wrote no index rows
        assert [h["id"] for h in arc.search("zebracorn")] == [first.id]  # search indexed first
        assert not arc.has_pending_index()
        second = arc.save(conversation("d2", ["another zebracorn", "reply"]))
        assert arc.index_pending() == 1
        assert _indexed_ids(arc, "zebracorn") == {first.id, second.id}


def test_a_pending_index_survives_a_lost_host_and_follows_resaves_and_deletes(mnemo_home):
    with open_archive() as arc:
        arc.defer_index = True
        kept = arc.save(conversation("p1", ["oldword here", "reply"]))
        arc.save(conversation("p1", ["oldword here", "reply", "newword later"]))  # re-saved while pending
        gone = arc.save(conversation("p2", ["oldword too", "reply"]))
        arc.delete(gone.id)
        # closed without indexing, as a killed host would leave it
    with open_archive() as arc:  # another process: indexes from the stored documents
        assert arc.has_pending_index()
        assert [h["id"] for h in arc.search("newword")] == [kept.id]
        assert [h["id"] for h in arc.search("oldword")] == [kept.id]
        assert arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == 3


def test_saves_back_to_back_hold_the_last_conversation_only_and_each_is_indexed(mnemo_home):
    with open_archive() as arc:
        arc.defer_index = True
        first = arc.save(conversation("b1", ["alphaword here", "reply"]))
        assert arc.index_pending() == 1  # indexed: a re-save keeps these rows
        arc.save(conversation("b1", ["alphaword here", "reply", "betaword later"]))
        second = arc.save(conversation("b2", ["gammaword there", "reply"]))
        # (a sync's saves arrive with no pause for the index: each held its conversation's objects)
        assert [p.conv is None for p in arc._pending.values()] == [True, False]
        assert arc.index_pending() == 2  # the first read back from the archive
        assert _indexed_ids(arc, "alphaword") == _indexed_ids(arc, "betaword") == {first.id}
        assert _indexed_ids(arc, "gammaword") == {second.id}
        assert arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == 5


def test_a_long_conversations_index_is_written_a_part_at_a_time_and_resumed(mnemo_home, monkeypatch):
    """A host's request waits for one part of a long conversation's index, not all of it: stopped between
    two, the conversation stays pending with what was written; the next round writes the rest, and a
    process without that progress (a lost host) writes it all again, each row once."""
    from mnemosyne.archive import indexing

    monkeypatch.setattr(indexing, "WRITE_CHARS", 100)
    texts = [f"message {i} says uniqword{i} among the rest of its words" for i in range(30)]
    with open_archive() as arc:
        arc.defer_index = True
        saved = arc.save(conversation("long1", texts))
        parts = iter([True, True])  # (asked before the conversation, then after each part: two parts)
        assert arc.index_pending(lambda: next(parts, False)) == 0
        written = arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0]
        assert 0 < written < len(texts) and arc.has_pending_index()
        assert _indexed_ids(arc, "uniqword0") == {saved.id} and _indexed_ids(arc, "uniqword29") == set()
        assert arc.index_pending() == 1  # the rest, not the first part again
        assert arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == len(texts)
        assert _indexed_ids(arc, "uniqword29") == {saved.id} and not arc.has_pending_index()
        other = arc.save(conversation("long2", texts))
        parts = iter([True, True])
        assert arc.index_pending(lambda: next(parts, False)) == 0
        with open_archive() as cli:  # another process writes its whole index meanwhile
            assert {h["id"] for h in cli.search("uniqword3")} == {saved.id, other.id}
        assert arc.index_pending() == 0 and not arc._pending  # nothing left to write, nothing twice
        assert arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == 2 * len(texts)
        again = arc.save(conversation("long3", texts))
        parts = iter([True, True])
        assert arc.index_pending(lambda: next(parts, False)) == 0
        # closed part-way, as a killed host would leave it
    with open_archive() as arc:  # another process: writes the whole index again, each row once
        assert arc.has_pending_index()
        assert {h["id"] for h in arc.search("uniqword7")} == {saved.id, other.id, again.id}  # (written first)
        assert arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == 3 * len(texts)
        assert arc.conn.execute("SELECT count(*) FROM messages_tri").fetchone()[0] == 3 * len(texts)


INTEROP_FOLDERS = (
    "interop_openwebui",
    "interop_librechat",
    "interop_sillytavern",
    "interop_sharegpt",
    "interop_openai_messages",
    "interop_anthropic_messages",
)


def test_get_after_a_save_gives_what_a_fresh_read_gives_for_every_fixture_conversation(mnemo_home):
    from conversation_samples import SITE_FOLDERS, fixture_conversations

    convs = [conv for _, conv in fixture_conversations(SITE_FOLDERS + INTEROP_FOLDERS)]
    assert len(convs) > 40
    with open_archive() as arc, open_archive() as fresh:
        for conv in convs:
            saved = arc.save(conv)
            kept = arc.get(saved.id)
            assert arc.get(saved.id) is kept  # the one saved, not parsed again
            read = fresh.get(saved.id)  # (another connection: parsed from the stored document)
            assert kept is not read and kept == read, saved.id
            assert context_or_refusal(kept) == context_or_refusal(read)


def context_or_refusal(conv) -> str:
    from mnemosyne.context import build_context
    from mnemosyne.errors import InputError

    try:
        return build_context(conv, "chatgpt").text
    except InputError as exc:  # (a conversation with no text to continue from)
        return str(exc)


def test_get_reads_what_another_process_saved_since_and_a_cleaned_document_as_stored(mnemo_home):
    with open_archive() as host, open_archive() as cli:
        first = host.save(conversation("g1", ["one question", "one answer"]))
        assert [m.parts[0].text for m in host.get(first.id).messages] == ["one question", "one answer"]
        cli.save(conversation("g1", ["one question", "one answer", "a later question"]))
        assert len(host.get(first.id).messages) == 3
        # a lone surrogate is cleaned out of the stored document: what is read back is the stored text
        odd = host.save(conversation("g2", ["bad \ud800 text", "fine"], title="title \udfff"))
        assert host.get(odd.id).title == "title ?"
        assert host.get(odd.id).messages[0].parts[0].text == "bad ? text"


def test_a_resave_in_another_process_is_indexed_from_its_own_document(mnemo_home):
    with open_archive() as host, open_archive() as cli:
        host.defer_index = True
        saved = host.save(conversation("r1", ["firstdraft text", "reply"]))
        cli.defer_index = True
        cli.save(conversation("r1", ["firstdraft text", "reply", "seconddraft text"]))
        assert host.index_pending() == 1  # its rows from the first save are stale: the document decides
        assert _indexed_ids(host, "seconddraft") == {saved.id}
        assert host.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == 3


def test_the_host_checkpoints_the_wal_after_its_reply_not_inside_a_save(mnemo_home, monkeypatch):
    from mnemosyne.archive import db
    from mnemosyne.nativehost.session import HostSession

    def unbackfilled(arc) -> int:  # WAL frames not yet copied into the database
        _, log, done = arc.conn.execute("PRAGMA wal_checkpoint(NOOP)").fetchone()
        return log - done

    monkeypatch.setattr(db, "CHECKPOINT_PAGES", 40)
    session = HostSession()
    arc = session.archive()
    for n in range(3):
        arc.save(conversation(f"w{n}", [f"walword{n} " * 2000, "reply"]))
    assert unbackfilled(arc) >= 40  # no checkpoint inside the saves' commits
    session.after_reply(lambda: False)
    assert unbackfilled(arc) == 0  # checkpointed after the reply, with the index written
    assert len(arc.search("walword1")) == 1
    arc.save(conversation("small", ["a few words", "reply"]))
    session.after_reply(lambda: False)
    assert 0 < unbackfilled(arc) < 40  # a small WAL waits: not one checkpoint (and fsync) per reply
    session.close()


def _search_rows(arc, conv_id: str) -> tuple[set[tuple[str, str, str]], set[str], set[str]]:
    """What the index holds for a conversation: messages_fts rows (message id, title, body), and the
    message ids with a row in the trigram and CJK tables."""
    fts = arc.conn.execute(
        "SELECT m.message_id, f.title, f.body FROM messages_fts f JOIN messages m ON m.rowid = f.rowid"
        " WHERE m.conversation_id = ?",
        (conv_id,),
    ).fetchall()
    others = []
    for table in ("messages_tri", "messages_cjk"):
        rows = arc.conn.execute(
            f"SELECT m.message_id FROM {table} t JOIN messages m ON m.rowid = t.rowid WHERE m.conversation_id = ?",
            (conv_id,),
        )
        others.append({r[0] for r in rows})
    return set(fts), others[0], others[1]


def _expected_rows(arc, conv_id: str) -> tuple[set[tuple[str, str, str]], set[str], set[str]]:
    from mnemosyne.archive.indexing import searchable_texts
    from mnemosyne.cjk import has_cjk

    conv = arc.get(conv_id)
    texts = list(zip((m.id for m in conv.messages), searchable_texts(conv)))
    fts = {(mid, title or "", body) for mid, (title, body) in texts}
    cjk = {mid for mid, (title, body) in texts if has_cjk(f"{title or ''}\n{body}")}
    return fts, {mid for mid, _ in texts}, cjk


@pytest.mark.parametrize("mode", ["written with the save", "after the reply", "by the next process"])
def test_a_resave_keeps_the_rows_of_unchanged_messages_and_indexes_the_rest(mnemo_home, mode):
    """A conversation continued and saved again keeps the rows (and search rows) of the messages it did
    not change; the edited, added and re-titled ones are indexed again. The index is then exactly what a
    save from nothing writes, with no row left over, whichever way it is written."""
    first = ["alpha words about the plan", "beta reply with 数据库 text", "gamma question", "delta answer"]
    with open_archive() as arc:
        arc.defer_index = mode != "written with the save"
        saved = arc.save(conversation("k1", first, title="Old title"))
        arc.save(conversation("k2", ["an unrelated conversation", "its reply"]))  # rowids above k1's
        arc.index_pending()
        before = dict(
            arc.conn.execute("SELECT message_id, rowid FROM messages WHERE conversation_id = ?", (saved.id,))
        )
        edited = [
            first[0],
            first[1],
            "gamma question edited with kumquat",
            first[3],
            "epsilon 新的 follow-up",
            "zeta",
        ]
        arc.save(conversation("k1", edited, title="Old title"))
        if mode == "after the reply":
            arc.index_pending()
    with open_archive() as arc:  # (the next process indexes what is pending from the stored document)
        assert arc.search("kumquat")[0]["id"] == saved.id
        after = dict(
            arc.conn.execute("SELECT message_id, rowid FROM messages WHERE conversation_id = ?", (saved.id,))
        )
        unchanged = {"k1-0", "k1-1", "k1-3"}
        assert {m: after[m] for m in unchanged} == {m: before[m] for m in unchanged}
        assert after["k1-2"] != before["k1-2"] and set(after) == set(before) | {"k1-4", "k1-5"}
        assert _search_rows(arc, saved.id) == _expected_rows(arc, saved.id)
        arc.save(conversation("k1", edited, title="A new title"))  # the title is in the first message's rows
        arc.index_pending()
        assert _search_rows(arc, saved.id) == _expected_rows(arc, saved.id)
        assert arc.search("kumquat")[0]["id"] == saved.id and not arc.search("Old")
        counts = [
            arc.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("messages", "messages_fts", "messages_tri")
        ]
        assert counts[0] == counts[1] == counts[2] == 8  # no search row without its message


def test_an_index_written_a_few_rows_at_a_time_is_the_index_written_at_once(
    tmp_path, mnemo_home, monkeypatch
):
    """The deferred index of a long conversation is written WRITE_CHARS characters at a time (a 5 MB
    Chinese one made at once was 24 MB of a host's peak): the same rows in every table, found alike."""
    from mnemosyne.archive import indexing

    texts = [
        f"message {i}: zebracorn {i} 数据库的设计 {i} emoji 🧪, ümlaut and a rarer{i}word"
        if i % 3
        else f"plain {i}"
        for i in range(40)
    ]
    conv = conversation("chunks", texts, title="标题 title")

    def index_of(path) -> tuple:
        with open_archive(path) as arc:
            arc.defer_index = True
            saved = arc.save(conv)
            assert arc.index_pending() == 1
            tables = {
                table: arc.conn.execute(
                    f"SELECT m.seq, t.body FROM {table} t JOIN messages m ON m.rowid = t.rowid ORDER BY m.seq"
                ).fetchall()
                for table in ("messages_fts", "messages_cjk")
            }
            found = {
                q: [h["id"] for h in arc.search(q)] for q in ("zebracorn", "据库", "rarer17word", "mlaut")
            }
            return saved.id, tables, found

    at_once = index_of(tmp_path / "at-once.db")
    monkeypatch.setattr(indexing, "WRITE_CHARS", 50)  # a statement or two per message
    a_few_at_a_time = index_of(tmp_path / "a-few.db")
    assert a_few_at_a_time == at_once
    assert (
        len(at_once[1]["messages_fts"]) == 40 and len(at_once[1]["messages_cjk"]) == 27
    )  # (the title on the first)
    assert all(ids == [at_once[0]] for ids in at_once[2].values())
