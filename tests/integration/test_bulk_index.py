"""`mnemo import` writes the search index in chunks on a worker thread (archive/bulk_index.py): the index
it leaves is the one saving one conversation at a time leaves, and nothing saved is unsearchable, whether
the import finishes, is interrupted, or a chunk fails."""

from __future__ import annotations

import json

import pytest

from mnemosyne.archive import bulk_index, indexing, open_archive
from mnemosyne.context import count_messages
from mnemosyne.readers import ReadContext, load_path, read_raw, streaming
from mnemosyne.service import import_paths, imports

FIX = "chatgpt_export/librechat_chatgpt-export.json"
COPIES = 12


def marker(n: int) -> str:
    return f"zqmark{n:03d}x"


def export(fixtures, tmp_path, copies: int = COPIES):
    """Copies of a real export, each with its own word in the title; every other title is Japanese too."""
    base = json.loads((fixtures / FIX).read_text(encoding="utf-8"))
    items = []
    for n in range(copies):
        for k, conv in enumerate(base):
            cid = f"{conv['id']}-{n}-{k}"
            title = f"{marker(n * len(base) + k)} copy" + (" 検索テスト" if n % 2 else "")
            items.append(dict(conv, id=cid, conversation_id=cid, title=title))
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path, len(items)


@pytest.fixture
def small_chunks(monkeypatch):
    """Many chunks, batches and read-ahead rounds in a small export."""
    monkeypatch.setattr(bulk_index, "CHUNK_CHARS", 20_000)
    monkeypatch.setattr(imports, "SAVE_BATCH", 3)
    monkeypatch.setattr(imports, "IN_FLIGHT", 1)
    monkeypatch.setattr(streaming, "BATCH", 4)


def index_rows(arc) -> dict[str, list]:
    """Each search table's rows by (conversation, message position), independent of rowids; a message whose
    trigram rows are another's (tri_same) counts as having them, once that other has them, with the same text."""
    out = {}
    for table, cols in (
        ("messages_fts", "f.title, f.body"),
        ("messages_tri", "f.body"),
        ("messages_cjk", "f.body"),
    ):
        out[table] = arc.conn.execute(
            f"SELECT m.conversation_id, m.seq, {cols} FROM {table} f JOIN messages m ON m.rowid = f.rowid"
            " ORDER BY 1, 2"
        ).fetchall()
        assert arc.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == len(out[table])
    with_rows = {r[0] for r in arc.conn.execute("SELECT rowid FROM messages_tri")}
    repeats = arc.conn.execute(
        "SELECT m.conversation_id, m.seq, s.source, f.title, f.body, o.title, o.body FROM tri_same s"
        " JOIN messages m ON m.rowid = s.rowid JOIN messages_fts f ON f.rowid = s.rowid"
        " JOIN messages_fts o ON o.rowid = s.source"
    ).fetchall()
    assert len(repeats) == arc.conn.execute("SELECT count(*) FROM tri_same").fetchone()[0]
    for conv_id, seq, source, title, body, source_title, source_body in repeats:
        assert source in with_rows and (title, body) == (source_title, source_body) and not title
        out["messages_tri"].append((conv_id, seq, None))
    out["messages_tri"].sort(key=lambda row: row[:2])
    return out


STORED = (
    "SELECT id, document, content_sha256, message_count, project, model, has_code, has_attachments,"
    " text_chars, title_key FROM conversations ORDER BY id"
)


