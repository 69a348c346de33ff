"""The JSON Schema of the conversation format, generated from model.Conversation.

`mnemo schema` prints it and host/mnemosyne/schema/conversation.v1.json is a
committed copy; tests/integration/test_schema.py fails when the two drift (regenerate with
`mnemo schema > host/mnemosyne/schema/conversation.v1.json`).
"""

from __future__ import annotations

import json
from pathlib import Path

from .model import Conversation

COMMITTED = Path(__file__).with_name("schema") / "conversation.v1.json"


def schema_text() -> str:
    return json.dumps(Conversation.model_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def committed_text() -> str:
    return COMMITTED.read_text(encoding="utf-8")


# The extension's page capture (readers/capture.py CapturePayload): the extension's JS tests validate what
# the content scripts emit against this committed copy; tests/unit/test_capture_schema.py keeps it current.
# Regenerate: python -c "from mnemosyne.schema_gen import capture_schema_text as s; print(s(), end='')" \
#   > host/mnemosyne/schema/capture.v1.json
CAPTURE_COMMITTED = Path(__file__).with_name("schema") / "capture.v1.json"


def capture_schema_text() -> str:
    from .readers.capture import CapturePayload  # (the readers: the conversation's schema needs none)

    schema = CapturePayload.model_json_schema()
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
