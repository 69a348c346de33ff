"""The committed capture JSON Schema (what the extension's tests validate content-script output against)
is the one the host's pydantic capture model generates, and the model accepts what the schema describes."""

from __future__ import annotations

import json

from mnemosyne.schema_gen import CAPTURE_COMMITTED, capture_schema_text


def test_committed_capture_schema_is_generated_from_the_model():
    assert CAPTURE_COMMITTED.read_text(encoding="utf-8") == capture_schema_text(), (
        "regenerate host/mnemosyne/schema/capture.v1.json (command in mnemosyne/schema_gen.py)"
    )


def test_schema_is_strict_about_the_shape():
    schema = json.loads(capture_schema_text())
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) >= {"format", "version", "site", "url", "captured_at", "complete", "turns"}
    turn = schema["$defs"]["CaptureTurn"]
    assert turn["additionalProperties"] is False
    assert turn["properties"]["role"]["enum"] == ["user", "assistant"]