@pytest.mark.parametrize("ahead", [True, False], ids=["prepared-ahead", "prepared-in-save"])
def test_an_import_stores_and_indexes_what_saving_one_at_a_time_does(
    fixtures, tmp_path, mnemo_home, small_chunks, monkeypatch, ahead
):
    path, count = export(fixtures, tmp_path)
    # ahead: every conversation is counted and prepared on the reading thread, outside its save (as an
    # import does); else each is prepared and counted inside its save, on the writer thread
    monkeypatch.setattr(imports._Import, "ahead", ahead)
    with open_archive() as arc:
        totals = import_paths(arc, [str(path)])
        assert totals.created == count and totals.failed == 0
        assert not arc.has_pending_index()
        bulk = index_rows(arc)
        for n in range(count):
            found = [hit["title"] for hit in arc.search(marker(n))]
            assert found and all(marker(n) in title for title in found)
        assert len(arc.search("検索テスト", limit=100)) == count // 2
        assert len(arc.search("mark00", limit=100)) == 10  # substring: the trigram table
        stored = arc.conn.execute(STORED).fetchall()
        counts = {conv_id: arc.token_counts(conv_id, "o200k_base") for conv_id in arc.all_ids()}
    one_by_one = tmp_path / "one_by_one.db"
    with open_archive(one_by_one) as arc:
        for raw in load_path(str(path)):
            for conv in read_raw(raw, ReadContext()):
                arc.save(conv)
                assert counts[conv.id] == count_messages(conv)
        assert index_rows(arc) == bulk
        assert arc.conn.execute(STORED).fetchall() == stored
    assert len(bulk["messages_cjk"]) == count // 2  # the first message of each Japanese title


def test_an_interrupted_import_leaves_every_saved_conversation_searchable(
    fixtures, tmp_path, mnemo_home, small_chunks, monkeypatch
):
    path, count = export(fixtures, tmp_path)
    monkeypatch.setattr(bulk_index, "CHUNK_CHARS", 150_000)  # a few batches a chunk
    added = imports._Import.add

    def add_or_stop(self, conv):
        """Stops once a chunk is indexed and saved conversations wait for the next one."""
        self.arc.bulk_index.wait()
        pending, indexed = self.arc.conn.execute(
            "SELECT (SELECT count(*) FROM index_pending), (SELECT count(*) FROM messages_fts)"
        ).fetchone()
        if pending and indexed:
            raise KeyboardInterrupt
        added(self, conv)

    monkeypatch.setattr(imports._Import, "add", add_or_stop)
    with open_archive() as arc, pytest.raises(KeyboardInterrupt):
        import_paths(arc, [str(path)], count_tokens=False)
    with open_archive() as arc:
        saved = arc.all_ids()
        assert 0 < len(saved) < count
        assert arc.has_pending_index()
        for n in range(count):  # each search first indexes what is pending
            conv_id = next((i for i in saved if arc.get(i).title.startswith(marker(n))), None)
            assert [h["id"] for h in arc.search(marker(n))] == ([conv_id] if conv_id else [])
        assert not arc.has_pending_index()
        assert len(index_rows(arc)["messages_fts"]) == arc.stats()["messages"]


def test_a_failed_chunk_is_indexed_before_the_import_returns(
    fixtures, tmp_path, mnemo_home, small_chunks, monkeypatch
):
    from mnemosyne.archive.db import sqlite

    path, count = export(fixtures, tmp_path)
    write_many, failures = indexing.write_many, []

    def fail_twice(c, items):
        if len(failures) < 2:  # the first chunk on the thread, and one more
            failures.append(len(items))
            raise sqlite.OperationalError("disk I/O error")
        write_many(c, items)

    monkeypatch.setattr(indexing, "write_many", fail_twice)
    with open_archive() as arc:
        assert import_paths(arc, [str(path)], count_tokens=False).created == count
        assert len(failures) == 2
        assert not arc.has_pending_index()
        assert len(index_rows(arc)["messages_fts"]) == arc.stats()["messages"]
        for n in range(count):
            assert len(arc.search(marker(n))) == 1


def test_a_conversation_saved_again_by_another_process_keeps_only_its_new_index(
    fixtures, tmp_path, mnemo_home
):
    path, _ = export(fixtures, tmp_path, copies=1)
    first = next(read_raw(next(iter(load_path(str(path)))), ReadContext()))
    newer = first.model_copy(update={"title": "zqnewtitle copy"})
    with open_archive() as arc:
        with arc.bulk_import():
            arc.save_many([first])  # waiting for its chunk
            with open_archive() as other:  # the host, saving the same conversation meanwhile
                other.defer_index = True  # as the host does: pending, indexed after its reply
                assert other.save(newer).status == "updated"
        assert not arc.has_pending_index()
        assert [h["id"] for h in arc.search("zqnewtitle")] == [first.id]
        assert arc.search(marker(0)) == []
        rows = index_rows(arc)["messages_fts"]
        assert len(rows) == len(arc.get(first.id).messages)


