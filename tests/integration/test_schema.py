"""The committed JSON Schema matches the models; documents validate; versions are checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemosyne import canonical
from mnemosyne.errors import SchemaVersionError
from mnemosyne.model import Conversation
from mnemosyne.readers import ReadFailure, load_path, read_raw
from mnemosyne.schema_gen import COMMITTED, committed_text, schema_text
from mnemosyne.writers import portable
from support.cli import run_cli

FIXTURES = Path(__file__).parents[1] / "fixtures"
CONVERSATION_FIXTURES = sorted(
    p
    for folder in ("chatgpt_api", "chatgpt_export", "chatgpt_synthetic", "claude_export")
    for p in (FIXTURES / folder).rglob("*.json")
)


def test_committed_schema_is_the_generated_one():
    assert committed_text() == schema_text(), (
        f"{COMMITTED} is stale: regenerate with `mnemo schema > host/mnemosyne/schema/conversation.v1.json`"
    )


def test_schema_describes_the_format():
    schema = json.loads(committed_text())
    assert schema["title"] == "Conversation" and schema["additionalProperties"] is False
    assert {"id", "source", "provenance"} <= set(schema["required"])
    assert schema["properties"]["format"]["const"] == "mnemosyne.conversation"
    part_types = {
        d["properties"]["type"]["const"] for name, d in schema["$defs"].items() if name.endswith("Part")
    }
    assert part_types == {
        "text",
        "code",
        "code_output",
        "attachment",
        "tool_call",
        "tool_result",
        "reasoning",
        "citation",
        "artifact",
        "system_error",
        "unknown",
    }


def test_mnemo_schema_prints_it():
    assert run_cli(None, "schema").stdout == committed_text()


def test_unsupported_major_version_names_both_versions():
    doc = json.loads(portable.write(_a_conversation()))
    doc["schema_version"] = "2.0"
    with pytest.raises(SchemaVersionError) as caught:
        canonical.loads(json.dumps(doc))
    assert "2.0" in caught.value.message and "1.x" in caught.value.message and "1.0" in caught.value.message
    doc["schema_version"] = "1.7"  # a newer minor version of the same major still reads
    assert canonical.loads(json.dumps(doc)).schema_version == "1.7"


def _a_conversation() -> Conversation:
    [conv] = [
        c
        for raw in load_path(FIXTURES / "chatgpt_export" / "echomine_001_simple_text.json")
        for c in read_raw(raw)
    ]
    return conv


def test_every_fixture_writes_a_valid_document_that_reads_back_identically():
    assert len(CONVERSATION_FIXTURES) >= 25
    count = 0
    for path in CONVERSATION_FIXTURES:
        for raw in load_path(path):
            for conv in read_raw(raw):
                if isinstance(conv, ReadFailure):
                    continue
                out = portable.write(conv)
                again = Conversation.model_validate_json(out)
                assert again == conv, path
                assert portable.write(again) == out, path  # byte-identical round trip
                count += 1
    assert count >= 110  # 85 in the redacted Claude export alone


def test_canonical_dump_cleans_lone_surrogates_and_non_finite_numbers_in_raw_data():
    from mnemosyne.model import Message, Provenance, Source, UnknownPart

    raw = {"s": "a\ud800b", "n": float("nan"), "i": float("inf"), 1: [float("-inf"), "\udfff"]}
    conv = Conversation(
        id="c",
        source=Source(site="chatgpt"),
        messages=[Message(id="m", role="user", parts=[UnknownPart(source_type="x", raw=raw)])],
        provenance=Provenance(method="manual", reader="t", reader_version="0", raw_sha256="0" * 64),
    )
    text = canonical.dumps(conv)
    text.encode("utf-8")  # storable
    part = json.loads(text)["messages"][0]["parts"][0]["raw"]
    assert part == {"s": "a?b", "n": None, "i": None, "1": [None, "?"]}
    assert canonical.dumps(canonical.loads(text)) == text


@pytest.mark.parametrize(
    "raw",
    [
        {"b": 1, "a": ["x", {"d": 2.5, "c": None}]},
        {"nan": float("nan"), "inf": [float("-inf")]},
        {"s": "lone \ud800 surrogate", "k": {"\udfff": 1}},
        {1: "int key", "z": {True: "bool key", None: "none key"}},
    ],
)
def test_raw_bytes_for_provenance_are_the_cleaned_sorted_dump(raw):
    from mnemosyne.canonical import _clean
    from mnemosyne.readers.base import dump_raw

    expected = json.dumps(_clean(raw), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert dump_raw(raw) == expected.encode("utf-8")
