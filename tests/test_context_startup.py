"""A conversation that fits its budget by its UTF-8 byte count is built without loading a tokenizer:
the same output as an exactly counted build, with the count reported as an upper bound."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FILE = Path(__file__).parent / "fixtures" / "chatgpt_export" / "echomine_001_simple_text.json"

BUILD = """
import json, sys
from mnemosyne.service import context_for, conversation_from_file
exact = len(sys.argv) > 4
r = context_for(conversation_from_file(sys.argv[1]), sys.argv[2], budget=int(sys.argv[3]), exact_tokens=exact)
print(json.dumps({"text": r.text, "report": r.report, "tiktoken": "tiktoken" in sys.modules}))
"""


def fresh_build(target: str, budget: int, preload: bool, exact: bool = False) -> dict:
    code = ("from mnemosyne import tokens; tokens.encoding('o200k_base')\n" if preload else "") + BUILD
    out = subprocess.run(
        [sys.executable, "-c", code, str(FILE), target, str(budget), *(["exact"] if exact else [])],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize("target", ["chatgpt", "claude"])
def test_small_chat_needs_no_tokenizer_and_matches_the_exact_build(target):
    size = FILE.stat().st_size
    lazy = fresh_build(target, 4 * size, preload=False)
    exact = fresh_build(target, 4 * size, preload=True)
    assert not lazy["tiktoken"]  # nothing loaded a tokenizer
    assert lazy["text"] == exact["text"]
    assert exact["report"]["tokens_exact"] is True
    assert lazy["report"]["tokens_exact"] is False
    assert lazy["report"]["tokens"] >= exact["report"]["tokens"]  # an upper bound, never under
    assert lazy["report"]["tokens"] <= lazy["report"]["limit"]
    assert {k: v for k, v in lazy["report"].items() if k not in ("tokens", "tokens_exact")} == {
        k: v for k, v in exact["report"].items() if k not in ("tokens", "tokens_exact")
    }


def test_a_chat_over_the_budget_by_bytes_is_counted_exactly():
    lazy = fresh_build("chatgpt", 300, preload=False)
    assert lazy["report"]["tokens_exact"] is True and lazy["tiktoken"]
    assert lazy["report"]["tokens"] <= 300


def test_a_caller_that_shows_the_count_gets_it_exact():
    """The host passes exact_tokens: the extension shows `tokens` as the count."""
    size = FILE.stat().st_size
    asked = fresh_build("chatgpt", 4 * size, preload=False, exact=True)
    preloaded = fresh_build("chatgpt", 4 * size, preload=True)
    assert asked["report"]["tokens_exact"] is True
    assert asked["report"]["tokens"] == preloaded["report"]["tokens"]
    assert asked["text"] == preloaded["text"]