def test_each_chunk_is_one_new_segment_per_search_table(fixtures, tmp_path, mnemo_home, monkeypatch):
    """A chunk's rows go to FTS5 in the order saved: a lower rowid than the last one makes FTS5 write what
    it holds as a segment, and a chunk out of order left dozens to merge (a fifth of an import's CPU)."""
    path, count = export(fixtures, tmp_path)
    monkeypatch.setattr(imports, "SAVE_BATCH", 3)
    monkeypatch.setattr(bulk_index, "CHUNK_CHARS", 10**9)  # one chunk, at the end
    with open_archive() as arc:
        assert import_paths(arc, [str(path)], count_tokens=False).created == count
        for table in ("messages_fts", "messages_tri", "messages_cjk"):
            assert arc.conn.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0] == 1


def test_a_killed_import_leaves_every_saved_conversation_searchable(fixtures, tmp_path, mnemo_home):
    """SIGKILL a real `mnemo import` once a chunk is indexed and saved conversations wait for the next."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from mnemosyne.errors import MnemosyneError

    path, count = export(fixtures, tmp_path, copies=150)
    code = (
        "import sys; from mnemosyne.archive import bulk_index; bulk_index.CHUNK_CHARS = 150_000\n"
        "from mnemosyne.cli.main import main; sys.exit(main(['import', '--no-tokens', sys.argv[1]]))"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], env=dict(os.environ))
    try:
        caught = False
        while proc.poll() is None and not caught:
            time.sleep(0.01)  # the poll's interval: the condition below is what it waits for
            try:
                with open_archive(create=False) as arc:
                    caught = (
                        arc.has_pending_index()
                        and arc.conn.execute("SELECT 1 FROM messages_fts LIMIT 1").fetchone() is not None
                    )
            except MnemosyneError:  # not created yet
                continue
        assert caught, "the import ended before it could be caught mid-way"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    with open_archive() as arc:
        saved = {arc.get(i).title.split()[0]: i for i in arc.all_ids()}
        assert 0 < len(saved) < count
        assert arc.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for n in range(count):
            assert [h["id"] for h in arc.search(marker(n))] == (
                [saved[marker(n)]] if marker(n) in saved else []
            )
        assert not arc.has_pending_index()
        assert len(index_rows(arc)["messages_fts"]) == arc.stats()["messages"]


def test_reading_goes_on_while_the_writer_thread_saves(
    fixtures, tmp_path, mnemo_home, small_chunks, monkeypatch
):
    """The import hands each batch to the writer thread: while the first save is held up, the next
    IN_FLIGHT batches are still read, counted and prepared; every conversation is saved in the end."""
    import threading

    from mnemosyne.service import save

    path, count = export(fixtures, tmp_path)
    monkeypatch.setattr(imports, "FIRST_BATCH_SHARE", 1)  # every batch whole, as `ahead` counts them
    ahead = imports.SAVE_BATCH * (imports.IN_FLIGHT + 1) + 1  # read while the first batch waits to save
    read_ahead, released, savers = threading.Event(), [], set()
    saved_by, added = save.save_conversations, imports._Import.add

    def held_save(*args, **kwargs):
        if not released:
            released.append(read_ahead.wait(timeout=5))
        savers.add(threading.current_thread())
        return saved_by(*args, **kwargs)

    def add(self, conv):
        added(self, conv)
        self.read = getattr(self, "read", 0) + 1
        if self.read == ahead:
            read_ahead.set()

    monkeypatch.setattr(imports, "save_conversations", held_save)
    monkeypatch.setattr(imports._Import, "add", add)
    with open_archive() as arc:
        totals = import_paths(arc, [str(path)])
        assert totals.created == count and totals.failed == 0
        assert len(arc.all_ids()) == count and not arc.has_pending_index()
    assert released == [True], "reading stopped until the first batch was saved"
    assert threading.current_thread() not in savers


def test_an_import_leaves_the_interpreter_as_it_found_it(fixtures, tmp_path, mnemo_home, small_chunks):
    """The import collects cycles less often and hands the GIL over sooner while it runs
    (imports._tuned_for_bulk), and puts both back whether it ends normally or with an error."""
    import gc
    import sys

    path, count = export(fixtures, tmp_path, copies=1)
    before = (gc.get_threshold(), sys.getswitchinterval())
    with open_archive() as arc:
        assert import_paths(arc, [str(path)], count_tokens=False).created == count
        assert (gc.get_threshold(), sys.getswitchinterval()) == before
        with pytest.raises(ZeroDivisionError):
            import_paths(arc, [str(path)], progress=lambda *a, **k: 1 / 0)
        assert (gc.get_threshold(), sys.getswitchinterval()) == before


def test_the_same_conversation_twice_in_one_batch_is_saved_then_merged(
    fixtures, tmp_path, mnemo_home, small_chunks
):
    """New conversations of a batch are written together; a later one with the same id in the same batch
    sees the first and merges into it, as saving them one after the other does."""
    base = json.loads((fixtures / FIX).read_text(encoding="utf-8"))
    first, other = (dict(conv, title=f"{marker(n)} copy") for n, conv in enumerate(base[:2]))
    again = dict(first, title="zqagaintitle copy")
    path = tmp_path / "twice.json"
    path.write_text(json.dumps([first, other, again], ensure_ascii=False), encoding="utf-8")
    with open_archive() as arc:
        totals = import_paths(arc, [str(path)])
        assert (totals.created, totals.updated, totals.failed) == (2, 1, 0)
        assert len(arc.all_ids()) == 2 and not arc.has_pending_index()
        [hit] = arc.search("zqagaintitle")
        assert arc.get(hit["id"]).title == "zqagaintitle copy"
        assert arc.search(marker(0)) == []
        assert len(index_rows(arc)["messages_fts"]) == arc.stats()["messages"]
        assert set(arc.token_counts(hit["id"], "o200k_base")) == {m.id for m in arc.get(hit["id"]).messages}


def test_the_first_batches_and_chunks_are_small_so_the_writer_starts_early(
    fixtures, tmp_path, mnemo_home, monkeypatch
):
    """The writer thread is an import's slowest part: it gets the first conversations as a batch of an
    eighth of SAVE_BATCH (doubling up to it), and indexes them once an eighth of CHUNK_CHARS waits
    (doubling too), instead of idling while a whole batch and a whole chunk are read."""
    from mnemosyne.service import save

    path, count = export(fixtures, tmp_path, copies=30)
    monkeypatch.setattr(imports, "SAVE_BATCH", 16)
    sizes, saved_by = [], save.save_conversations

    def recorded(arc, convs, *args, **kwargs):
        sizes.append(len(convs))
        return saved_by(arc, convs, *args, **kwargs)

    monkeypatch.setattr(imports, "save_conversations", recorded)
    chars = [
        indexing.texts_for(c).chars for raw in load_path(str(path)) for c in read_raw(raw, ReadContext())
    ]
    monkeypatch.setattr(bulk_index, "CHUNK_CHARS", sum(chars[:16]))
    indexed_before_a_chunk: list[int] = []
    added, read = imports._Import.add, []

    def add(self, conv):
        if sum(read) < bulk_index.CHUNK_CHARS <= sum(read) + indexing.texts_for(conv).chars:
            # a whole chunk is read only with this one: what is indexed so far came from smaller chunks
            self.arc.bulk_index.wait()
            indexed_before_a_chunk.append(
                self.arc.conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0]
            )
        read.append(indexing.texts_for(conv).chars)
        added(self, conv)

    monkeypatch.setattr(imports._Import, "add", add)
    with open_archive() as arc:
        assert import_paths(arc, [str(path)], count_tokens=False).created == count
        assert not arc.has_pending_index()
    assert sizes[:4] == [2, 4, 8, 16] and set(sizes[4:-1]) == {16} and sum(sizes) == count
    [indexed] = indexed_before_a_chunk
    assert indexed > 0


def test_an_import_checkpoints_less_often_and_puts_checkpoints_back(fixtures, tmp_path, mnemo_home):
    """While importing, the WAL is copied into the database every bulk_index.CHECKPOINT_PAGES pages, not
    SQLite's 1,000 (fewer fsyncs, fewer rewrites of the same pages); afterwards, and after a failed import,
    the connection checkpoints as before: every 1,000 pages (the CLI), or only when its owner asks (the
    host, which defers them)."""
    from mnemosyne.archive import db

    path, count = export(fixtures, tmp_path, copies=40)
    with open_archive() as arc:
        assert import_paths(arc, [str(path)], count_tokens=False).created == count
        assert db.wal_unbackfilled(arc.conn) > db.CHECKPOINT_PAGES
        assert arc.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == db.CHECKPOINT_PAGES
        with pytest.raises(ZeroDivisionError):
            import_paths(arc, [str(path)], progress=lambda *a, **k: 1 / 0)
        assert arc.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == db.CHECKPOINT_PAGES
        db.defer_checkpoints(arc.conn)
        import_paths(arc, [str(path)], count_tokens=False)
        assert arc.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0


def segments(arc, table: str) -> int:
    return arc.conn.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0]


def automerge(arc, table: str) -> int:
    row = arc.conn.execute(f"SELECT v FROM {table}_config WHERE k = 'automerge'").fetchone()
    return 4 if row is None else row[0]  # (SQLite's default when the table was never told)


def test_an_import_merges_its_segments_sixteen_at_a_time_and_saves_merge_as_before(
    fixtures, tmp_path, mnemo_home, monkeypatch
):
    """Each chunk is one segment; while importing FTS5 merges them once IMPORT_AUTOMERGE wait at a level (a
    segment rewritten log16, not log4, times). After the import, and after a failed one, every search table
    merges at SQLite's 4 again, and what was imported is still found."""
    path, count = export(fixtures, tmp_path, copies=40)
    monkeypatch.setattr(imports, "SAVE_BATCH", 3)
    per_chunk = (
        sum(indexing.texts_for(c).chars for raw in load_path(str(path)) for c in read_raw(raw, ReadContext()))
        // 10
    )
    monkeypatch.setattr(bulk_index, "CHUNK_CHARS", per_chunk)
    monkeypatch.setattr(bulk_index, "FIRST_CHUNK_SHARE", 1)
    with open_archive() as arc:
        assert import_paths(arc, [str(path)], count_tokens=False).created == count
        for table in bulk_index.TABLES:
            # ten chunks or so, never merged (at 4 a level, three or four segments would be left)
            assert 9 <= segments(arc, table) < bulk_index.IMPORT_AUTOMERGE, table
            assert automerge(arc, table) == bulk_index.AUTOMERGE == 4
        assert len(arc.search(marker(count - 1))) == 1
        with pytest.raises(ZeroDivisionError):
            import_paths(arc, [str(path)], progress=lambda *a, **k: 1 / 0)
        assert all(automerge(arc, table) == 4 for table in bulk_index.TABLES)


