"""The encrypted archive: migrations, idempotent saves, merging, search, keys."""

from __future__ import annotations

import os

import keyring
import pytest
from keyring.backend import KeyringBackend

from mnemosyne.archive import keys as archive_keys
from mnemosyne.archive import open_archive
from mnemosyne.archive.db import connect
from mnemosyne.archive.migrations import MIGRATIONS, applied, migrate
from mnemosyne.archive.writes import prepare
from mnemosyne.errors import ArchiveError, KeyringUnavailableError, WrongKeyError
from mnemosyne.model import Message, TextPart
from mnemosyne.readers.base import build


def conversation(source_id: str, texts: list[str], title: str = "A title", branch_from: int | None = None):
    messages, parent = [], None
    for i, text in enumerate(texts):
        mid = f"{source_id}-{i}"
        messages.append(
            Message(
                id=mid, parent=parent, role="user" if i % 2 == 0 else "assistant", parts=[TextPart(text=text)]
            )
        )
        parent = mid
    return build(
        site="chatgpt",
        source_id=source_id,
        reader="test",
        method="site_api",
        raw=source_id,
        ctx=None,
        messages=messages,
        title=title,
    )


def test_new_archive_applies_every_migration_in_order(mnemo_home):
    with open_archive() as arc:
        assert arc.stats()["migrations"] == [m.__name__ for m in MIGRATIONS]
    assert oct((mnemo_home / "archive.db").stat().st_mode & 0o777) == "0o600"


def test_first_released_schema_migrates_with_its_data(mnemo_home):
    path = mnemo_home / "archive.db"
    key = archive_keys.load_key(create=True)
    conn = connect(path, key)
    migrate(conn, upto=1)
    assert applied(conn) == ["m001_initial"]
    conn.execute(
        "INSERT INTO conversations VALUES ('abc123abc123','claude','s1','Old title',NULL,NULL,NULL,"
        "'2025-01-01T00:00:00Z',1,'m1','x','{}')"
    )
    conn.execute(
        "INSERT INTO messages (rowid, conversation_id, message_id, seq, role, hidden) "
        "VALUES (1,'abc123abc123','m1',0,'user',0)"
    )
    conn.execute("INSERT INTO messages_fts (rowid, title, body) VALUES (1,'Old title','我们讨论数据库迁移')")
    conn.close()
    with open_archive() as arc:
        assert arc.stats()["migrations"] == [m.__name__ for m in MIGRATIONS]
        items, _ = arc.list()
        assert [i["id"] for i in items] == ["abc123abc123"]
        assert [h["id"] for h in arc.search("数据库")] == ["abc123abc123"]


def test_saving_is_idempotent_and_updates_in_place(mnemo_home):
    with open_archive() as arc:
        first = arc.save(conversation("s1", ["hi", "hello", "more"]))
        assert first.status == "created"
        assert arc.save(conversation("s1", ["hi", "hello", "more"])).status == "unchanged"
        longer = arc.save(conversation("s1", ["hi", "hello", "more", "and more"]))
        assert (longer.status, longer.messages, longer.id) == ("updated", 4, first.id)
        assert arc.stats()["conversations"] == 1


def test_a_document_is_stored_as_the_text_of_its_json_new_replaced_and_imported(mnemo_home):
    """The archive writes a document from its UTF-8 bytes (a string of it is up to four bytes a character):
    what it stores is text, the conversation's compact JSON, whether created, replaced or bulk-imported."""
    from mnemosyne import canonical

    first = conversation("d1", ["emoji 🦊 and 中文", "ok"])
    grown = conversation("d1", ["emoji 🦊 and 中文", "ok", "more 🦊"])
    imported = [conversation("d2", ["plain"]), conversation("d3", ["Ünïcode ☃"])]
    with open_archive() as arc:
        assert arc.save(first).status == "created"
        assert arc.save(grown).status == "updated"
        assert arc.save(grown).status == "unchanged"  # the digest of the stored bytes
        with arc.bulk_import():  # made ahead and written in one statement, as an import does
            arc.save_many(imported, prepared={id(c): prepare(c) for c in imported})
        rows = dict(arc.conn.execute("SELECT source_id, document FROM conversations").fetchall())
        kinds = {t for (t,) in arc.conn.execute("SELECT typeof(document) FROM conversations")}
    assert kinds == {"text"}
    assert rows == {c.source.conversation_id: canonical.dumps(c, indent=None) for c in [grown, *imported]}


