"""The texts a host guesses from a site conversation's JSON before reading it (readers.texts_ahead), to hand
to its split worker while the save reads and stores the conversation (test_split_worker.py shows the host
using them, and that a wrong guess costs only its split). On the real site fixtures: the id is the one the
reader gives, and the guesses are the texts the context splits; on hostile JSON: no error, no endless walk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemosyne.context.engine import _path_turns
from mnemosyne.readers import texts_ahead
from mnemosyne.service.save import read_payload

FIXTURES = Path(__file__).parents[1] / "fixtures"


def site_conversations(folder: str) -> list[tuple[str, dict]]:
    found = []
    for path in sorted((FIXTURES / folder).rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for i, item in enumerate(data if isinstance(data, list) else [data]):
            found.append((f"{path.name}[{i}]", item))
    return found


def context_texts(payload: dict) -> tuple[str, list[str]]:
    conv = read_payload(payload, "auto", None)
    return conv.id, [t.text for t in _path_turns(conv, False)]


@pytest.mark.parametrize(
    ("name", "payload"), site_conversations("chatgpt_api"), ids=lambda x: x if isinstance(x, str) else ""
)
def test_chatgpt_guesses_are_the_texts_its_context_splits(name, payload):
    found = texts_ahead(payload)
    if "mapping" not in payload or not (payload.get("conversation_id") or payload.get("id")):
        assert found is None  # (a bare mapping: no id to own the job)
        return
    assert found is not None
    conv_id, turns = context_texts(payload)
    guessed_id, guessed = found
    assert guessed_id == conv_id
    # in order, each a text the context splits; the turns not guessed are not plain text messages
    assert guessed == [t for t in turns if t in set(guessed)]


def test_claude_guesses_are_mostly_the_texts_its_context_splits():
    """A message with an attachment or an artifact is rendered with more than its text blocks: that guess
    is wrong (and costs its split); the others are the context's texts."""
    right = wrong = 0
    for name, payload in site_conversations("claude_export"):
        found = texts_ahead(payload)
        assert found is not None, name
        conv_id, turns = context_texts(payload)
        assert found[0] == conv_id, name
        if name.startswith(("echomine_claude_tool_messages", "echomine_claude_thinking")):
            assert found[1] == turns, name  # text blocks only: every guess right
        right += len(set(found[1]) & set(turns))
        wrong += len(set(found[1]) - set(turns))
    assert right >= 2 * wrong and right >= 20


def test_the_bench_conversations_are_guessed_almost_whole():
    """The conversations continue_bench and long_chat_memory save (runs of real ChatGPT text)."""
    import sys

    sys.path.insert(0, str(FIXTURES.parent / "bench"))
    import corpus

    for chinese in (False, True):
        payload = corpus.chatgpt_conversation(1001, messages=400, chinese=chinese)
        conv_id, turns = context_texts(payload)
        guessed_id, guessed = texts_ahead(payload)
        assert guessed_id == conv_id
        assert len(set(guessed) & set(turns)) >= 0.95 * len(turns)


def node(key: str, parent: object, text: object = "hello", role: str = "user") -> dict:
    return {
        "id": key,
        "parent": parent,
        "message": {
            "id": key,
            "author": {"role": role},
            "content": {"content_type": "text", "parts": [text]},
        },
    }


@pytest.mark.parametrize(
    "payload",
    [
        # parents that loop: the walk ends after as many steps as there are nodes
        {"id": "c", "current_node": "a", "mapping": {"a": node("a", "b"), "b": node("b", "a")}},
        # a parent that is no key (a list, a number), a current node that is missing
        {"id": "c", "current_node": "a", "mapping": {"a": node("a", ["b"]), "b": node("b", 7)}},
        {"id": "c", "current_node": ["x"], "mapping": {"a": node("a", None)}},
        # content and parts of the wrong types
        {
            "id": "c",
            "current_node": "a",
            "mapping": {"a": {**node("a", None), "message": {"content": "text"}}},
        },
        {"id": "c", "current_node": "a", "mapping": {"a": node("a", None, text={"x": 1})}},
        # Claude: junk records, parent links that loop, blocks of the wrong types
        {"uuid": "u", "chat_messages": [1, None, {"uuid": "m", "sender": "human", "content": "x"}]},
        {
            "uuid": "u",
            "current_leaf_message_uuid": "a",
            "chat_messages": [
                {"uuid": "a", "parent_message_uuid": "b", "sender": "human", "content": [{"type": "text"}]},
                {"uuid": "b", "parent_message_uuid": "a", "sender": "assistant", "content": [None, 3]},
            ],
        },
        [],
        "not a conversation",
    ],
)
def test_hostile_json_gives_a_guess_or_none_and_no_error(payload):
    found = texts_ahead(payload)
    assert found is None or all(isinstance(t, str) and t for t in found[1])