def test_rows_inserted_many_to_a_statement_are_the_rows_executemany_inserts(tmp_path):
    """db.insert_rows: more rows than one statement's parameters allow, an upsert's conflicts resolved row
    after row as executemany would, and a statement it cannot widen refused."""
    import sqlite3

    from mnemosyne.archive import db

    rows = [(f"k{i % 9000}", i, "x" * (i % 7)) for i in range(12_000)]  # 3,000 conflicts, 47 statements
    upsert = "INSERT INTO t (k, n, s) VALUES (?,?,?) ON CONFLICT (k) DO UPDATE SET n = t.n + excluded.n, s = excluded.s"
    results = []
    for insert in ("many", "executemany"):
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER, s TEXT)")
        if insert == "many":
            db.insert_rows(conn, upsert, rows)
        else:
            conn.executemany(upsert, rows)
        results.append(conn.execute("SELECT k, n, s FROM t ORDER BY rowid").fetchall())
    assert results[0] == results[1] and len(results[0]) == 9000
    with pytest.raises(ValueError):
        db.insert_rows(conn, "INSERT INTO t SELECT * FROM t", rows)


def test_rows_inserted_in_any_number_take_few_distinct_statements():
    """A connection keeps the statements it prepared, by their text (128 of them), and one of N rows holds
    about N x 500 bytes: insert_rows of every count from 1 to 1,000 rows prepares 9 statements, not 1,000
    (a host storing each conversation's context units kept ~2 MB more per conversation)."""
    import sqlite3

    from mnemosyne.archive import db

    class Recording:
        def __init__(self, conn):
            self.conn, self.statements = conn, set()

        def execute(self, sql, args):
            self.statements.add(sql)
            return self.conn.execute(sql, args)

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (k INTEGER, v TEXT)")
    recording = Recording(conn)
    total = 0
    for count in range(1, 1001):
        db.insert_rows(recording, "INSERT INTO t (k, v) VALUES (?,?)", [(count, "v")] * count)
        total += count
    assert conn.execute("SELECT count(*), sum(k) FROM t").fetchone() == (
        total,
        sum(c * c for c in range(1, 1001)),
    )
    assert len(recording.statements) == 9  # 1, 2, 4, ..., 256 rows


