"""The sync bookkeeping in the archive: migration m007 on an existing archive, and what saves record."""

from __future__ import annotations

from mnemosyne.archive import keys as archive_keys
from mnemosyne.archive import open_archive, sync
from mnemosyne.archive.db import connect
from mnemosyne.archive.migrations import MIGRATIONS, migrate
from test_archive import conversation


def test_m007_backfills_conversations_saved_before_it(mnemo_home):
    before = [m.__name__ for m in MIGRATIONS].index("m007_sync_state")
    key = archive_keys.load_key(create=True)
    conn = connect(mnemo_home / "archive.db", key)
    migrate(conn, upto=before)
    conn.close()
    with open_archive() as arc:  # save through today's code, then drop what m007 made, then migrate again
        complete = arc.save(conversation("s1", ["a", "b"]))
        partial_conv = conversation("s2", ["c"])
        partial_conv.provenance.partial = True
        partial = arc.save(partial_conv)
        arc.conn.execute("DROP TABLE sync_state")
        arc.conn.execute("DROP TABLE sync_runs")
        arc.conn.execute("DELETE FROM _migrations WHERE name = 'm007_sync_state'")
    with open_archive() as arc:
        known = sync.known(arc.conn, "chatgpt", ["s1", "s2", "s3"])
    assert known == {
        "s1": {"list_updated": None, "complete": True, "conversation_id": complete.id},
        "s2": {"list_updated": None, "complete": False, "conversation_id": partial.id},
    }


def test_import_records_origin_and_sync_status_counts(mnemo_home):
    with open_archive() as arc:
        arc.save(conversation("s1", ["a", "b"]))
        arc.save_many([conversation("s2", ["c"])], marks=[sync.SyncMark("m2", "backup")])
        counts = sync.saved_counts(arc.conn)
    assert counts == {"chatgpt": {"conversations": 2, "import": 1, "backup": 1, "partial": 0}}
