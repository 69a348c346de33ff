"""grok.com reader: the real network capture (response-node, load-responses, the answer stream), read with
no text lost; what the extension sends; damaged copies give typed errors."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from mnemosyne.errors import InputError
from mnemosyne.model import Conversation, ReasoningPart, TextPart
from mnemosyne.readers import detect, load_bytes, load_path, read_raw
from support.cli import run_cli

HAR = Path(__file__).parents[1] / "fixtures" / "more_sites" / "grok" / "blackiya__grok.minimal.har.json"
CONVERSATION = "495b3f4a-b882-4ce6-b5c9-ee5d317c6d3b"
WORD = re.compile(r"\w+")


def read_one(raw_bytes: bytes, fmt: str | None = None) -> Conversation:
    items = [c for raw in load_bytes("grok.json", raw_bytes) for c in read_raw(raw, fmt=fmt)]
    assert len(items) == 1 and isinstance(items[0], Conversation), items
    return items[0]


def source_strings(body: str) -> list[str]:
    """Every `message` and `token` string of a body, found by pattern in the text (not by the reader's
    parser), the cut one read up to the capture's marker."""
    found = []
    for match in re.finditer(r'"(?:message|token)":"((?:[^"\\]|\\.)*)', body):
        text = match.group(1).removesuffix("...[TRUNCATED]")
        text = re.sub(r"\\(u[0-9a-fA-F]{0,3})?$", "", text)  # an escape the cut left open
        found.append(json.loads(f'"{text}"'))
    return [s for s in found if s.strip()]


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def output_words(conv: Conversation) -> Counter:
    """The words of every string the conversation holds (texts, reasoning, sources, kept raw JSON)."""
    return Counter(w for s in strings_in([m.model_dump() for m in conv.messages]) for w in WORD.findall(s))


def har_bodies() -> list[str]:
    har = json.loads(HAR.read_text(encoding="utf-8"))
    return [e["response"]["content"].get("text", "") for e in har["log"]["entries"]]


def test_the_capture_is_read_with_no_text_lost():
    conv = read_one(HAR.read_bytes())
    assert conv.source.site == "grok" and conv.source.conversation_id == CONVERSATION
    assert conv.source.url == f"https://grok.com/c/{CONVERSATION}"
    assert [m.role for m in conv.messages] == ["user", "assistant"]
    assert conv.messages[1].parent == conv.messages[0].id
    have = output_words(conv)
    strings = [s for body in har_bodies() for s in source_strings(body)]
    assert len(strings) == 4  # the user turn, two thinking tokens, the answer
    for text in strings:
        need = Counter(WORD.findall(text))
        assert not need - have, f"lost words of {text[:60]!r}: {list((need - have).items())[:5]}"


def test_the_cut_capture_is_partial_and_says_so():
    conv = read_one(HAR.read_bytes())
    assert conv.provenance.partial is True
    cut = [w for w in conv.warnings if w.code == "GROK_CUT_SHORT"]
    assert sum(w.count for w in cut) == 3  # /new, reconnect-response-v2 and load-responses were cut
    answer = conv.messages[1]
    assert any(isinstance(p, ReasoningPart) and "chatroom_send" in p.text for p in answer.parts)
    assert any(isinstance(p, TextPart) and p.text.startswith("P101391 - The Shaykh") for p in answer.parts)


def extension_payload() -> dict:
    """What the extension sends: the conversation's record, response-node, load-responses, joined."""
    return {
        "conversation": {"conversationId": "c0ffee00-0000-4000-8000-000000000001", "title": "Squares",
                         "createTime": "2026-02-18T18:07:57.870971Z", "modifyTime": "2026-02-18T18:09:00Z"},
        "responseNodes": [
            {"responseId": "u1", "sender": "human"},
            {"responseId": "a1", "sender": "ASSISTANT", "parentResponseId": "u1"},
        ],
        "responses": [
            {"responseId": "a1", "sender": "ASSISTANT", "parentResponseId": "u1", "message": "```python\nprint(4)\n```",
             "thinkingTrace": "Two squared is four.", "thinkingStartTime": "2026-02-18T18:08:00Z",
             "thinkingEndTime": "2026-02-18T18:08:03Z", "model": "grok-4",
             "webSearchResults": [{"url": "https://example.com/sq", "title": "Squares", "preview": "n times n"}],
             "generatedImageUrls": ["users/u/generated/img-1/image.jpg"],
             "toolResponses": [{"toolName": "calculator", "output": "4"}],
             "futureField": {"something": "new"}},
            {"responseId": "u1", "sender": "human", "message": "Square of 2 in Python?",
             "fileAttachments": ["f-1"], "fileAttachmentsMetadata": [
                 {"fileMetadataId": "f-1", "fileName": "notes.pdf", "fileMimeType": "application/pdf"}]},
        ],
    }  # fmt: skip


