"""A large export is read in batches, and gives the same conversations as reading it whole."""

from __future__ import annotations

import json
import zipfile

import pytest

from mnemosyne.errors import InputError
from mnemosyne.readers import ReadContext, load_path, read_raw, streaming

FIX = "chatgpt_export/librechat_chatgpt-export.json"


def big_export(fixtures, tmp_path, copies: int = 60):
    base = json.loads((fixtures / FIX).read_text(encoding="utf-8"))
    items = []
    for n in range(copies):
        for conv in base:
            items.append(
                dict(conv, id=f"{conv['id']}-{n}", conversation_id=f"{conv['id']}-{n}", title=f"copy {n}")
            )
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")
    return path, len(items)


def conversations(inputs):
    return [item for raw in inputs for item in read_raw(raw, ReadContext())]


def test_large_array_is_read_in_batches_with_the_same_result(fixtures, tmp_path, monkeypatch):
    path, count = big_export(fixtures, tmp_path)
    batches = list(streaming.iter_inputs(path))
    assert len(batches) > 1 and all(len(b.data) <= streaming.BATCH for b in batches)
    # bounded by bytes too: a batch ends with the element that reaches BATCH_BYTES, or the file's last
    assert all(sum(map(len, b.item_raw[:-1])) < streaming.BATCH_BYTES for b in batches)
    assert all(
        sum(map(len, b.item_raw)) >= streaming.BATCH_BYTES or len(b.data) == streaming.BATCH
        for b in batches[:-1]
    )
    assert [b.first_index for b in batches] == [
        sum(len(b.data) for b in batches[:n]) for n in range(len(batches))
    ]
    assert batches[-1].progress == (batches[-1].progress[1], batches[-1].progress[1])
    streamed = conversations(batches)
    whole = conversations(load_path(path))
    assert [c.id for c in streamed] == [c.id for c in whole] and len(streamed) == count
    assert [len(c.messages) for c in streamed] == [len(c.messages) for c in whole]
    assert {c.provenance.method for c in streamed} == {"official_export"}


def test_each_batch_reports_the_exact_byte_it_has_read_to(fixtures, tmp_path, monkeypatch):
    """Progress is the byte offset just past the batch's last element (and its comma), counted without
    encoding the window again: right with multi-byte text and windows that are dropped as they go."""
    base = json.loads((fixtures / FIX).read_text(encoding="utf-8"))
    items = [dict(conv, id=f"{conv['id']}-{n}", title=f"第{n}份 ✓ copy") for n in range(40) for conv in base]
    path = tmp_path / "conversations.json"
    data = json.dumps(items, ensure_ascii=False, indent=1).encode("utf-8")
    path.write_bytes(data)
    monkeypatch.setattr(streaming, "WINDOW", 4096)
    monkeypatch.setattr(streaming, "BATCH", 7)
    batches = list(streaming.iter_inputs(path))
    assert len(batches) > 3
    ends, at = [], data.index(b"[") + 1
    for raw in batches[:-1]:
        for element in raw.item_raw:
            at = data.index(element, at) + len(element)
            at += len(data[at:]) - len(data[at:].lstrip(b" \n\r\t"))
            at += data[at : at + 1] == b","
        ends.append(at)
    assert [b.progress for b in batches[:-1]] == [(end, len(data)) for end in ends]
    assert batches[-1].progress == (len(data), len(data))


def test_zip_members_stream_too(fixtures, tmp_path, monkeypatch):
    path, count = big_export(fixtures, tmp_path, copies=10)
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(path, "conversations.json")
    assert len(conversations(streaming.iter_inputs(archive))) == count


def test_a_broken_tail_keeps_what_came_before(fixtures, tmp_path, monkeypatch):
    path, count = big_export(fixtures, tmp_path, copies=40)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: int(len(text) * 0.8)], encoding="utf-8")  # cut off mid-conversation
    seen = []
    with pytest.raises(InputError) as err:
        for raw in streaming.iter_inputs(path):
            seen += conversations([raw])
    assert "conversations.json" in err.value.message
    assert 0 < len(seen) < count


