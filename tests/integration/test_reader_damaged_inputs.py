"""Damaged and unusual variants of real exports: what can be read is read, the rest is named.

Every input here is a real fixture, changed the way files are damaged or re-encoded in the wild.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from mnemosyne.model import Conversation, TextPart
from mnemosyne.readers import ReadContext, ReadFailure, load_path, read_raw
from support.cli import run_cli

FIXTURES = Path(__file__).parents[1] / "fixtures"
CHATGPT = FIXTURES / "chatgpt_export/librechat_chatgpt-export.json"  # 2 conversations
CHATGPT_ONE = FIXTURES / "chatgpt_export/echomine_003_with_code.json"
CLAUDE = FIXTURES / "claude_export/echomine_claude_sample_export.json"  # 5 conversations


def mnemo(*args: str | Path) -> subprocess.CompletedProcess:
    """`mnemo ARGS` through `main(argv)`, output as bytes; the archive is the one `mnemo_home` set up."""
    return run_cli(None, *args, check=False, text=False)


def read(path: Path) -> list:
    return [item for raw in load_path(path) for item in read_raw(raw, ReadContext())]


def hundred_portable_lines(tmp_path: Path) -> Path:
    base = json.loads(CHATGPT.read_text(encoding="utf-8"))
    copies = [
        dict(conv, id=f"{conv['id']}-{n}", conversation_id=f"{conv['id']}-{n}", title=f"copy {n}")
        for n in range(50)
        for conv in base
    ]
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(copies), encoding="utf-8")
    done = mnemo("convert", export, "--to", "portable")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "archive.jsonl"
    path.write_bytes(done.stdout)
    assert len(done.stdout.splitlines()) == 100
    return path


def test_a_truncated_last_line_of_portable_jsonl_loses_only_that_line(tmp_path):
    path = hundred_portable_lines(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 200])  # the download stopped inside conversation 100
    done = mnemo("convert", path, "--to", "portable")
    assert done.returncode == 1
    assert len(done.stdout.splitlines()) == 99
    errors = done.stderr.decode().splitlines()
    assert len(errors) == 1 and f"{path} line 100: not valid JSON" in errors[0]


def test_a_bad_middle_line_of_chatgpt_jsonl_is_named_and_the_rest_read(tmp_path):
    convs = json.loads(CHATGPT.read_text(encoding="utf-8"))
    path = tmp_path / "chats.jsonl"
    path.write_text(
        f'{json.dumps(convs[0])}\n{{"title": oops}}\n\n{json.dumps(convs[1])}\n', encoding="utf-8"
    )
    items = read(path)
    assert [type(i).__name__ for i in items] == ["Conversation", "Conversation", "ReadFailure"]
    assert items[2].describe().startswith(f"{path} line 2: not valid JSON")


def test_broken_pretty_printed_json_is_still_one_json_error(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(json.loads(CHATGPT.read_text()), indent=2)[:-40], encoding="utf-8")
    done = mnemo("convert", path, "--to", "portable")
    assert done.returncode == 2
    assert "not valid JSON" in done.stderr.decode() and "line 1" not in done.stderr.decode().split("(")[0]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_bom_reads_like_utf8(tmp_path, encoding):
    text = CHATGPT.read_text(encoding="utf-8")
    path = tmp_path / "conversations.json"
    bom = "\ufeff" if encoding == "utf-16-be" else ""  # Python's "utf-16" writes its own BOM
    path.write_bytes((bom + text).encode(encoding))
    got = [c.title for c in read(path)]
    assert got == [c.title for c in read(CHATGPT)] and len(got) == 2


def test_utf16_without_a_bom_is_named_in_the_error(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_bytes(CHATGPT.read_text(encoding="utf-8").encode("utf-16-le"))
    done = mnemo("convert", path, "--to", "portable")
    assert done.returncode == 2 and "UTF-16" in done.stderr.decode()


def test_messages_without_content_type_are_text_when_their_parts_are_strings(tmp_path):
    data = json.loads(CHATGPT_ONE.read_text(encoding="utf-8"))
    trimmed = 0
    for conv in [data]:
        for node in conv["mapping"].values():
            content = (node.get("message") or {}).get("content") or {}
            if content.get("content_type") == "text":
                del content["content_type"]
                trimmed += 1
    path = tmp_path / "trimmed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    (before,), (after,) = read(CHATGPT_ONE), read(path)
    assert trimmed > 2
    texts = [[p.text for p in m.parts if isinstance(p, TextPart)] for m in after.messages]
    assert texts == [[p.text for p in m.parts if isinstance(p, TextPart)] for m in before.messages]
    assert not any(w.code == "UNKNOWN_CONTENT_TYPE" for w in after.warnings)


def test_an_empty_export_is_no_conversations_not_an_unknown_format(tmp_path, mnemo_home):
    path = tmp_path / "conversations.json"
    path.write_text("[]\n", encoding="utf-8")
    done = mnemo("convert", path, "--to", "markdown")
    assert done.returncode == 0 and "no conversations" in done.stderr.decode()
    assert "not a conversation format" not in done.stderr.decode()
    done = mnemo("import", "--no-tokens", path)
    assert done.returncode == 0 and "imported 0, updated 0, unchanged 0, failed 0" in done.stdout.decode()


def test_a_parent_cycle_keeps_every_message(tmp_path):
    data = json.loads(CHATGPT_ONE.read_text(encoding="utf-8"))
    mapping = data["mapping"]
    with_messages = [k for k, n in mapping.items() if n.get("message")]
    root = next(k for k, n in mapping.items() if n.get("parent") is None)
    first_child = mapping[root]["children"][0]
    mapping[first_child]["parent"] = with_messages[-1]  # the chain now loops back on itself
    mapping[root]["children"] = []
    path = tmp_path / "looped.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    (before,), (after,) = read(CHATGPT_ONE), read(path)
    assert len(after.messages) == len(before.messages) >= 8
    assert {m.id for m in after.messages} == {m.id for m in before.messages}
    assert any(w.code == "PARENT_CYCLE" for w in after.warnings)


def test_an_import_error_names_the_path_once(tmp_path, mnemo_home):
    path = tmp_path / "notes.json"
    path.write_text('{"hello": "world"}', encoding="utf-8")
    done = mnemo("import", "--no-tokens", path)
    assert done.returncode == 1
    (line,) = done.stderr.decode().splitlines()
    assert line.count(str(path)) == 1 and "not a conversation format" in line


def test_a_corrupt_claude_chat_messages_is_named_and_the_other_conversations_kept():
    data = json.loads(CLAUDE.read_text(encoding="utf-8"))
    broken = copy.deepcopy(data)
    broken[0]["chat_messages"] = "<html>503</html>"
    from mnemosyne.readers.base import RawInput

    items = list(read_raw(RawInput(name="conversations.json", data=broken, raw=b""), ReadContext()))
    assert isinstance(items[0], ReadFailure)
    assert "chat_messages is corrupt" in items[0].describe() and "no uuid" not in items[0].describe()
    assert [c.id for c in items[1:]] == [c.id for c in read(CLAUDE)[1:]]


def test_a_claude_message_without_uuid_is_kept_under_an_id_of_its_own():
    data = json.loads(CLAUDE.read_text(encoding="utf-8"))
    del data[0]["chat_messages"][0]["uuid"]
    from mnemosyne.readers.base import RawInput

    conv = next(iter(read_raw(RawInput(name="conversations.json", data=data, raw=b""), ReadContext())))
    assert isinstance(conv, Conversation) and len(conv.messages) == len(read(CLAUDE)[0].messages)
    assert any(w.code == "MISSING_MESSAGE_ID" for w in conv.warnings)
