"""DeepSeek reader: chat/history_messages JSON. The assistant message is the one the site's real completion
stream built (more_sites fixture, replayed patch by patch); its text is checked against the answer the
capture's authors wrote down beside it. Branches, thinking, search and unknown fragments; damaged copies."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from mnemosyne.errors import InputError
from mnemosyne.model import CitationPart, Conversation, ReasoningPart, TextPart, UnknownPart
from mnemosyne.readers import RawInput, detect, read_raw
from mnemosyne.readers import deepseek as reader
from mnemosyne.service.save import read_payload
from support.cli import run_cli
from support.deepseek_sse import replay

FIXTURE = Path(__file__).parent / "fixtures/more_sites/deepseek/chromai__request-response-20251121.md"
WORD = re.compile(r"\w+")
SESSION = "d213f7b1-0aa7-47a2-a6cf-3b4910a66b3a"


def sections() -> dict[str, str]:
    text = FIXTURE.read_text(encoding="utf-8")
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def history() -> dict:
    """history_messages as the site answers it after this exchange: the request's prompt as message 1, the
    stream's message as message 2."""
    found = sections()
    request = json.loads(found["Request Payload"])
    answer = replay(found["Response Payload"])
    prompt = {
        "message_id": answer["parent_id"],
        "parent_id": request["parent_message_id"],
        "role": "USER",
        "model": "",
        "status": "FINISHED",
        "inserted_at": answer["inserted_at"] - 0.03,
        "files": [],
        "fragments": [{"id": 1, "type": "REQUEST", "content": request["prompt"]}],
    }
    session = {
        "id": request["chat_session_id"],
        "title": "User Greets AI Assistant for Testing",
        "inserted_at": 1763793566.4,
        "updated_at": 1763793569.404758,
        "current_message_id": answer["message_id"],
    }
    return {
        "code": 0,
        "msg": "",
        "data": {
            "biz_code": 0,
            "biz_msg": "",
            "biz_data": {"chat_session": session, "chat_messages": [prompt, answer]},
        },
    }


def read(payload) -> Conversation:
    return read_payload(payload, "deepseek_api", f"https://chat.deepseek.com/a/chat/s/{SESSION}")


def words(text: str) -> Counter[str]:
    return Counter(WORD.findall(text.casefold()))


def test_the_streamed_answer_is_read_with_no_text_lost():
    expected = sections()["Expected Extraction Result"]
    question, answer = re.match(r"Question: (.*?)\nAnswer: (.*)", expected, re.S).groups()
    raw = RawInput(name="history.json", data=history(), raw=b"{}")
    assert detect(raw) is reader
    conv = read(history())
    user, assistant = conv.messages
    assert user.parts[0].text == question
    said = "".join(p.text for p in assistant.parts if isinstance(p, TextPart))
    assert words(said) == words(answer)
    # CJK has no spaces: every character of the written-down answer, in order
    assert re.sub(r"\s", "", said) == re.sub(r"\s", "", answer)
    assert conv.warnings == [] and conv.title == "User Greets AI Assistant for Testing"
    assert assistant.parent == user.id and assistant.status == "finished" and conv.active_leaf == "2"
    assert conv.source.url == f"https://chat.deepseek.com/a/chat/s/{SESSION}"