def grown_export(fixtures, tmp_path) -> tuple[object, int]:
    """The export of `export`, later: each conversation continued by an exchange, one answer of each edited,
    every third retitled (the title is in its first message's search rows)."""
    path, count = export(fixtures, tmp_path)
    items = json.loads(path.read_text(encoding="utf-8"))
    for n, conv in enumerate(items):
        mapping, leaf = conv["mapping"], conv["current_node"]
        edited = next(
            node
            for node in mapping.values()
            if (node.get("message") or {}).get("author", {}).get("role") == "assistant"
        )
        edited["message"]["content"]["parts"] = [f"an edited answer with zqedit{n:03d}y in it"]
        for k, role in enumerate(("user", "assistant")):
            mid = f"{conv['id']}-more-{k}"
            mapping[leaf]["children"] = [mid]
            message = {
                "id": mid,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": conv["update_time"] + 10 + k,
                "content": {"content_type": "text", "parts": [f"a later {role} turn zqmore{n:03d}{k}"]},
                "status": "finished_successfully",
                "metadata": {},
                "recipient": "all",
            }
            mapping[mid] = {"id": mid, "message": message, "parent": leaf, "children": []}
            leaf = mid
        conv["current_node"] = leaf
        conv["update_time"] += 20
        if n % 3 == 0:
            conv["title"] = f"{conv['title']} retitled zqtitle{n:03d}z"
    later = tmp_path / "later" / "conversations.json"
    later.parent.mkdir()
    later.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return later, count


