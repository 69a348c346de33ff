"""Named, ordered schema migrations (the sqlite-utils / llm pattern).

Each migration and its bookkeeping row commit in one transaction, under the
write lock, so two processes opening a new archive at once cannot both apply
it. Append new migrations at the end; never edit a released one.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .db import Connection, Transaction

# Imports inside functions: what one migration needs loads when it runs; opening an archive that is up to date
# (the host's hello) loads none of it.

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any


def _run(conn: Connection, script: str) -> None:
    """Statement by statement: executescript() would COMMIT the open transaction first."""
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def m001_initial(conn: Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            site TEXT NOT NULL,
            source_id TEXT,
            title TEXT,
            url TEXT,
            created_at TEXT,
            updated_at TEXT,
            saved_at TEXT NOT NULL,
            message_count INTEGER NOT NULL,
            active_leaf TEXT,
            content_sha256 TEXT NOT NULL,
            document TEXT NOT NULL
        );
        CREATE TABLE messages (
            rowid INTEGER PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            message_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            hidden INTEGER NOT NULL,
            UNIQUE (conversation_id, message_id)
        );
        CREATE VIRTUAL TABLE messages_fts USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');
        """,
    )


def m002_recency_and_trigram(conn: Connection) -> None:
    """Sort key for newest-first paging, a trigram index for CJK and substring search."""
    _run(
        conn,
        """
        ALTER TABLE conversations ADD COLUMN sort_key TEXT NOT NULL DEFAULT '';
        UPDATE conversations SET sort_key = coalesce(updated_at, created_at, saved_at);
        CREATE INDEX conversations_recent ON conversations(sort_key DESC, id DESC);
        CREATE INDEX conversations_site ON conversations(site, sort_key DESC);
        CREATE VIRTUAL TABLE messages_tri USING fts5(body, tokenize = 'trigram', detail = 'none');
        INSERT INTO messages_tri(rowid, body) SELECT rowid, body FROM messages_fts;
        """,
    )


def m003_token_counts(conn: Connection) -> None:
    """Per-message token counts, stored at save time so contexts need no re-tokenising."""
    _run(
        conn,
        """
        CREATE TABLE token_counts (
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            message_id TEXT NOT NULL,
            encoding TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            PRIMARY KEY (conversation_id, encoding, message_id)
        );
        """,
    )


def m004_cjk_bigrams(conn: Connection) -> None:
    """A bigram index for CJK text: 2-character and longer CJK queries through the index instead of a scan."""
    from ..cjk import has_cjk, index_text  # (see the imports)

    conn.execute(
        "CREATE VIRTUAL TABLE messages_cjk USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')"
    )
    rows = conn.execute("SELECT rowid, title, body FROM messages_fts").fetchall()
    conn.executemany(
        "INSERT INTO messages_cjk (rowid, body) VALUES (?, ?)",
        [(rowid, index_text(f"{title}\n{body}")) for rowid, title, body in rows if has_cjk(f"{title}{body}")],
    )


def m005_index_pending(conn: Connection) -> None:
    """Conversations saved but not yet in the search index (the host indexes after its reply)."""
    conn.execute("CREATE TABLE index_pending (conversation_id TEXT PRIMARY KEY)")


def m006_conversation_facets(conn: Connection) -> None:
    """The library's filters (project, model, has code, has attachments) and sorts (title, length), filled
    from every stored document (json.loads only, no validation: see facets.py)."""
    from .facets import COLUMNS, of_json  # (see the imports)

    _run(
        conn,
        """
        ALTER TABLE conversations ADD COLUMN project TEXT;
        ALTER TABLE conversations ADD COLUMN model TEXT;
        ALTER TABLE conversations ADD COLUMN has_code INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN has_attachments INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN text_chars INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN title_key TEXT NOT NULL DEFAULT '';
        CREATE INDEX conversations_title ON conversations(title_key, id);
        CREATE INDEX conversations_length ON conversations(text_chars DESC, id DESC);
        CREATE INDEX conversations_project ON conversations(project, sort_key DESC);
        CREATE INDEX conversations_model ON conversations(model, sort_key DESC);
        """,
    )
    columns = COLUMNS[:6]  # the columns this migration adds (a later one adds derived_title)
    assignments = ", ".join(f"{name} = ?" for name in columns)
    ids = [r[0] for r in conn.execute("SELECT id FROM conversations")]
    for conv_id in ids:  # one document in memory at a time
        (document,) = conn.execute("SELECT document FROM conversations WHERE id = ?", (conv_id,)).fetchone()
        values = of_json(document).values()[: len(columns)]
        conn.execute(f"UPDATE conversations SET {assignments} WHERE id = ?", (*values, conv_id))


def m007_sync_state(conn: Connection) -> None:
    """Per site conversation: the site list's update marker at its last save, whether that copy is
    complete, who saved it; and the backup runs the extension reports (see sync.py)."""
    _run(
        conn,
        """
        CREATE TABLE sync_state (
            site TEXT NOT NULL,
            source_id TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            list_updated TEXT,
            complete INTEGER NOT NULL,
            origin TEXT NOT NULL,
            saved_at TEXT NOT NULL,
            PRIMARY KEY (site, source_id)
        );
        CREATE INDEX sync_state_conversation ON sync_state(conversation_id);
        INSERT OR IGNORE INTO sync_state (site, source_id, conversation_id, list_updated, complete, origin, saved_at)
            SELECT site, source_id, id, NULL,
                   1 - coalesce(json_extract(document, '$.provenance.partial'), 0),
                   CASE WHEN json_extract(document, '$.provenance.method') IN ('official_export', 'other_tool')
                        THEN 'import' ELSE 'export' END,
                   saved_at
            FROM conversations WHERE source_id IS NOT NULL;
        CREATE TABLE sync_runs (
            id TEXT PRIMARY KEY,
            site TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            state TEXT NOT NULL,
            counts TEXT NOT NULL,
            failures TEXT NOT NULL,
            recorded_at TEXT NOT NULL
        );
        CREATE INDEX sync_runs_started ON sync_runs(started_at DESC);
        """,
    )