def test_message_rows_and_token_counts_keep_any_message_id_in_order(mnemo_home):
    """The message rows and token counts go in as one JSON statement each: ids with quotes, backslashes,
    emoji and CJK come back as they were, in message order, with their roles and counts."""
    odd = ['a"quote', "back\\slash", "emoji 🦉", "検索-id", "plain", "[1, 2]", '{"k": 1}']
    messages = [
        Message(
            id=mid, role="user" if i % 2 else "assistant", hidden=i == 3, parts=[TextPart(text=f"text {i}")]
        )
        for i, mid in enumerate(odd)
    ]
    conv = build(
        site="chatgpt",
        source_id="odd",
        reader="test",
        method="site_api",
        raw="odd",
        ctx=None,
        messages=messages,
    )
    counts = {mid: 10 + i for i, mid in enumerate(odd)}
    with open_archive() as arc:
        arc.save_many([conv], counter=lambda saved: counts)
        rows = arc.conn.execute(
            "SELECT message_id, seq, role, hidden FROM messages WHERE conversation_id = ? ORDER BY rowid",
            (conv.id,),
        ).fetchall()
        assert rows == [(m.id, i, m.role, int(m.hidden)) for i, m in enumerate(messages)]
        assert arc.token_counts(conv.id, "o200k_base") == counts
        assert [h["id"] for h in arc.search("text")] == [conv.id]


def test_a_partial_capture_never_loses_saved_messages(mnemo_home):
    with open_archive() as arc:
        arc.save(conversation("s1", ["one", "two", "three", "four"]))
        partial = conversation("s1", ["one", "two"])
        other_branch = Message(id="s1-x", parent="s1-1", role="user", parts=[TextPart(text="edited three")])
        partial = partial.model_copy(
            update={"messages": partial.messages + [other_branch], "active_leaf": "s1-x"}
        )
        result = arc.save(partial)
        conv = arc.get(result.id)
        assert {m.id for m in conv.messages} == {"s1-0", "s1-1", "s1-2", "s1-3", "s1-x"}
        assert conv.active_leaf == "s1-x"


def test_search_words_cjk_substrings_and_snippets(mnemo_home):
    with open_archive() as arc:
        a = arc.save(conversation("a", ["How do I tune PostgreSQL autovacuum?", "Lower the scale factor."]))
        b = arc.save(conversation("b", ["我们今天讨论数据库的设计", "好的"], title="数据库设计"))
        arc.save(conversation("c", ["unrelated chat about bread"]))
        assert [h["id"] for h in arc.search("autovacuum")] == [a.id]
        assert [h["id"] for h in arc.search("postgre")] == [a.id]  # prefix
        hit = arc.search("数据库")[0]
        assert hit["id"] == b.id and "«数据库»" in hit["snippet"]
        assert [h["id"] for h in arc.search("数据")] == [b.id]  # 2 characters: below trigram length
        assert [h["id"] for h in arc.search("vacu")] == [a.id]  # substring inside a word
        assert arc.search("nothing-like-this") == []


def test_list_pages_newest_first(mnemo_home):
    with open_archive() as arc:
        for i in range(7):
            conv = conversation(f"s{i}", [f"message {i}"])
            arc.save(conv.model_copy(update={"updated_at": conv.created_at}))
        seen, cursor = [], None
        while True:
            page, cursor = arc.list(limit=3, cursor=cursor)
            seen += page
            if not cursor:
                break
        assert len(seen) == 7 and len({s["id"] for s in seen}) == 7
        keys = [s["saved_at"] for s in seen]
        assert keys == sorted(keys, reverse=True)