def test_an_export_imported_again_later_indexes_what_a_fresh_import_of_it_does(
    fixtures, tmp_path, mnemo_home, small_chunks
):
    """Importing a later export over the archive updates every conversation; each keeps the rows of the
    messages it did not change (Archive._replace_rows), and the index is the one a fresh import of the later
    export writes."""
    path, count = export(fixtures, tmp_path)
    later, _ = grown_export(fixtures, tmp_path)
    with open_archive() as arc:
        assert import_paths(arc, [str(path)]).created == count
        rowids = dict(arc.conn.execute("SELECT conversation_id || '/' || message_id, rowid FROM messages"))
        totals = import_paths(arc, [str(later)])
        assert totals.updated == count and totals.failed == 0
        assert not arc.has_pending_index()
        again = index_rows(arc)
        after = dict(arc.conn.execute("SELECT conversation_id || '/' || message_id, rowid FROM messages"))
        assert sum(after.get(key) == rowid for key, rowid in rowids.items()) > len(rowids) // 2  # kept
        for n in range(count):
            assert [h["title"] for h in arc.search(f"zqmore{n:03d}1")]
            assert [h["title"] for h in arc.search(f"zqedit{n:03d}y")]
        retitled = {h["id"] for h in arc.search("zqtitle", limit=100)}
        assert len(retitled) == len(range(0, count, 3))
    fresh = tmp_path / "fresh.db"
    with open_archive(fresh) as arc:
        assert import_paths(arc, [str(later)]).created == count
        assert index_rows(arc) == again
