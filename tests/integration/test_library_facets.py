"""The library's filters and sorts: facet columns filled at save time and by migration m006, `list` filters,
orders and cursors, on the real fixture conversations (ChatGPT and Claude exports, a ChatGPT API reply)."""

from __future__ import annotations

import json
import time

import pytest

from mnemosyne.archive import keys as archive_keys
from mnemosyne.archive import open_archive
from mnemosyne.archive.db import connect
from mnemosyne.archive.migrations import MIGRATIONS, migrate
from mnemosyne.errors import InputError
from mnemosyne.model import ArtifactPart, AttachmentPart, CodePart, TextPart
from mnemosyne.service import import_paths
from support.hostproc import HostProcess, host_env

SOURCES = ("chatgpt_export", "claude_export", "chatgpt_api")


def _import(arc, fixtures) -> None:
    totals = import_paths(arc, [str(fixtures / name) for name in SOURCES], count_tokens=False)
    assert totals.created > 20


def _walk(arc, limit: int = 4, **filters) -> list[dict]:
    seen, cursor = [], None
    while True:
        page, cursor = arc.list(limit=limit, cursor=cursor, **filters)
        seen += page
        if not cursor:
            return seen


def _expected(arc):
    """Each conversation's facets worked out from the validated model (not from the stored columns)."""
    found = {}
    for conv_id in arc.all_ids():
        conv = arc.get(conv_id)
        parts = [part for message in conv.messages for part in message.parts]
        code = any(
            isinstance(p, CodePart)
            or (isinstance(p, TextPart) and "```" in p.text)
            or (isinstance(p, ArtifactPart) and bool(p.language))
            for p in parts
        )
        found[conv_id] = {
            "project": conv.source.project,
            "has_code": code,
            "has_attachments": any(isinstance(p, AttachmentPart) for p in parts),
            "title": conv.title,
        }
    return found


def test_facets_of_real_conversations_filter_to_the_right_sets(mnemo_home, fixtures):
    with open_archive() as arc:
        _import(arc, fixtures)
        expected = _expected(arc)
        every = {item["id"]: item for item in _walk(arc, limit=100)}
        assert set(every) == set(expected)
        for flag in ("has_code", "has_attachments"):
            want = {cid for cid, facet in expected.items() if facet[flag]}
            assert 0 < len(want) < len(expected), flag  # the fixtures have both kinds
            assert {i["id"] for i in _walk(arc, **{flag: True})} == want
            assert {i["id"] for i in _walk(arc, **{flag: False})} == set(expected) - want
        both = {i["id"] for i in _walk(arc, has_code=True, has_attachments=True)}
        assert both == {c for c, f in expected.items() if f["has_code"] and f["has_attachments"]}

        by_title = {item["title"]: item for item in every.values()}
        assert by_title["Attachment Test"]["has_attachments"] is True
        assert (
            next(v for k, v in by_title.items() if (k or "").startswith("Python Code Review"))["has_code"]
            is True
        )
        tide = by_title["Tide anneal crucible explanation"]
        assert tide["project"] == "g-69119d14ce108191b6951c67e9fd7e3b" and tide["model"] == "gpt-5-thinking"
        assert [i["id"] for i in _walk(arc, project=tide["project"])] == [tide["id"]]
        gpt4o = {c for c, item in every.items() if item["model"] == "gpt-4o"}
        assert len(gpt4o) > 1 and {i["id"] for i in _walk(arc, model="gpt-4o")} == gpt4o
        assert {i["id"] for i in _walk(arc, model="gpt-4o", has_attachments=True)} == {
            c for c in gpt4o if expected[c]["has_attachments"]
        }

        choices = arc.facet_values()
        assert {"value": "gpt-4o", "count": len(gpt4o)} in choices["model"]
        assert choices["project"][0]["value"] is not None


@pytest.mark.parametrize("order", ["title", "length", "newest", "oldest", "created"])
def test_every_order_pages_the_whole_archive_once_in_order(mnemo_home, fixtures, order):
    with open_archive() as arc:
        _import(arc, fixtures)
        whole = _walk(arc, limit=100, order=order)
        paged = _walk(arc, limit=3, order=order)
        assert [i["id"] for i in paged] == [i["id"] for i in whole]
        assert len({i["id"] for i in paged}) == len(arc.all_ids())
        if order == "title":
            shown = [i["title"] or i.get("first_words") or "" for i in paged]
            keys = [(" ".join(title.casefold().split()), i["id"]) for title, i in zip(shown, paged)]
            assert keys == sorted(keys)
            # an untitled conversation sorts by the words it shows, among the titled ones
            untitled = [n for n, i in enumerate(paged) if not i["title"] and i.get("first_words")]
            assert untitled and any(0 < n < len(paged) - 1 for n in untitled)
        elif order == "length":
            keys = [(i["length"], i["id"]) for i in paged]
            assert keys == sorted(keys, reverse=True) and keys[0][0] > 50_000 > keys[-1][0]
        elif order == "created":
            keys = [(i["created_at"] or i["updated_at"] or i["saved_at"], i["id"]) for i in paged]
            assert keys == sorted(keys, reverse=True)
            assert keys != sorted(((i["updated_at"] or "", i["id"]) for i in paged), reverse=True)


