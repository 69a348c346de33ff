"""Substring search: the trigram index (no copy of the text, no CJK runs) or the bigram index finds the
candidates, re-checked against the stored text; the results are those of a scan of the text."""

from __future__ import annotations

import random

import pytest

from mnemosyne.archive import open_archive
from mnemosyne.archive import search as search_module
from mnemosyne.archive.migrations import MIGRATIONS
from mnemosyne.archive.search import _substring_search
from test_archive import conversation

CONVERSATIONS = {
    "en": (
        "Vacuum tuning",
        ["How do I tune PostgreSQL autovacuum?", "Lower the scale_factor to 1% of rows."],
    ),
    "snake": ("snake_case names", ["Use snake_case, not camelCase.", "50% off: a_b and a%b differ"]),
    "zh": ("数据库设计", ["我们今天讨论数据库的设计", "好的, SQL中的索引很重要。第1章讲B树"]),
    "mixed": (
        "Mixed 日本語 title",
        ["The word 中 alone, then a中b and x中文y", "カタカナ・テスト and 한국어 text"],
    ),
    "upper": ("UPPER case", ["SHOUTING ABOUT AUTOVACUUM", "éclair Éclair ÉCLAIR"]),
    "plain": ("", ["no title here, only the body", "percent % underscore _ done"]),
}
NEEDLES = [
    "vacu", "AUTOVAC", "autovacuum?", "scale_factor", "1%", "a_b", "a%b", "_case", "% o", "tuning",
    "数据库", "数据", "库的设", "SQL中", "中的索", "第1章", "1章", "章讲B", "a中b", "中a", "x中文", "文y",
    "中", "本語 t", "Mixed 日", "カタ", "・テ", "한국", "국어 t", "éclair", "ÉCLAIR", "clair", "Éc",
    "title\nHow", "no title", "only", "ng", "zz", "nothing-like-this", "e_s", "%", "_",
]  # fmt: skip


def _ascii_lower(text: str) -> str:
    return "".join(ch.lower() if ch.isascii() else ch for ch in text)


def scanned(arc, needle: str) -> dict[str, int]:
    """Per conversation, how many of its messages hold the needle in their text (the title on the first):
    SQLite's LIKE and lower() fold ASCII letters only; GLOB (a needle with % or _) folds nothing."""
    found: dict[str, int] = {}
    rows = arc.conn.execute(
        "SELECT m.conversation_id, f.title, f.body FROM messages_fts f JOIN messages m ON m.rowid = f.rowid"
    )
    for conv_id, title, body in rows:
        text = f"{title}\n{body}" if title else body
        if len(needle) >= 3 and any(ch in needle for ch in "%_"):
            hit = needle in text
        else:
            hit = _ascii_lower(needle) in _ascii_lower(text)
        if hit:
            found[conv_id] = found.get(conv_id, 0) + 1
    return found


def searched(arc, needle: str) -> dict[str, int]:
    return {hit["id"]: int(hit["score"]) for hit in _substring_search(arc.conn, needle, 100, None)}


def save_all(arc) -> dict[str, str]:
    return {
        key: arc.save(conversation(key, texts, title=title)).id
        for key, (title, texts) in CONVERSATIONS.items()
    }


def assert_search_is_a_scan(arc, needles: list[str]) -> None:
    for needle in needles:
        assert searched(arc, needle) == scanned(arc, needle), needle


@pytest.fixture
def every_hit(monkeypatch):
    """Every matching message counted, not the first few (a scan's answer)."""
    monkeypatch.setattr(search_module, "TOP_MESSAGES", 1000)


