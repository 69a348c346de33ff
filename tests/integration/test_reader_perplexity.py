"""Perplexity reader: the real answer stream (its last frame has the /rest/thread/{slug} entry shape), the
thread JSON the extension sends, read with no text lost; damaged copies give typed errors."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from mnemosyne.errors import InputError
from mnemosyne.model import CitationPart, Conversation, ReasoningPart, TextPart
from mnemosyne.readers import detect, load_bytes, load_path, read_raw
from support.cli import run_cli

STREAM = (
    Path(__file__).parents[1]
    / "fixtures"
    / "more_sites"
    / "perplexity"
    / "pplx-agent-tools__sse_example-com-prompt.events.jsonl"
)
WORD = re.compile(r"\w+")


def frames() -> list[dict]:
    return [json.loads(line) for line in STREAM.read_text(encoding="utf-8").splitlines() if line.strip()]


def completed() -> dict:
    return next(f for f in frames() if f.get("status") == "COMPLETED")


def read_one(data: bytes, fmt: str | None = None) -> Conversation:
    items = [c for raw in load_bytes("thread.json", data) for c in read_raw(raw, fmt=fmt)]
    assert len(items) == 1 and isinstance(items[0], Conversation), items
    return items[0]


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def words(texts: list[str]) -> Counter:
    return Counter(w for t in texts for w in WORD.findall(t))


def source_texts(entry: dict) -> list[str]:
    """What the page shows of an entry, found by walking the raw JSON for its text-bearing keys."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                text_key = key in ("query_str", "answer", "snippet", "name", "description", "query")
                # the FINAL step repeats the answer as JSON text
                if text_key and isinstance(item, str) and not item.lstrip().startswith("{"):
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk({k: v for k, v in entry.items() if k in ("query_str", "blocks")})
    return found


def test_the_stream_is_read_with_no_text_lost():
    conv = read_one(STREAM.read_bytes())
    entry = completed()
    assert conv.source.site == "perplexity" and conv.source.conversation_id == entry["thread_url_slug"]
    assert conv.title == entry["thread_title"] and conv.provenance.partial is False
    user, answer = conv.messages
    assert user.role == "user" and user.parts[0].text == entry["query_str"] and answer.parent == user.id
    have = words(strings_in([m.model_dump() for m in conv.messages]))
    texts = source_texts(entry)
    assert len(texts) > 20
    for text in texts:
        lost = words([text]) - have
        assert not lost, f"lost words of {text[:60]!r}: {list(lost.items())[:10]}"


def test_the_answer_its_research_and_its_sources_are_parts():
    conv = read_one(STREAM.read_bytes())
    answer = conv.messages[1]
    texts = [p for p in answer.parts if isinstance(p, TextPart)]
    assert len(texts) == 1  # ask_text repeats ask_text_0_markdown: kept once
    assert texts[0].text.startswith("This domain is for use in illustrative examples")
    steps = "\n".join(p.text for p in answer.parts if isinstance(p, ReasoningPart))
    assert "Searching the web" in steps and "Searching: https://example.com" in steps
    urls = [p.url for p in answer.parts if isinstance(p, CitationPart)]
    assert urls[0] == "https://example.com" and len(urls) == len(set(urls))
    assert answer.model == "turbo" and not conv.warnings


def thread(entries: list[dict]) -> dict:
    return {"status": "success", "entries": entries, "has_next_page": False}


def test_a_thread_of_two_entries_is_one_chain():
    first = completed()
    second = copy.deepcopy(first)
    second["backend_uuid"] = "00000000-0000-4000-8000-0000000000ff"
    second["query_str"] = "And example.org?"
    second["blocks"].append({"intended_usage": "image_mode_block", "image_mode_block": {"media_items": [1]}})
    conv = read_one(json.dumps(thread([first, second])).encode())
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]
    assert conv.messages[2].parent == conv.messages[1].id
    kept = [p for p in conv.messages[3].parts if p.type == "unknown"]
    assert [p.source_type for p in kept] == ["perplexity.image_mode_block"]
    assert [w.code for w in conv.warnings] == ["PERPLEXITY_UNKNOWN_BLOCK"]


def test_an_unfinished_stream_is_partial():
    pending = [f for f in frames() if f.get("status") == "PENDING"]
    data = "\n".join(json.dumps(f) for f in pending).encode()
    conv = read_one(data)
    assert conv.provenance.partial is True
    assert any(w.code == "PERPLEXITY_UNFINISHED" for w in conv.warnings)


def test_more_pages_than_sent_is_partial():
    data = thread([completed()])
    data["has_next_page"] = True
    assert read_one(json.dumps(data).encode()).provenance.partial is True


def test_damaged_copies_are_typed_errors():
    lines = STREAM.read_text(encoding="utf-8").splitlines()
    cut = "\n".join([*lines[:21], lines[21][: len(lines[21]) // 2]])  # cut inside the COMPLETED frame
    raw = load_bytes("cut.jsonl", cut.encode())[0]
    items = list(read_raw(raw))
    assert [type(i).__name__ for i in items] == ["Conversation", "ReadFailure"]
    assert (
        items[0].provenance.partial is True
    )  # the answer as the last whole frame had it, said to be partial
    with pytest.raises(InputError):
        load_bytes("cut.jsonl", lines[21][:5000].encode())  # one broken frame: nothing to read
    with pytest.raises(InputError, match="no entries"):
        read_one(json.dumps({"entries": []}).encode(), fmt="perplexity")
    with pytest.raises(InputError, match="not a Perplexity thread"):
        read_one(json.dumps({"entries": "x"}).encode(), fmt="perplexity")


def test_detected_and_imported_from_the_command_line(mnemo_home):
    assert detect(load_path(STREAM)[0]).NAME == "perplexity"
    done = run_cli(None, "import", "--no-tokens", STREAM)
    assert "failed 0" in done.stdout + done.stderr or '"failed": 0' in done.stdout, done.stdout + done.stderr
