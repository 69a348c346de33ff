"""Gemini reader: the site's real batchexecute hNvQHb response (more_sites fixture), as a devtools copy and as
the extension sends it, paged; damaged copies give typed errors, never a traceback."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from mnemosyne import canonical
from mnemosyne.errors import InputError
from mnemosyne.model import Conversation, ReasoningPart, TextPart, UnknownPart
from mnemosyne.readers import RawInput, ReadContext, detect, gemini, load_path, read_raw
from mnemosyne.service.save import read_payload
from support.cli import run_cli

FIXTURE = Path(__file__).parent / "fixtures/more_sites/gemini/blackiya__hNvQHb_sample_gemini_conversation.txt"
WORD = re.compile(r"\w+")


def response_text() -> str:
    return FIXTURE.read_text(encoding="utf-8")


def read_payload_object(payload: dict) -> Conversation:
    return read_payload(payload, "gemini_api", "https://gemini.google.com/app/9cf87bbddf79d497")


def source_texts(text: str) -> list[str]:
    """Every distinct prose string of the reply, found without the reader: the chunk line parsed by hand, its
    reply string parsed, every string with two or more words kept unless another one holds all its words."""
    rows = json.loads(text.split("\n")[3])
    reply = json.loads(rows[0][2])
    found: list[str] = []

    def walk(value):
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and len(WORD.findall(value)) >= 2 and " " in value.strip():
            found.append(value)

    walk(reply)
    bags = [Counter(WORD.findall(s.casefold())) for s in found]
    return [
        s
        for i, s in enumerate(found)
        if not any(
            j != i and not (bags[i] - bags[j]) and (len(found[j]) > len(s) or j < i)
            for j in range(len(found))
        )
    ]


def output_words(conv: Conversation) -> Counter[str]:
    words: Counter[str] = Counter()
    for message in conv.messages:
        words.update(WORD.findall((message.model or "").casefold()))
        for part in message.parts:
            for value in (getattr(part, "text", None), part.raw if isinstance(part, UnknownPart) else None):
                if isinstance(value, str):
                    words.update(WORD.findall(value.casefold()))
    return words


def test_the_real_response_is_read_with_no_text_lost():
    [raw] = load_path(FIXTURE)
    assert detect(raw) is gemini
    [conv] = list(read_raw(raw))
    assert isinstance(conv, Conversation)
    expected = source_texts(response_text())
    # the prompt, the answer, its thinking and the model's name carry every word of the reply
    assert len(expected) == 4
    source = Counter(w for s in expected for w in WORD.findall(s.casefold()))
    out = output_words(conv)
    assert sum(source.values()) > 8000
    assert not source - out, "words of the reply missing from the conversation"
    assert sum(out.values()) == sum(source.values()), "a text was read twice"
    assert conv.warnings == []


def test_turns_become_prompt_answer_and_thinking():
    [conv] = list(read_raw(load_path(FIXTURE)[0]))
    user, answer = conv.messages
    assert conv.source.site == "gemini" and conv.source.conversation_id == "c_9cf87bbddf79d497"
    assert conv.source.url == "https://gemini.google.com/app/9cf87bbddf79d497"
    assert user.role == "user" and user.parts[0].text.startswith("ROLE: Expert academic translator")
    assert answer.role == "assistant" and answer.parent == user.id and answer.model == "3 Pro"
    assert [p.type for p in answer.parts] == ["reasoning", "text"]
    assert isinstance(answer.parts[0], ReasoningPart) and answer.parts[0].text.startswith(
        "**Assessing Translation"
    )
    assert isinstance(answer.parts[1], TextPart) and answer.parts[1].text.startswith(
        "P258071 - The Shaykh: Yes."
    )
    assert conv.created_at is not None and conv.created_at.isoformat() == "2026-01-19T16:48:00.788813+00:00"
    assert conv.active_leaf == answer.id == "rc_c65d4f4fbdc1d5ca"
    assert canonical.dumps(canonical.loads(canonical.dumps(conv))) == canonical.dumps(conv)


def test_the_extensions_payload_reads_pages_oldest_first_and_each_turn_once():
    text = response_text()
    rows = json.loads(text.split("\n")[3])
    reply = json.loads(rows[0][2])
    later = json.loads(json.dumps(reply[0][0]))
    later[0][1] = "r_later"
    later[2][0] = ["a second question asked later"]
    later[3][0][0][0] = later[3][3] = "rc_later"
    later[3][0][0][1] = ["the second answer"]
    later[3][12] = None  # the first answer's paragraphs, which would be kept as text the answer lacks
    later[4] = [later[4][0] + 60, 0]
    newer_page = [[later, reply[0][0]], None, None, 0]  # the site lists newest first; the first turn again
    rows[0][2] = json.dumps(newer_page)
    line = json.dumps(rows)
    page_two = f")]}}'\n\n{len(line)}\n{line}\n"
    payload = {**gemini.wrap(page_two), "title": "Hadith Authenticity"}
    payload["responses"].append(text)
    conv = read_payload_object(payload)
    assert [m.id for m in conv.messages] == [
        "r_8ca1c17951b012db:prompt",
        "rc_c65d4f4fbdc1d5ca",
        "r_later:prompt",
        "rc_later",
    ]
    assert conv.messages[2].parent == "rc_c65d4f4fbdc1d5ca" and conv.active_leaf == "rc_later"
    assert conv.title == "Hadith Authenticity" and conv.provenance.method == "site_api"
    assert [w.code for w in conv.warnings] == ["DUPLICATE_MESSAGE"]


def test_text_at_an_unknown_place_is_kept_and_counted():
    text = response_text()
    rows = json.loads(text.split("\n")[3])
    reply = json.loads(rows[0][2])
    reply[0][0][3].append([["a caption the reader has never seen before"]])
    rows[0][2] = json.dumps(reply)
    line = json.dumps(rows)
    conv = read_payload_object(gemini.wrap(f")]}}'\n\n{len(line)}\n{line}\n"))
    kept = [p for m in conv.messages for p in m.parts if isinstance(p, UnknownPart)]
    assert [p.raw for p in kept] == ["a caption the reader has never seen before"]
    assert [(w.code, w.count) for w in conv.warnings] == [("GEMINI_UNKNOWN_TEXT", 1)]


def damaged_copies() -> dict[str, object]:
    text = response_text()
    rows = json.loads(text.split("\n")[3])
    as_number = json.loads(json.dumps(rows))
    as_number[0][2] = 12
    turns_object = json.loads(json.dumps(rows))
    turns_object[0][2] = json.dumps([{"turns": 1}, None])
    error_row = [["wrb.fr", "hNvQHb", None, None, None, [7]]]
    return {
        "truncated": text[: len(text) // 2],
        "no guard": text.replace(")]}'", "", 1),
        "reply is a number": f")]}}'\n\n9\n{json.dumps(as_number)}\n",
        "turns are an object": f")]}}'\n\n9\n{json.dumps(turns_object)}\n",
        "site error row": f")]}}'\n\n9\n{json.dumps(error_row)}\n",
        "nested too deeply": ")]}'\n\n9\n" + "[" * 100_000 + "]" * 100_000 + "\n",
        "responses a string": "not a list",
        "response a number": [5],
    }


@pytest.mark.parametrize("damage", list(damaged_copies()))
def test_damaged_copies_are_typed_errors(damage):
    value = damaged_copies()[damage]
    payload = (
        {**gemini.wrap(""), "responses": value}
        if not isinstance(value, str) or damage == "responses a string"
        else gemini.wrap(value)
    )
    with pytest.raises(InputError) as caught:
        read_payload_object(payload)
    assert caught.value.code == "BAD_INPUT"


def test_a_truncated_devtools_copy_is_one_error_line_from_the_cli(tmp_path):
    path = tmp_path / "hNvQHb.txt"
    path.write_text(response_text()[:50_000], encoding="utf-8")
    done = run_cli(None, "convert", path, "--from", "gemini", "--to", "portable", check=False, text=True)
    assert done.returncode == 2
    assert "cut short" in done.stderr and "Traceback" not in done.stderr
    whole = tmp_path / "whole.txt"
    whole.write_text(response_text(), encoding="utf-8")
    done = run_cli(None, "convert", whole, "--to", "portable", check=False, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["source"]["site"] == "gemini"


def test_a_page_cannot_save_a_gemini_reply_under_another_kind():
    with pytest.raises(InputError):
        read_payload(gemini.wrap(response_text()), "claude_api")
    assert read_payload(gemini.wrap(response_text()), "auto").source.site == "gemini"
    raw = RawInput(name="x", data={"format": "batchexecute", "rpcid": "MaZiqc", "responses": []}, raw=b"{}")
    assert not gemini.detect(raw)
    assert list(read_raw(RawInput(name="x", data=gemini.wrap(response_text()), raw=b"x"), ReadContext()))
