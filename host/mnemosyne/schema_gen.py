"""The JSON Schema of the conversation format, generated from model.Conversation.

`mnemo schema` prints it and host/mnemosyne/schema/conversation.v1.json is a
committed copy; tests/test_schema.py fails when the two drift (regenerate with
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