def test_branches_thinking_search_and_files():
    data = history()
    biz = data["data"]["biz_data"]
    prompt, answer = biz["chat_messages"]
    redo = copy.deepcopy(answer)
    redo.update(
        message_id=3,
        fragments=[
            {"id": 1, "type": "THINK", "content": "The user says hello6; a greeting.", "elapsed_secs": 4.2},
            {
                "id": 2,
                "type": "SEARCH",
                "results": [
                    {"url": "https://example.org/a", "title": "Example A", "snippet": "about greetings"}
                ],
            },
            {
                "id": 3,
                "type": "RESPONSE",
                "content": "Hello again.",
                "references": [{"url": "https://example.org/a", "title": "Example A", "cite_index": 1}],
            },
        ],
    )
    edited = dict(
        prompt,
        message_id=4,
        parent_id=None,
        files=[{"id": "file-1", "file_name": "chart.png", "file_size": 2048, "status": "SUCCESS"}],
        fragments=[{"id": 1, "type": "REQUEST", "content": "hello7"}],
    )
    biz["chat_messages"] += [redo, edited]
    biz["chat_session"]["current_message_id"] = 3
    conv = read(data)
    by_id = {m.id: m for m in conv.messages}
    assert by_id["3"].parent == "1" and by_id["2"].parent == "1" and by_id["4"].parent is None
    assert conv.active_leaf == "3"
    think, cite, text = by_id["3"].parts
    assert isinstance(think, ReasoningPart) and think.duration_sec == 4.2
    assert isinstance(cite, CitationPart) and cite.url == "https://example.org/a"
    assert isinstance(text, TextPart) and text.citations[0].title == "Example A"
    assert [p.type for p in by_id["4"].parts] == ["text", "attachment"]
    assert by_id["4"].parts[1].kind == "image" and by_id["4"].parts[1].name == "chart.png"
    assert conv.warnings == []


def test_older_replies_with_content_and_thinking_content():
    data = history()
    for message in data["data"]["biz_data"]["chat_messages"]:
        text = message.pop("fragments")[0]["content"]
        message["content"] = text
        if message["role"] == "ASSISTANT":
            message.update(thinking_content="Thinking it over.", thinking_elapsed_secs=3)
    conv = read(data)
    assert [p.type for p in conv.messages[1].parts] == ["reasoning", "text"]
    assert conv.messages[0].parts[0].text == "hello6"


def test_an_unknown_fragment_and_text_elsewhere_are_kept_and_counted():
    data = history()
    answer = data["data"]["biz_data"]["chat_messages"][1]
    answer["fragments"].append({"id": 9, "type": "TOOL_OPEN", "content": "opened a page about cats"})
    answer["new_field"] = {"note": "a remark from a new version of the site"}
    conv = read(data)
    unknown = [p for p in conv.messages[1].parts if isinstance(p, UnknownPart)]
    assert [p.source_type for p in unknown] == ["deepseek.tool_open", "deepseek.text"]
    assert unknown[1].raw == "a remark from a new version of the site"
    assert sorted(w.code for w in conv.warnings) == ["DEEPSEEK_UNKNOWN_FRAGMENT", "DEEPSEEK_UNKNOWN_TEXT"]


def damaged() -> dict[str, object]:
    base = history()
    out: dict[str, object] = {}
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_data"]["chat_messages"] = {"1": "x"}
    out["messages an object"] = wrong
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_data"]["chat_session"] = "s"
    out["session a string"] = wrong
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_data"]["chat_messages"][1]["role"] = 7
    out["role a number"] = wrong
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_data"]["chat_messages"][1]["fragments"] = "text"
    out["fragments a string"] = wrong
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_code"] = 3
    wrong["data"]["biz_msg"] = "session not found"
    out["site error"] = wrong
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_data"]["chat_messages"] = [1, 2]
    out["messages not objects"] = wrong
    wrong = copy.deepcopy(base)
    wrong["data"]["biz_data"]["chat_messages"] = []
    wrong["data"]["biz_data"]["cache_valid"] = True
    out["no messages"] = wrong
    return out


@pytest.mark.parametrize("damage", list(damaged()))
def test_damaged_copies_are_typed_errors(damage):
    with pytest.raises(InputError) as caught:
        read(damaged()[damage])
    assert caught.value.code == "BAD_INPUT"


def test_a_truncated_file_is_one_error_line_from_the_cli(tmp_path):
    text = json.dumps(history(), ensure_ascii=False)
    path = tmp_path / "history.json"
    path.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    done = run_cli(None, "convert", path, "--from", "deepseek", "--to", "portable", check=False, text=True)
    assert done.returncode == 2 and "not valid JSON" in done.stderr and "Traceback" not in done.stderr
    path.write_text(text, encoding="utf-8")
    done = run_cli(None, "convert", path, "--to", "portable", check=False, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["source"]["site"] == "deepseek"
    assert list(read_raw(RawInput(name="h", data=history()["data"]["biz_data"], raw=b"{}")))