def random_needles(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    texts = [t for title, texts in CONVERSATIONS.values() for t in [title, *texts] if t]
    out = []
    for _ in range(count):
        text = rng.choice(texts)
        size = rng.choice([1, 2, 3, 4, 6])
        start = rng.randrange(max(1, len(text) - size + 1))
        needle = text[start : start + size].strip()
        out += [needle, needle.swapcase()] if needle else []
    return out


def test_substring_search_finds_what_a_scan_of_the_text_finds(mnemo_home, every_hit):
    with open_archive() as arc:
        ids = save_all(arc)
        assert_search_is_a_scan(arc, NEEDLES + random_needles(1, 300))
        assert set(searched(arc, "第1章")) == {ids["zh"]}
        assert set(searched(arc, "a中b")) == {ids["mixed"]}
        assert set(searched(arc, "Mixed 日")) == {ids["mixed"]}  # across the title and a CJK run
        assert set(searched(arc, "a_b")) == {ids["snake"]}  # a literal _, not any character
        # the trigram table keeps no copy of the message text: messages_fts holds it once
        assert arc.conn.execute("SELECT count(*) FROM messages_tri WHERE body IS NOT NULL").fetchone()[0] == 0
        assert arc.conn.execute("SELECT count(*) FROM messages_tri").fetchone()[0] == 12


def test_deleted_conversations_leave_the_substring_index(mnemo_home, every_hit):
    with open_archive() as arc:
        ids = save_all(arc)
        arc.delete(ids["zh"])
        arc.delete(ids["snake"])
        assert_search_is_a_scan(arc, NEEDLES)
        assert searched(arc, "第1章") == {} and searched(arc, "a_b") == {}
        arc.save(conversation("zh", CONVERSATIONS["zh"][1], title=CONVERSATIONS["zh"][0]))  # saved again
        assert set(searched(arc, "第1章")) == {ids["zh"]}
        assert arc.conn.execute("SELECT count(*) FROM messages_tri").fetchone()[0] == 10
        arc.conn.execute("INSERT INTO messages_tri (messages_tri) VALUES ('integrity-check')")


def test_an_archive_with_the_previous_trigram_table_is_migrated_and_searches_the_same(mnemo_home, every_hit):
    with open_archive() as arc:
        ids = save_all(arc)
        # the archive as m008 left it: the trigram table with its own copy of the text, CJK included
        arc.conn.execute("DROP TABLE messages_tri")
        arc.conn.execute(
            "CREATE VIRTUAL TABLE messages_tri USING fts5(body, tokenize = 'trigram', detail = 'none')"
        )
        arc.conn.execute(
            "INSERT INTO messages_tri (rowid, body) SELECT rowid,"
            " CASE WHEN title = '' THEN body ELSE title || char(10) || body END FROM messages_fts"
        )
        arc.conn.execute("DELETE FROM _migrations WHERE name = 'm009_trigram_without_content'")
    with open_archive() as arc:  # (m009 applied again, after the ones that came later)
        assert sorted(arc.stats()["migrations"]) == sorted(m.__name__ for m in MIGRATIONS)
        assert arc.conn.execute("SELECT count(*) FROM messages_tri WHERE body IS NOT NULL").fetchone()[0] == 0
        assert_search_is_a_scan(arc, NEEDLES + random_needles(2, 200))
        arc.delete(ids["mixed"])  # a row the migration indexed can be deleted
        assert searched(arc, "a中b") == {}
        assert_search_is_a_scan(arc, NEEDLES)
        arc.conn.execute("INSERT INTO messages_tri (messages_tri) VALUES ('integrity-check')")


def test_an_import_indexes_substrings_as_saving_one_at_a_time_does(fixtures, tmp_path, mnemo_home, every_hit):
    from mnemosyne.service import import_paths
    from test_bulk_index import export

    path, count = export(fixtures, tmp_path, copies=4)  # titles like "zqmark001x copy 検索テスト"
    with open_archive() as arc:
        assert import_paths(arc, [str(path)]).created == count
        rng = random.Random(3)
        texts = [
            f"{title}\n{body}" if title else body
            for title, body in arc.conn.execute("SELECT title, body FROM messages_fts")
        ]
        needles = ["x copy 検", "copy 検索", "検索テ", "ト", "zqmark001x", "ARK00"]
        for _ in range(300):
            text = rng.choice(texts)
            start = rng.randrange(max(1, len(text) - 5))
            needles.append(text[start : start + rng.choice([2, 3, 5])].strip())
        assert_search_is_a_scan(arc, [n for n in needles if n])


def test_a_bulk_import_indexes_every_character_as_it_is(mnemo_home, every_hit):
    """The index text goes to SQLite as JSON (indexing.texts_for): quotes, backslashes, control characters,
    line separators and astral characters come out of json_each as they went in."""
    odd = [
        'say "hi" \\ back\\slash \\u0041',
        "tab\there\x01\x1f\x7f end",
        "line\u2028para\u2029 😀 𝒳 中文\r\n",
    ]
    with open_archive() as arc:
        with arc.bulk_import():
            arc.save_many([conversation("odd", odd, title='Title "quoted" \\ 表')])
        stored = arc.conn.execute("SELECT title, body FROM messages_fts ORDER BY rowid").fetchall()
        assert stored == [('Title "quoted" \\ 表', odd[0]), ("", odd[1]), ("", odd[2])]
        assert_search_is_a_scan(arc, ['"hi"', "\\u0041", "\x01\x1f", "😀 𝒳", "para", "中文", "\\ 表"])


def quoted_file(seed: int) -> str:
    """A long text of random letter groups: a file ChatGPT quotes in full each time it reads it again."""
    rng = random.Random(seed)
    return " ".join(
        "".join(rng.choice("abcdefghij中") for _ in range(rng.randrange(2, 9))) for _ in range(400)
    )


def test_a_repeated_long_quote_is_found_in_every_message_that_repeats_it(mnemo_home, every_hit):
    """A bulk import gives a long message that repeats an earlier one of its conversation no trigram rows
    of its own (indexing.SAME_TEXT_MIN_CHARS); the substring search still finds every copy, also once the
    message it repeats is gone."""
    quote, other = quoted_file(1), quoted_file(2)
    texts = ["read my file", quote, "and again", quote, "once more", quote, "another", other, "end", other]
    short = ["ok", "ok", "ok"]  # short repeats keep their own rows
    with open_archive() as arc:
        with arc.bulk_import():
            saved = arc.save_many([conversation("q", texts, title="Quotes"), conversation("s", short)])
        conv_id = saved[0].id
        assert arc.conn.execute("SELECT count(*) FROM tri_same").fetchone()[0] == 3
        assert (
            arc.conn.execute("SELECT count(*) FROM messages_tri").fetchone()[0] == 7 + 3
        )  # the 3 repeats have none
        rng = random.Random(4)
        starts = [rng.randrange(len(quote) - 9) for _ in range(60)]
        needles = [quote[i : i + rng.choice([3, 5, 9])].strip() for i in starts]
        needles += [other[10:17].strip(), "中中", "ok", "read my"]
        assert_search_is_a_scan(arc, needles)
        assert searched(arc, quote[100:107]).get(conv_id) == 3
        # saved again without the message the other copies repeat: they get trigram rows of their own
        arc.save(conversation("q", ["read my file", "the file is gone", *texts[2:]], title="Quotes"))
        assert searched(arc, quote[100:107]).get(conv_id) == 2
        assert_search_is_a_scan(arc, needles)
        arc.delete(conv_id)
        assert arc.conn.execute("SELECT count(*) FROM tri_same").fetchone()[0] == 0
        assert searched(arc, quote[100:107]) == {}
        arc.conn.execute("INSERT INTO messages_tri (messages_tri) VALUES ('integrity-check')")


def trigram_rows(arc) -> int:
    return arc.conn.execute("SELECT count(*) FROM messages_tri").fetchone()[0]


def test_a_long_text_repeated_across_conversations_is_found_in_each_of_them(mnemo_home, every_hit):
    """A long text held by many conversations (a file pasted into several chats, custom instructions) gets
    trigram rows once: in one import, and against what the archive holds from an earlier one. Every copy is
    still found, after the conversation that owns the rows is deleted, after one is saved again with the
    text changed, and after the owner's rowids are taken by a new conversation."""
    quote, other = quoted_file(1), quoted_file(2)
    rng = random.Random(5)
    needles = [quote[i : i + rng.choice([3, 5, 9])].strip() for i in rng.sample(range(len(quote) - 9), 40)]
    needles += [other[20:27].strip(), "中中", "pasted", "again"]

    def chat(key: str, body: str = quote) -> object:
        return conversation(key, ["pasted my notes", body, f"again {key}", body], title=f"Notes {key}")

    with open_archive() as arc:
        with arc.bulk_import():
            first = arc.save_many([chat(f"a{n}") for n in range(4)])
        # 4 conversations of 2 messages and 2 copies of the quote: its rows once, not 8 times
        assert trigram_rows(arc) == 4 * 2 + 1
        assert arc.conn.execute("SELECT count(*) FROM tri_same").fetchone()[0] == 7
        with arc.bulk_import():  # a later import: the archive's rows serve its copies too
            later = arc.save_many([chat(f"b{n}") for n in range(3)])
        assert trigram_rows(arc) == 7 * 2 + 1
        assert_search_is_a_scan(arc, needles)
        ids = [r.id for r in first + later]
        assert searched(arc, quote[200:207]) == {conv_id: 2 for conv_id in ids}

        arc.delete(ids[0])  # the owner of the rows goes: a remaining copy owns them now
        assert trigram_rows(arc) == 6 * 2 + 1
        assert_search_is_a_scan(arc, needles)
        assert searched(arc, quote[200:207]) == {conv_id: 2 for conv_id in ids[1:]}

        arc.save(chat("a1", other))  # saved again with another text: its copies of the quote go
        assert_search_is_a_scan(arc, needles)
        assert searched(arc, quote[200:207]) == {conv_id: 2 for conv_id in ids[2:]}

        for conv_id in ids[1:]:
            arc.delete(conv_id)
        assert arc.conn.execute("SELECT count(*) FROM tri_owner").fetchone()[0] == 0
        assert searched(arc, quote[200:207]) == {}
        # the deleted messages' rowids are given out again: nothing may still point at them
        with arc.bulk_import():
            arc.save_many([conversation("c", ["x" * 2000, "y" * 2000, "z"]), chat("d")])
        assert_search_is_a_scan(arc, needles + ["xxx", "yyy"])
        assert searched(arc, quote[200:207]) == {arc.save(chat("d")).id: 2}
        arc.conn.execute("INSERT INTO messages_tri (messages_tri) VALUES ('integrity-check')")


def test_a_repeat_written_one_by_one_keeps_rows_of_its_own(mnemo_home, every_hit):
    """A save outside a bulk import writes every message's rows: its copy of a text an import owns is
    found, also once the import's conversations are gone."""
    quote = quoted_file(3)
    with open_archive() as arc:
        with arc.bulk_import():
            owner = arc.save_many([conversation("o", ["file", quote])])[0].id
        alone = arc.save(conversation("p", ["same file", quote])).id
        assert searched(arc, quote[50:57]) == {owner: 1, alone: 1}
        arc.delete(owner)
        assert searched(arc, quote[50:57]) == {alone: 1}