def test_length_counts_the_text_a_reader_reads(mnemo_home, fixtures):
    with open_archive() as arc:
        _import(arc, fixtures)
        item = next(i for i in _walk(arc, limit=100) if i["title"] == "Quick Question")
        conv = arc.get(item["id"])
        texts = [p.text for m in conv.messages for p in m.parts if isinstance(p, TextPart)]
        assert item["length"] >= sum(map(len, texts)) > 0


def test_a_cursor_of_another_order_is_refused(mnemo_home, fixtures):
    with open_archive() as arc:
        _import(arc, fixtures)
        _, cursor = arc.list(limit=2, order="title")
        with pytest.raises(InputError) as err:
            arc.list(limit=2, order="length", cursor=cursor)
        assert err.value.code == "BAD_CURSOR"


def test_m006_fills_the_facets_of_conversations_saved_before_it(mnemo_home, fixtures, tmp_path, monkeypatch):
    with open_archive() as arc:
        _import(arc, fixtures)
        # (first_words comes from the messages' search rows, which this copy of the conversations rows leaves out)
        want = {i["id"]: {k: v for k, v in i.items() if k != "first_words"} for i in _walk(arc, limit=100)}
        rows = arc.conn.execute(
            "SELECT id, site, source_id, title, url, created_at, updated_at, saved_at, message_count,"
            " active_leaf, content_sha256, document, sort_key FROM conversations"
        ).fetchall()
    older = tmp_path / "older"
    older.mkdir()
    monkeypatch.setenv("MNEMOSYNE_HOME", str(older))
    monkeypatch.setenv("MNEMOSYNE_KEY_FILE", str(older / "archive.key"))
    conn = connect(older / "archive.db", archive_keys.load_key(create=True))
    migrate(conn, upto=5)  # the archive as m005 left it: no facet columns
    conn.executemany(f"INSERT INTO conversations VALUES ({','.join('?' * 13)})", rows)
    conn.commit()
    conn.close()
    with open_archive() as arc:
        assert arc.stats()["migrations"][-len(MIGRATIONS) + 5 :][0] == "m006_conversation_facets"
        got = {
            i["id"]: {
                k: v for k, v in {**i, "saved_at": want[i["id"]]["saved_at"]}.items() if k != "first_words"
            }
            for i in _walk(arc, limit=100)
        }
        assert got == want
        assert [i["id"] for i in _walk(arc, order="length")] == [
            i["id"] for i in sorted(want.values(), key=lambda i: (i["length"], i["id"]), reverse=True)
        ]


def test_the_host_lists_with_filters_orders_and_choices(tmp_path, fixtures):
    host = HostProcess(host_env(tmp_path / "home"))
    try:
        tide = next((fixtures / "chatgpt_api" / "elinvoss").glob("*Tide_anneal*.json"))  # no code in it
        for path in (fixtures / "chatgpt_export" / "echomine_003_with_code.json", tide):
            data = json.loads(path.read_text(encoding="utf-8"))
            for conversation in data if isinstance(data, list) else [data]:
                host.data("save", payload=conversation, kind="auto")
        untitled = json.loads(tide.read_text(encoding="utf-8"))
        untitled.update(title=None, conversation_id="untitled-0001", id="untitled-0001")
        host.data("save", payload=untitled, kind="auto")
        first_user = next(
            node["message"]["content"]["parts"][0]
            for node in sorted(
                (n for n in untitled["mapping"].values() if n.get("message")),
                key=lambda n: n["message"].get("create_time") or 0,
            )
            if node["message"]["author"]["role"] == "user" and node["message"]["content"].get("parts")
        )
        for _ in range(100):  # its search rows are written just after the save's reply
            listed = {i["title"]: i for i in host.data("list", limit=100)["items"]}
            if listed[None]["first_words"]:
                break
            time.sleep(0.1)
        assert listed[None]["first_words"] == " ".join(first_user.split())[:80]  # what tells it apart
        assert "first_words" not in listed[json.loads(tide.read_text(encoding="utf-8"))["title"]]
        every = host.data("list", facets=True)
        assert {f["value"] for f in every["facets"]["model"]} == {i["model"] for i in every["items"]} - {None}
        assert every["total"] == len(every["items"])  # the whole archive, whatever the filters
        assert host.data("list", facets=True, has_code=True)["total"] == every["total"]
        coded = host.data("list", has_code=True)["items"]
        assert coded and all(i["has_code"] for i in coded)
        assert len(coded) < len(every["items"])
        first = host.data("list", order="title", limit=1)
        second = host.data("list", order="title", limit=1, cursor=first["next_cursor"])
        assert (first["items"][0]["title"] or "").casefold() <= (second["items"][0]["title"] or "").casefold()
        assert "facets" not in first and "total" not in first
        wrong = host.call("list", order="length", cursor=first["next_cursor"])
        assert wrong["error"]["code"] == "BAD_CURSOR"
        assert host.call("list", has_code="yes")["error"]["code"] == "BAD_REQUEST"
        assert host.call("list", order="size")["error"]["code"] == "BAD_REQUEST"
    finally:
        host.kill()
