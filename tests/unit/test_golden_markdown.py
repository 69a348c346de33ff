"""Markdown output compared byte for byte with reviewed files in tests/golden/.

After a deliberate change to the Markdown writer (or a reader), regenerate with
`MNEMOSYNE_UPDATE_GOLDEN=1 python -m pytest tests/unit/test_golden_markdown.py`,
then read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mnemosyne.readers import load_path, read_raw
from mnemosyne.writers import markdown

HERE = Path(__file__).parents[1]
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("MNEMOSYNE_UPDATE_GOLDEN") == "1"

# golden file -> (fixture, index of the conversation in it)
CASES = {
    "chatgpt_code.md": ("chatgpt_export/echomine_003_with_code.json", 0),
    "chatgpt_python_tool.md": (
        "chatgpt_api/elinvoss/0198-AI_Origin_Inquiry-6983ee11-711c-832f-a7b6-2a0791c4f38e.json",
        0,
    ),
    "chatgpt_content_types.md": ("chatgpt_synthetic/echomine_openai_content_types.json", 0),
    "chatgpt_branches.md": ("chatgpt_export/librechat_chatgpt-tree.json", 0),
    "claude_tools.md": ("claude_export/echomine_claude_tool_messages.json", 0),
    "claude_artifacts.md": ("claude_export/simonw_claude_artifacts.json", 0),
}


@pytest.mark.parametrize("golden", sorted(CASES))
def test_markdown_matches_golden(golden):
    fixture, index = CASES[golden]
    convs = [c for raw in load_path(FIXTURES / fixture) for c in read_raw(raw)]
    produced = markdown.write(convs[index]).encode("utf-8")
    path = GOLDEN / golden
    if UPDATE:
        path.write_bytes(produced)
    assert path.exists(), f"missing {path}: run with MNEMOSYNE_UPDATE_GOLDEN=1"
    assert produced == path.read_bytes(), (
        f"{golden} differs; if the change is intended, regenerate and review it"
    )
