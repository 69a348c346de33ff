"""Untitled conversations are shown and sorted by a title from their first user message: plain words (no
Markdown marks), at most 80 characters cut at a word; stored at save time and by migration m011 for an
archive made before it."""

from __future__ import annotations

import json

from mnemosyne.archive import keys as archive_keys
from mnemosyne.archive import open_archive
from mnemosyne.archive.db import connect
from mnemosyne.archive.derived_title import TITLE_CHARS, plain_words
from mnemosyne.archive.migrations import MIGRATIONS, migrate
from mnemosyne.service import import_paths
from support.hostproc import HostProcess, host_env

# (the first user message as typed, the title it gives); None: a titled conversation of that name
TYPED = [
    ("**Zebra** crossings in `Lisbon`, _why_ so many?", "Zebra crossings in Lisbon, why so many?"),
    ("# Apple pie\n\n> with *cinnamon*\n\n- no raisins", "Apple pie with cinnamon no raisins"),
    ("[Mango](https://example.com/m) smoothie", "Mango smoothie"),
    ("```python\nprint('kiwi')\n```", "print('kiwi')"),
]
TITLED = ["Banana bread", "Lemon curd", "Yuzu tea"]
LONG = "Plan " + " ".join(f"word{n:02d}" for n in range(40))


def write_export(path) -> None:
    """A ChatGPT export of untitled and titled conversations, one user and one assistant message each."""
    out = []
    typed = [*TYPED, (LONG, None)] + [(f"about {t.lower()}", t) for t in TITLED]
    for n, (text, title) in enumerate(typed):
        cid = f"00000000-0000-4000-8000-{n:012d}"
        mapping = {
            "root": {"id": "root", "message": None, "parent": None, "children": ["u"]},
            "u": {"id": "u", "parent": "root", "children": ["a"], "message": _message("u", "user", text)},
            "a": {"id": "a", "parent": "u", "children": [], "message": _message("a", "assistant", "Sure.")},
        }
        titled = title if title in TITLED else None
        out.append(
            {"title": titled, "create_time": 1.7e9 + n, "update_time": 1.7e9 + n, "mapping": mapping}
            | {"current_node": "a", "conversation_id": cid, "id": cid}
        )
    path.write_text(json.dumps(out), encoding="utf-8")


def _message(node_id: str, role: str, text: str) -> dict:
    content = {"content_type": "text", "parts": [text]}
    return {"id": node_id, "author": {"role": role}, "create_time": 1.7e9, "content": content}


def _shown(arc) -> list[str]:
    items, cursor = arc.list(limit=100, order="title")
    assert cursor is None
    return [i["title"] or i["first_words"] for i in items]


def expected_titles() -> list[str]:
    long_title = plain_words(LONG)[: TITLE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return sorted([shown for _, shown in TYPED] + TITLED + [long_title], key=str.casefold)


def test_untitled_conversations_show_and_sort_by_their_first_words(mnemo_home, tmp_path):
    write_export(tmp_path / "conversations.json")
    with open_archive() as arc:
        import_paths(arc, [str(tmp_path / "conversations.json")], count_tokens=False)
        shown = _shown(arc)
    assert shown == expected_titles()
    assert all(len(title) <= TITLE_CHARS for title in shown)
    assert any(title.endswith("…") for title in shown)  # the long one, cut at a word
    assert not any(mark in title for title in shown for mark in ("**", "`", "# ", "](", "> "))


def test_m011_gives_titles_to_conversations_saved_before_it(mnemo_home, tmp_path, monkeypatch):
    write_export(tmp_path / "conversations.json")
    with open_archive() as arc:
        import_paths(arc, [str(tmp_path / "conversations.json")], count_tokens=False)
        columns = [
            r[1] for r in arc.conn.execute("PRAGMA table_info(conversations)") if r[1] != "derived_title"
        ]
        rows = arc.conn.execute(f"SELECT {', '.join(columns)} FROM conversations").fetchall()
        messages = arc.conn.execute("SELECT * FROM messages").fetchall()
    older = tmp_path / "older"
    older.mkdir()
    monkeypatch.setenv("MNEMOSYNE_HOME", str(older))
    monkeypatch.setenv("MNEMOSYNE_KEY_FILE", str(older / "archive.key"))
    conn = connect(older / "archive.db", archive_keys.load_key(create=True))
    migrate(conn, upto=10)  # the archive as m010 left it: every untitled conversation keyed ''
    names = ", ".join(columns)
    conn.executemany(f"INSERT INTO conversations ({names}) VALUES ({','.join('?' * len(columns))})", rows)
    conn.execute("UPDATE conversations SET title_key = '' WHERE title IS NULL")
    conn.executemany(f"INSERT INTO messages VALUES ({','.join('?' * len(messages[0]))})", messages)
    conn.commit()
    conn.close()
    with open_archive() as arc:
        assert arc.stats()["migrations"][10:] == [m.__name__ for m in MIGRATIONS[10:]]  # m011 onwards ran
        assert _shown(arc) == expected_titles()


def test_a_context_names_its_conversation_as_the_list_does(tmp_path, fixtures):
    """The Continue preview names the conversation: its title (redacted with the context), else its first words."""
    tide = json.loads(
        next((fixtures / "chatgpt_api" / "elinvoss").glob("*Tide_anneal*.json")).read_text(encoding="utf-8")
    )
    host = HostProcess(host_env(tmp_path / "home"))
    try:
        titled = {**tide, "title": "Notes for jane.doe@example.com on tides"}
        saved = host.data("save", payload=titled, kind="chatgpt_api")["conversation_id"]
        plain = host.data("context", conversation_id=saved, target="claude")
        assert plain["title"] == titled["title"]
        redacted = host.data("context", conversation_id=saved, target="claude", redact=True)
        assert "jane.doe@example.com" not in redacted["title"] and redacted["title"].startswith("Notes for ")
        untitled = {**tide, "title": None, "conversation_id": "untitled-0001", "id": "untitled-0001"}
        saved = host.data("save", payload=untitled, kind="chatgpt_api")["conversation_id"]
        listed = {i["id"]: i for i in host.data("list")["items"]}
        context = host.data("context", conversation_id=saved, target="claude")
        assert context["title"] == listed[saved]["first_words"] and context["title"]
        assert (
            host.data("get", conversation_id=saved)["first_words"] == context["title"]
        )  # the view's heading
    finally:
        host.kill()