def test_mnemo_import_streams_a_large_export(fixtures, tmp_path, mnemo_home, monkeypatch, capsys):
    from mnemosyne.archive import open_archive
    from mnemosyne.cli.main import main

    path, count = big_export(fixtures, tmp_path, copies=20)
    assert main(["import", "--no-tokens", str(path)]) == 0
    assert f"imported {count}, updated 0" in capsys.readouterr().out
    with open_archive() as arc:
        assert arc.stats()["conversations"] == count


def test_streamed_items_with_lone_surrogates_are_made_well_formed(fixtures, tmp_path, monkeypatch):
    path, count = big_export(fixtures, tmp_path, copies=5)
    text = path.read_text(encoding="utf-8").replace('"parts": [\n', '"parts": [\n"\\udc00 odd",\n', 3)
    path.write_text(text, encoding="utf-8")
    convs = conversations(streaming.iter_inputs(path))
    assert len(convs) == count
    texts = [p.text for c in convs for m in c.messages for p in m.parts if getattr(p, "text", None)]
    assert any("? odd" in t for t in texts) and not any("\udc00" in t for t in texts)


@pytest.mark.parametrize("window", [1000, 4097])
def test_a_window_smaller_than_a_conversation_reads_the_same_across_split_characters(
    fixtures, tmp_path, monkeypatch, window
):
    path, count = big_export(fixtures, tmp_path, copies=8)
    text = path.read_text(encoding="utf-8").replace('"parts": [\n', '"parts": [\n"宽字符 🎉 é",\n')
    path.write_text("\ufeff" + text, encoding="utf-8")  # a BOM, and characters of 2, 3 and 4 bytes
    whole = conversations(load_path(path))
    monkeypatch.setattr(streaming, "WINDOW", window)
    batches = list(streaming.iter_inputs(path))
    assert batches[-1].progress == (path.stat().st_size,) * 2
    streamed = conversations(batches)
    assert [c.model_dump() for c in streamed] == [c.model_dump() for c in whole] and len(streamed) == count


def test_streamed_provenance_hashes_each_elements_own_bytes_and_ids_stay_as_read_whole(
    fixtures, tmp_path, monkeypatch
):
    """Provenance of a streamed element is the sha256 of its bytes in the file (no re-dump); ids are the
    same as reading the file whole, for conversations with a site id and for id-less ones."""
    import hashlib

    path, count = big_export(fixtures, tmp_path, copies=4)
    items = json.loads(path.read_text(encoding="utf-8"))
    for conv in items[:3]:  # id-less: their ids come from the content
        conv.pop("id"), conv.pop("conversation_id")
    elements = [json.dumps(conv, ensure_ascii=False, indent=2) for conv in items]
    path.write_text("[\n" + ",\n  ".join(elements) + "\n]", encoding="utf-8")
    streamed = conversations(streaming.iter_inputs(path))
    whole = conversations(load_path(path))
    assert len(streamed) == count
    assert [c.id for c in streamed] == [c.id for c in whole]
    assert len({c.id for c in streamed}) == count
    digests = [hashlib.sha256(e.encode("utf-8")).hexdigest() for e in elements]
    assert [c.provenance.raw_sha256 for c in streamed] == digests


def test_streamed_claude_export_hashes_each_elements_own_bytes(fixtures, tmp_path, monkeypatch):
    import hashlib

    base = json.loads((fixtures / "claude_export/simonw_claude_example.json").read_text(encoding="utf-8"))
    base = base if isinstance(base, list) else [base]
    items = [dict(conv, uuid=f"{conv['uuid']}-{n}") for n in range(20) for conv in base]
    elements = [json.dumps(conv, ensure_ascii=False) for conv in items]
    path = tmp_path / "conversations.json"
    path.write_text("[" + ", ".join(elements) + "]", encoding="utf-8")
    streamed = conversations(streaming.iter_inputs(path))
    assert [c.id for c in streamed] == [c.id for c in conversations(load_path(path))]
    assert [c.provenance.raw_sha256 for c in streamed] == [
        hashlib.sha256(e.encode("utf-8")).hexdigest() for e in elements
    ]


