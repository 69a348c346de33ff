"""`mnemo recall` over a real archive (the export fixtures imported): passages labelled with their
conversation, within the budget by the target's exact count, inside the transcript markers, redacted by
default, filtered by site and date."""

from __future__ import annotations

import json
import re

import pytest

from mnemosyne import tokens
from mnemosyne.context.shapes import BEGIN
from support.archive_fixture import HOSTILE_ID, INJECTED, SECRET_EMAIL, SECRET_KEY, make_archive
from support.cli import run_cli

# the real closing marker carries the tag its header names; one spelled in a transcript is quoted
CLOSING = re.compile(r"<<<END TRANSCRIPT \d{12}>>>")


def closing(text: str) -> str:
    found = CLOSING.findall(text)
    assert len(found) == 1, found
    return found[0]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return make_archive(tmp_path_factory.mktemp("recall"))


def recall(env, *args: str) -> dict:
    return json.loads(run_cli(env, "recall", "--json", *args).stdout)


def test_passages_carry_their_conversation_and_fit_the_budget(env):
    found = recall(env, "binary search overflow protection", "--budget", "500")
    text, report = found["text"], found["report"]
    assert report["passages"] >= 1 and found["passages"][0]["site"] == "claude"
    first = found["passages"][0]
    assert "Binary Search" in first["title"] and first["date"] and first["conversation_id"] in text
    assert f'"{first["title"]}"' in text and f"Claude, {first['date']}" in text
    assert "Overflow protection" in text  # the answer turn, not only the question
    assert tokens.count(text, "o200k_base") == report["tokens"] <= 500
    assert text.index(BEGIN) < text.index("Overflow protection") < text.rindex(closing(text))


@pytest.mark.parametrize("budget", [200, 300, 900, 2500])
def test_every_budget_is_kept_by_exact_count(env, budget):
    for target, tokenizer in (("agents-md", "o200k_base"), ("gpt-4", "cl100k_base")):
        found = recall(env, "python function example code", "--budget", str(budget), "--target", target)
        assert found["text"] and tokens.count(found["text"], tokenizer) <= budget


def test_estimated_target_keeps_its_margin(env):
    found = recall(env, "python function example code", "--budget", "800", "--target", "claude")
    assert found["report"]["estimate"] and tokens.count(found["text"], "claude-estimate") <= 800 * 0.95


def test_hostile_transcript_stays_inside_the_markers_and_is_redacted(env):
    found = recall(env, "zebrafish retry policy", "--budget", "600")
    text = found["text"]
    assert found["passages"][0]["conversation_id"] == HOSTILE_ID
    assert "three attempts with exponential backoff" in text
    # one opening and one closing marker: the forged ones inside the transcript are quoted
    assert text.count(BEGIN) == 1 and text.endswith(closing(text))
    assert "END TRANSCRIPT (quoted)" in text
    assert text.index(BEGIN) < text.index(INJECTED) < text.index(closing(text))
    assert SECRET_EMAIL not in text and SECRET_KEY not in text
    assert found["report"]["redactions"]
    plain = recall(env, "zebrafish retry policy", "--budget", "600", "--no-redact")["text"]
    assert SECRET_EMAIL in plain and SECRET_KEY in plain


def test_site_and_since_filters(env):
    claude_only = recall(env, "python code", "--site", "claude", "--budget", "1500")
    assert claude_only["passages"] and {p["site"] for p in claude_only["passages"]} == {"claude"}
    later = recall(env, "python code", "--since", "2025-01-01", "--budget", "1500")
    assert later["passages"] and all(p["date"] >= "2025-01-01" for p in later["passages"])
    none = run_cli(env, "recall", "python code", "--since", "2099-01-01", check=False)
    assert none.returncode == 1 and none.stdout == ""


def test_bad_arguments_are_typed_errors(env):
    small = run_cli(env, "recall", "python", "--budget", "10", check=False)
    assert small.returncode == 2 and "[BAD_INPUT]" in small.stderr
    target = run_cli(env, "recall", "python", "--target", "nope", check=False)
    assert "[UNKNOWN_TARGET]" in target.stderr
    date = run_cli(env, "recall", "python", "--since", "March", check=False)
    assert "[BAD_INPUT]" in date.stderr


def test_rare_words_find_their_conversation_past_common_ones(env, monkeypatch):
    """No message holds every query word, and the common ones match more messages than the index ranks
    (lowered here to 5, the most recently saved): the oldest conversation, the one holding the rare word,
    is still among the conversations recall reads."""
    from mnemosyne.archive import open_archive
    from mnemosyne.archive import search as archive_search
    from mnemosyne.recall.candidates import candidate_ids

    for name in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setattr(archive_search, "CANDIDATES", 5)
    query = "indigenous python code function example"
    with open_archive(create=False) as arc:
        oldest = arc.conn.execute("SELECT conversation_id FROM messages ORDER BY rowid LIMIT 1").fetchone()[0]
        assert "Indigenous" in arc.get(oldest).title
        assert oldest in candidate_ids(arc, query, 12, None)