def test_the_extension_payload_keeps_every_part():
    conv = read_one(json.dumps(extension_payload()).encode())
    assert conv.title == "Squares" and conv.provenance.partial is False
    user, answer = conv.messages
    assert [p.type for p in user.parts] == ["text", "attachment"]
    assert user.parts[1].name == "notes.pdf" and user.parts[1].mime_type == "application/pdf"
    types = [p.type for p in answer.parts]
    assert types[:2] == ["reasoning", "text"] and answer.parts[0].duration_sec == 3
    assert "citation" in types and answer.model == "grok-4"
    image = next(p for p in answer.parts if p.type == "attachment")
    assert image.asset_pointer == "https://assets.grok.com/users/u/generated/img-1/image.jpg"
    kept = {p.source_type for p in answer.parts if p.type == "unknown"}
    assert kept == {"grok.toolResponses", "grok.futureField"}
    assert sum(w.count for w in conv.warnings if w.code == "GROK_UNKNOWN_FIELD") == 2


def test_the_answer_stream_alone_is_read():
    body = har_bodies()[1]  # reconnect-response-v2: the answer as it streamed, cut by the capture
    records = body.splitlines()
    whole = "\n".join(records[:-1]).encode()  # the frames the capture kept whole
    conv = read_one(whole)
    assert conv.messages[0].role == "assistant"
    assert "chatroom_send" in conv.messages[0].parts[0].text


def test_a_capture_cut_in_the_middle_is_a_typed_error():
    text = HAR.read_text(encoding="utf-8")
    with pytest.raises(InputError):
        load_bytes("grok.har", text[: len(text) // 2].encode())


def test_a_body_cut_with_no_marker_is_a_typed_error():
    har = json.loads(HAR.read_text(encoding="utf-8"))
    content = har["log"]["entries"][2]["response"]["content"]  # load-responses
    content["text"] = content["text"].replace("...[TRUNCATED]", "", 1)
    with pytest.raises(InputError, match="not valid JSON and not marked as cut short"):
        read_one(json.dumps(har).encode())


def test_a_stream_with_a_broken_line_inside_is_an_error():
    lines = har_bodies()[1].splitlines()
    broken = "\n".join([lines[0][:50], *lines[1:-1]]) + "\n"
    raw = load_bytes("stream.jsonl", broken.encode())[0]
    assert raw.bad_lines  # the loader sets the broken line aside ...
    items = list(read_raw(raw, fmt="grok"))
    assert any(type(i).__name__ == "ReadFailure" for i in items)  # ... and it is reported, never dropped


def test_responses_of_the_wrong_shape_are_a_typed_error():
    payload = copy.deepcopy(extension_payload())
    payload["responses"] = "not a list"
    payload["responseNodes"] = []
    with pytest.raises(InputError, match="holds no turns"):
        read_one(json.dumps(payload).encode(), fmt="grok")


def test_detected_and_imported_from_the_command_line(tmp_path, mnemo_home):
    raw = load_path(HAR)[0]
    assert detect(raw).NAME == "grok"
    done = run_cli(None, "import", "--no-tokens", HAR)
    assert "failed 0" in done.stdout + done.stderr or '"failed": 0' in done.stdout, done.stdout + done.stderr
    listed = run_cli(None, "import", "--no-tokens", "--from", "grok", HAR)
    assert listed.returncode == 0


def test_other_endpoints_in_a_capture_are_passed_over():
    har = json.loads(HAR.read_text(encoding="utf-8"))
    other = copy.deepcopy(har["log"]["entries"][3])
    other["request"]["url"] = f"https://grok.com/rest/app-chat/conversations/{CONVERSATION}/share-links"
    other["response"]["content"]["text"] = "<html>not JSON</html>"
    har["log"]["entries"].append(other)
    conv = read_one(json.dumps(har).encode())
    assert [m.role for m in conv.messages] == ["user", "assistant"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": "xy\\u00...[TRUNCATED]', {"a": "xy"}),  # inside an escape
        ('{"a": 1, "b": ...[TRUNCATED]', {"a": 1}),  # after a key
        ('{"a": 1, "bc...[TRUNCATED]', {"a": 1}),  # inside a key
        ('[{"a": ["x", "y...[TRUNCATED]', [{"a": ["x", "y"]}]),  # inside nested arrays
        ('{"a": "back\\\\...[TRUNCATED]', {"a": "back\\"}),  # after an escaped backslash
    ],
)
def test_a_cut_body_is_closed_where_it_stops(text, value):
    from mnemosyne.readers.cut_json import parse_body

    assert parse_body(text, "body") == (value, True)