def _odd_export(fixtures, tmp_path, indent):
    """An export whose elements msgspec refuses here and there (NaN, a number out of range, a lone
    surrogate escape), and whose nested values open like an element, so some guessed cuts are wrong."""
    base = json.loads((fixtures / FIX).read_text(encoding="utf-8"))
    items = []
    for n in range(30):
        for conv in base:
            item = {"title": f'copy {n} }}, {{"title": ✓', **dict(conv, id=f"{conv['id']}-{n}")}
            item["conversation_id"] = item["id"]
            item["extra"] = [{"title": "nested"}, {"title": "again", "n": n}]
            items.append(item)
    text = json.dumps(items, ensure_ascii=False, indent=indent)
    odd = ['"extra": [', '"extra": [NaN, 1e400, 123456789012345678901234567890, "\\udc00 odd", ']
    if indent is None:
        text = text.replace(odd[0], odd[1], 7)
    else:
        text = text.replace(odd[0] + "\n", odd[1] + "\n", 7)
    path = tmp_path / "conversations.json"
    path.write_text(text, encoding="utf-8")
    return path, len(items)


@pytest.mark.parametrize("indent", [None, 1])
@pytest.mark.parametrize("window", [4096, 1024 * 1024])
def test_elements_msgspec_refuses_or_cuts_that_are_wrong_read_as_json_reads_them(
    fixtures, tmp_path, monkeypatch, indent, window
):
    path, count = _odd_export(fixtures, tmp_path, indent)
    whole = load_path(path)  # parsed whole by json
    monkeypatch.setattr(streaming, "WINDOW", window)
    batches = list(streaming.iter_inputs(path))
    streamed = [item for raw in batches for item in raw.data]
    assert len(streamed) == count
    assert json.dumps(streamed, sort_keys=True) == json.dumps(whole[0].data, sort_keys=True)
    assert [s for raw in batches for s in raw.item_raw] == whole[0].item_raw
    assert [c.model_dump() for c in conversations(batches)] == [c.model_dump() for c in conversations(whole)]


def test_a_plain_export_is_parsed_by_msgspec_without_the_json_fallback(fixtures, tmp_path, monkeypatch):
    path, count = big_export(fixtures, tmp_path)
    monkeypatch.setattr(streaming, "WINDOW", 64 * 1024)
    fallbacks = []
    one_element = streaming._Window.one_element
    monkeypatch.setattr(
        streaming._Window, "one_element", lambda self, d: fallbacks.append(self.pos) or one_element(self, d)
    )
    assert len(conversations(streaming.iter_inputs(path))) == count
    assert fallbacks == []


@pytest.mark.parametrize("where", ["string", "between"])
def test_bytes_that_are_not_utf8_are_a_typed_error_naming_their_byte(fixtures, tmp_path, monkeypatch, where):
    path, _count = big_export(fixtures, tmp_path, copies=10)
    data = path.read_bytes()
    at = data.index(b'"title": "copy 7"') + (len(b'"title": "copy') if where == "string" else -1)
    path.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    monkeypatch.setattr(streaming, "WINDOW", 4096)
    with pytest.raises(InputError) as err:
        conversations(streaming.iter_inputs(path))
    assert err.value.message == f"{path}: not UTF-8 text (byte {at})"


def test_a_broken_conversation_alone_in_its_batch_is_reported_by_its_place_and_the_rest_converted(
    fixtures, tmp_path, monkeypatch, capsys
):
    """A long conversation fills a batch by itself: one that is broken is a failure of that conversation,
    named by its place in the file, not of the whole input."""
    from mnemosyne.cli.main import main

    path, count = big_export(fixtures, tmp_path, copies=3)
    items = json.loads(path.read_text(encoding="utf-8"))
    items[0]["mapping"] = items[4]["mapping"] = "not a mapping"  # (the first: before any was recognised)
    path.write_text(json.dumps(items), encoding="utf-8")
    monkeypatch.setattr(streaming, "BATCH_BYTES", 1)  # one conversation a batch
    assert all(len(raw.data) == 1 for raw in streaming.iter_inputs(path))
    assert main(["convert", str(path), "--to", "markdown", "-o", str(tmp_path / "out")]) == 1
    assert len(list((tmp_path / "out").iterdir())) == count - 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "wrote" not in line]
    assert len(errors) == 2 and f"{path}[0]" in errors[0] and f"{path}[4] " in errors[1]