def test_ids_can_be_typed_as_prefixes(mnemo_home):
    with open_archive() as arc:
        saved = arc.save(conversation("s1", ["hi"]))
        assert arc.get(saved.id[:6]).id == saved.id


def test_canary_is_not_stored_in_plaintext(mnemo_home):
    canary = "CANARY-7f3a9c-SECRET-TRANSCRIPT"
    with open_archive() as arc:
        arc.save(conversation("s1", [f"remember {canary}", "ok"], title=canary))
        assert arc.search("CANARY")  # it is there, readable with the key
        files = [p for p in mnemo_home.rglob("*") if p.is_file() and p.name != "archive.key"]
        assert any(p.name.endswith("-wal") for p in files)
        for path in files:
            assert canary.encode() not in path.read_bytes(), path


def test_wrong_key_is_an_error_and_changes_nothing(mnemo_home):
    with open_archive() as arc:
        arc.save(conversation("s1", ["hi"]))
    db = mnemo_home / "archive.db"
    before = db.read_bytes()
    (mnemo_home / "archive.key").write_text("11" * 32)
    os.chmod(mnemo_home / "archive.key", 0o600)
    with pytest.raises(WrongKeyError):
        open_archive()
    assert db.read_bytes() == before


def test_missing_key_never_creates_a_new_archive_over_the_old_one(mnemo_home):
    with open_archive() as arc:
        arc.save(conversation("s1", ["hi"]))
    db = mnemo_home / "archive.db"
    before = db.read_bytes()
    os.remove(mnemo_home / "archive.key")
    with pytest.raises(ArchiveError) as err:
        open_archive()
    assert err.value.code == "ARCHIVE_KEY_MISSING"
    assert db.read_bytes() == before and not (mnemo_home / "archive.key").exists()


def test_an_archive_being_created_is_invisible_until_it_is_complete(mnemo_home, monkeypatch):
    """Another process (the host beside `mnemo import`) opening the archive while it is being made finds no
    archive yet, never a half-made one: opening one raced the creator's switch to WAL ('database is locked')."""
    from mnemosyne.archive import opening
    from mnemosyne.errors import NotFoundError

    seen = []
    real_migrate = opening.migrations.migrate

    def migrate_and_look(conn, upto=None):
        if not seen:  # the creator, half way: a second opener looks at the archive's path
            seen.append(sorted(p.name for p in mnemo_home.iterdir() if p.name.startswith("archive.db")))
            with pytest.raises(NotFoundError):
                opening.open_database(create=False)
        return real_migrate(conn, upto)

    monkeypatch.setattr(opening.migrations, "migrate", migrate_and_look)
    with open_archive() as arc:
        arc.save(conversation("s1", ["hi"]))
    assert seen == [[]]
    assert not [p for p in mnemo_home.iterdir() if p.name.endswith((".tmp", ".tmp-wal", ".tmp-shm"))]
    with open_archive(create=False) as arc:
        assert arc.stats()["conversations"] == 1


def test_an_empty_file_left_where_the_archive_goes_is_replaced_by_a_new_archive(mnemo_home):
    (mnemo_home / "archive.db").touch()
    with open_archive() as arc:
        arc.save(conversation("s1", ["hi"]))
    with open_archive(create=False) as arc:
        assert arc.stats()["conversations"] == 1
    assert oct((mnemo_home / "archive.db").stat().st_mode & 0o777) == "0o600"


class MemoryKeyring(KeyringBackend):
    priority = 10

    def __init__(self):
        super().__init__()
        self.store = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


def test_key_lives_in_the_os_keyring(mnemo_home, monkeypatch):
    monkeypatch.delenv("MNEMOSYNE_KEY_FILE")
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    try:
        with open_archive() as arc:
            arc.save(conversation("s1", ["hi"]))
        stored = memory.store[("mnemosyne", "archive-key")]
        assert len(bytes.fromhex(stored)) == 32
        with open_archive() as arc:
            assert arc.stats()["conversations"] == 1
    finally:
        keyring.set_keyring(previous)