def m008_attachment_blobs(conn: Connection) -> None:
    """Attachment bytes, once per SHA-256, and their links to site conversations (see attachments.py)."""
    _run(
        conn,
        """
        CREATE TABLE attachment_blobs (
            sha256 TEXT PRIMARY KEY,
            bytes INTEGER NOT NULL,
            name TEXT,
            mime TEXT,
            data BLOB NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE attachment_links (
            site TEXT NOT NULL,
            source_id TEXT NOT NULL,
            file_id TEXT NOT NULL,
            sha256 TEXT NOT NULL REFERENCES attachment_blobs(sha256),
            name TEXT,
            mime TEXT,
            saved_at TEXT NOT NULL,
            PRIMARY KEY (site, source_id, file_id)
        );
        CREATE INDEX attachment_links_blob ON attachment_links(sha256);
        """,
    )


def m009_trigram_without_content(conn: Connection) -> None:
    """The trigram index without its own copy of the text (search re-checks against messages_fts) and
    without CJK runs (the bigram index serves them): a fifth less work for an import's index."""
    from ..cjk import without_cjk  # (see the imports)

    conn.execute("DROP TABLE messages_tri")
    conn.execute(
        "CREATE VIRTUAL TABLE messages_tri USING fts5(body, tokenize = 'trigram', detail = 'none',"
        " content = '', contentless_delete = 1)"
    )
    rows = conn.execute("SELECT rowid, title, body FROM messages_fts")
    while part := rows.fetchmany(2000):  # a part of the text in memory at a time
        conn.executemany(
            "INSERT INTO messages_tri (rowid, body) VALUES (?, ?)",
            [(rowid, without_cjk(f"{title}\n{body}" if title else body)) for rowid, title, body in part],
        )


def m010_context_units(conn: Connection) -> None:
    """The context engine's units of each conversation's texts, split once (see context_units.py). No
    foreign key: a save that replaces a conversation deletes and inserts its row, and its units stay."""
    conn.execute(
        "CREATE TABLE context_units ("
        " conversation_id TEXT NOT NULL,"
        " text_key BLOB NOT NULL,"
        " format INTEGER NOT NULL,"
        " units BLOB NOT NULL,"
        " PRIMARY KEY (conversation_id, text_key)"
        ") WITHOUT ROWID"
    )


def m011_derived_titles(conn: Connection) -> None:
    """An untitled conversation's title from its first user message (see derived_title.py), shown in lists
    and sorted by under "Title A-Z" instead of all untitled ones first. Only untitled rows are read."""
    from .derived_title import of_document
    from .facets import title_key  # (see the imports)

    conn.execute("ALTER TABLE conversations ADD COLUMN derived_title TEXT")
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM conversations WHERE trim(coalesce(title, ''), char(32, 9, 10, 13)) = ''"
        )
    ]
    for conv_id in ids:  # one document in memory at a time
        (document,) = conn.execute("SELECT document FROM conversations WHERE id = ?", (conv_id,)).fetchone()
        derived = of_document(json.loads(document))
        conn.execute(
            "UPDATE conversations SET derived_title = ?, title_key = ? WHERE id = ?",
            (derived, title_key(derived), conv_id),
        )


def m012_trigram_same_text(conn: Connection) -> None:
    """Messages whose trigram rows are another message's of the same conversation (indexing.py,
    SAME_TEXT_MIN_CHARS): the substring search reaches them through their source."""
    conn.execute("CREATE TABLE tri_same (rowid INTEGER PRIMARY KEY, source INTEGER NOT NULL)")
    conn.execute("CREATE INDEX tri_same_source ON tri_same(source)")


def m013_trigram_text_owners(conn: Connection) -> None:
    """The message that owns the trigram rows of a long text, by the text's key (indexing.text_key): an
    import writes a text it holds once for every conversation that repeats it. Texts indexed before are
    not listed (their rows stay; the first later repeat of one gets rows of its own and owns it)."""
    conn.execute("CREATE TABLE tri_owner (rowid INTEGER PRIMARY KEY, text_key TEXT NOT NULL UNIQUE)")


MIGRATIONS: list[Callable[..., Any]] = [
    m001_initial,
    m002_recency_and_trigram,
    m003_token_counts,
    m004_cjk_bigrams,
    m005_index_pending,
    m006_conversation_facets,
    m007_sync_state,
    m008_attachment_blobs,
    m009_trigram_without_content,
    m010_context_units,
    m011_derived_titles,
    m012_trigram_same_text,
    m013_trigram_text_owners,
]


def applied(conn: Connection) -> list[str]:
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    return [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def migrate(conn: Connection, upto: int | None = None) -> list[str]:
    """Apply every pending migration (or the first `upto`); returns the names applied."""
    done: list[str] = []
    wanted = MIGRATIONS if upto is None else MIGRATIONS[:upto]
    if set(applied(conn)) >= {m.__name__ for m in wanted}:
        return done
    from datetime import datetime, timezone  # only when a migration runs: not on hello's path

    for migration in wanted:
        with Transaction(conn):
            # re-check under the write lock: another process may have applied it meanwhile
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (migration.__name__,)).fetchone():
                continue
            migration(conn)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                (migration.__name__, datetime.now(timezone.utc).isoformat(timespec="seconds")),
            )
        done.append(migration.__name__)
    return done