def test_no_keyring_is_a_clear_error_not_plaintext(mnemo_home, monkeypatch):
    from keyring.backends import fail

    monkeypatch.delenv("MNEMOSYNE_KEY_FILE")
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        with pytest.raises(KeyringUnavailableError) as err:
            open_archive()
        assert "MNEMOSYNE_KEY_FILE" in err.value.message
        assert not (mnemo_home / "archive.db").exists()
    finally:
        keyring.set_keyring(previous)


def test_key_file_is_created_private(mnemo_home):
    with open_archive():
        pass
    assert oct((mnemo_home / "archive.key").stat().st_mode & 0o777) == "0o600"


def test_search_finds_conversations_behind_one_that_matches_everywhere(mnemo_home):
    """Ranking looks at the best few messages per wanted conversation and widens when one chat has them all."""
    with open_archive() as arc:
        busy = arc.save(conversation("busy", ["zephyr zephyr zephyr"] * 120))
        quiet = arc.save(
            conversation("quiet", ["a long message that mentions zephyr only once among many other words"])
        )
        hits = arc.search("zephyr", limit=2)
        assert [h["id"] for h in hits] == [busy.id, quiet.id]
        assert arc.search("zephyr", limit=2, site="claude") == []


def test_lone_surrogates_from_files_never_fail_an_import(mnemo_home, tmp_path, fixtures):
    """JSON may escape a lone surrogate, which UTF-8 cannot store: it becomes '?' and the rest is kept."""
    import json as _json

    from mnemosyne.readers import ReadContext, load_path, read_raw

    conv = _json.loads(
        (fixtures / "chatgpt_export" / "librechat_chatgpt-tree.json").read_text(encoding="utf-8")
    )
    text = _json.dumps(conv).replace('"parts": ["', '"parts": ["\\ud800 lone surrogate ', 1)
    path = tmp_path / "conversations.json"
    path.write_text(text, encoding="ascii")
    convs = [c for raw in load_path(path) for c in read_raw(raw, ReadContext())]
    with open_archive() as arc:
        for c in convs:
            arc.save(c)
        hit = arc.search("surrogate")[0]
        assert (
            "? lone «surrogate»" in hit["snippet"]
        )  # the lone surrogate became "?", the text after it is kept
    # and text that reaches the archive some other way with one still saves
    odd = conversation("odd", ["bad \ud800 text", "fine"], title="title \udfff")
    with open_archive() as arc:
        assert arc.save(odd).status == "created"
        assert arc.search("bad")[0]["title"] == "title ?"


def test_a_word_in_more_messages_than_the_candidate_cap_ranks_the_most_recent(mnemo_home, monkeypatch):
    from mnemosyne.archive import search

    monkeypatch.setattr(search, "CANDIDATES", 3)
    with open_archive() as arc:
        # the oldest conversation matches best (the word three times in a short message)
        ids = [arc.save(conversation("w0", ["gizmo gizmo gizmo", "ok"])).id]
        ids += [
            arc.save(conversation(f"w{i}", [f"one gizmo among many other words {i}", "ok"])).id
            for i in (1, 2, 3, 4)
        ]
        found = [h["id"] for h in arc.search("gizmo", limit=3)]
        assert found and set(found) == set(ids[2:])  # the three most recent matches, ranked
        # a prefix over the cap is not ranked (each ranking pass expands it again): the most recent first
        prefixed = arc.search("gizm")
        assert [h["id"] for h in prefixed] == ids[::-1] and {h["score"] for h in prefixed} == {0.0}
        monkeypatch.setattr(search, "CANDIDATES", 100)
        assert [h["id"] for h in arc.search("gizmo")][0] == ids[0]  # under the cap: every match ranked


def test_a_word_in_more_messages_than_recent_only_lists_the_most_recent_unranked(mnemo_home, monkeypatch):
    from mnemosyne.archive import search

    monkeypatch.setattr(search, "CANDIDATES", 2)
    monkeypatch.setattr(search, "RECENT_ONLY", 3)
    with open_archive() as arc:
        ids = [arc.save(conversation("u0", ["gizmo gizmo gizmo", "ok"])).id]
        ids += [arc.save(conversation(f"u{i}", [f"a Gizmos list, item {i}", "ok"])).id for i in (1, 2, 3)]
        hits = arc.search("gizmo", limit=3)
        assert [h["id"] for h in hits] == [ids[3], ids[2], ids[1]]  # newest first; the best match is older
        assert {h["score"] for h in hits} == {0.0}
        prefixed = arc.search("giz", limit=1)[0]
        assert prefixed["id"] == ids[3] and "«Gizmos»" in prefixed["snippet"]  # the whole word marked


def test_list_oldest_first_and_within_dates_pages_the_same_set(mnemo_home):
    from datetime import datetime, timezone

    with open_archive() as arc:
        for day in range(1, 8):
            conv = conversation(f"d{day}", [f"day {day}"])
            when = datetime(2025, 3, day, 12, tzinfo=timezone.utc)
            arc.save(conv.model_copy(update={"created_at": when, "updated_at": when}))

        def walk(**filters):
            seen, cursor = [], None
            while True:
                page, cursor = arc.list(limit=2, cursor=cursor, **filters)
                seen += [s["updated_at"][:10] for s in page]
                if not cursor:
                    return seen

        assert walk() == [f"2025-03-0{d}" for d in range(7, 0, -1)]
        assert walk(order="oldest") == [f"2025-03-0{d}" for d in range(1, 8)]
        assert walk(since="2025-03-03", until="2025-03-06") == ["2025-03-05", "2025-03-04", "2025-03-03"]
        assert walk(order="oldest", since="2025-03-06") == ["2025-03-06", "2025-03-07"]


@pytest.mark.parametrize("slice_chars", [1, 5, 1 << 20])
def test_the_content_digest_hashed_in_pieces_is_the_digest_of_the_document_without_captured_at(
    monkeypatch, slice_chars
):
    """The save's digest is computed piece by piece (no whole copy of a 64 MiB document) over its UTF-8; it
    must stay the digest of the document with every captured_at removed, whatever the text (astral, lone
    surrogates), as it was when it was taken of the document's string."""
    import re as _re

    from mnemosyne.archive import writes
    from mnemosyne.ids import sha256_hex

    monkeypatch.setattr(writes, "_DIGEST_SLICE", slice_chars)
    documents = [
        '{"a":"x","captured_at":"2026-01-01T00:00:00Z","b":"😀 \ud800 é"}',
        '{"captured_at":"1","provenance":{"captured_at":"2"},"text":"\\"captured_at\\":\\"3\\""}',
        "",
        '{"no":"marker"}',
    ]
    pattern = _re.compile(r'"captured_at":"[^"]*",?')
    for document in documents:
        utf8 = document.encode("utf-8", "surrogatepass")
        assert writes._content_digest(utf8) == sha256_hex(pattern.sub("", document)), document


def test_stored_token_counts_are_replaced_not_duplicated(mnemo_home):
    """Counts stored again for the same messages and encoding replace the old ones (an upsert)."""
    conv = conversation("counted", ["one", "two", "three"])
    with open_archive() as arc:
        arc.save(conv)
        arc.store_token_counts(conv.id, "o200k_base", {m.id: 3 for m in conv.messages})
        arc.store_token_counts(conv.id, "o200k_base", {m.id: 7 for m in conv.messages})
        assert arc.token_counts(conv.id, "o200k_base") == {m.id: 7 for m in conv.messages}
        rows = arc.conn.execute("SELECT count(*) FROM token_counts WHERE conversation_id = ?", (conv.id,))
        assert rows.fetchone()[0] == len(conv.messages) == 3
