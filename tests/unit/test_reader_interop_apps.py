"""Chat apps' exports: Open WebUI, LibreChat (+ Chatbot UI), SillyTavern.
Fixtures are the tools' own test data; hand-built inputs cover branches and
swipes the fixtures do not have."""

from __future__ import annotations

import json
from pathlib import Path

from mnemosyne.model import (
    CodePart,
    Conversation,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from mnemosyne.readers import detect, load_path, read_raw
from mnemosyne.readers.base import ReadFailure, Warnings
from mnemosyne.readers.loading import parse_json_bytes
from mnemosyne.readers.openwebui import content_to_parts
from mnemosyne.tree import active_path, branch_points, leaves

FIXTURES = Path(__file__).parents[1] / "fixtures"


def read(folder: str, name: str) -> list[Conversation]:
    [raw] = load_path(FIXTURES / folder / name)
    results = list(read_raw(raw))
    assert not [r for r in results if isinstance(r, ReadFailure)]
    return results


def read_bytes(name: str, data: bytes) -> list[Conversation]:
    return list(read_raw(parse_json_bytes(name, data)))


def texts(messages) -> list[str]:
    return [p.text for m in messages for p in m.parts if isinstance(p, TextPart)]


# ---------------------------------------------------------------- Open WebUI


def test_openwebui_export_array() -> None:
    reasoning, tool, simple = read("interop_openwebui", "librechat_openwebui-export.json")
    assert [c.source.conversation_id for c in (reasoning, tool, simple)] == [
        "reasoning-chat",
        "tool-chat",
        "simple-chat",
    ]
    assert reasoning.title == "Chat with reasoning" and reasoning.default_model == "deepseek-r1"
    answer = active_path(reasoning)[1]
    assert [p.type for p in answer.parts] == ["reasoning", "text"]
    assert answer.parts[0].text.startswith("15 * 17 = 15 * 10") and answer.parts[0].duration_sec == 3.0
    assert answer.parts[1].text == "255" and answer.model == "deepseek-r1"
    call, result, text = active_path(tool)[1].parts
    assert (
        isinstance(call, ToolCallPart) and call.name == "get_weather" and call.arguments == {"city": "Paris"}
    )
    assert (
        isinstance(result, ToolResultPart)
        and result.call_id == "call_1"
        and result.output == "Paris: 18C, rain"
    )
    assert text.text == "The weather in Paris is 18C with rain."
    assert texts(active_path(simple)) == ["Hello", "Hi there!"]
    assert simple.created_at.year == 2023 and simple.updated_at > simple.created_at


def test_openwebui_bare_chat_tree() -> None:
    [conv] = read("interop_openwebui", "owi-importer_expected_claude_output.json")
    path = active_path(conv)
    assert len(path) == 10 and [m.role for m in path] == ["user", "assistant"] * 5
    assert conv.active_leaf == "00000000-0000-0000-0000-00000000000b"
    assert branch_points(conv) == 0 and len(leaves(conv)) == 1
    assert conv.title == "How Photosynthesis Works"
    assert path[-2].parts[0].text == "What about forests?"
    assert "forests aren't sentient" in path[-1].parts[0].text


def test_openwebui_details_in_content() -> None:
    content = (
        '<details type="reasoning" done="true" duration="3"><summary>Thought for 3 seconds</summary>'
        "&gt; Let me break this down...\n&gt; 15 &amp; 17</details>255"
    )
    reasoning, text = content_to_parts(content, Warnings())
    assert reasoning.text == "Let me break this down...\n15 & 17" and reasoning.duration_sec == 3.0
    assert text.text == "255"
    tool = (
        '<details type="tool_calls" done="true" id="c9" name="search" arguments="{&quot;q&quot;: &quot;owls&quot;}" '
        'result="&quot;3 owls&quot;"><summary>Tool Executed</summary></details>Found 3.'
    )
    call, result, after = content_to_parts(tool, Warnings())
    assert (call.name, call.call_id, call.arguments) == ("search", "c9", {"q": "owls"})
    assert result.output == "3 owls" and after.text == "Found 3."
    code = content_to_parts(
        '<details type="code_interpreter" done="true"><summary>Analyzed</summary>```py\nprint(1)\n```</details>',
        Warnings(),
    )
    assert isinstance(code[0], CodePart) and "print(1)" in code[0].code


def test_openwebui_regenerations_are_branches() -> None:
    def node(i, parent, role, content, kids):
        return {
            "id": i,
            "parentId": parent,
            "childrenIds": kids,
            "role": role,
            "content": content,
            "timestamp": 1700000000,
        }

    chat = {
        "id": "c1",
        "title": "t",
        "chat": {
            "history": {
                "currentId": "a2",
                "messages": {
                    "a2": node("a2", "u1", "assistant", "second try", []),
                    "u1": node("u1", None, "user", "hi", ["a1", "a2"]),
                    "a1": node("a1", "u1", "assistant", "first try", []),
                },
            }
        },
        "created_at": 1700000000,
        "updated_at": 1700000000,
    }
    [conv] = read_bytes("owui.json", json.dumps([chat]).encode())
    assert conv.messages[0].id == "u1"  # parents first even when the export lists a child first
    assert branch_points(conv) == 1 and len(leaves(conv)) == 2
    assert texts(active_path(conv)) == ["hi", "second try"]


# ---------------------------------------------------------------- LibreChat


def test_librechat_tree_branches() -> None:
    [conv] = read("interop_librechat", "librechat_librechat-tree.json")
    assert conv.source.conversation_id == "4a86c40e-e627-4454-b158-889680e23ad3"
    assert len(conv.messages) == 9 and branch_points(conv) == 2 and len(leaves(conv)) == 3
    path = active_path(conv)
    assert [m.role for m in path] == ["user", "assistant", "user", "assistant"]
    assert path[0].parts[0].text.startswith("How do I use source venv/bin/activate?")
    assert path[1].author == "Software Engineer" and path[1].model == "gpt-4-turbo"
    assert conv.instructions and conv.instructions[0].text.startswith("You are an expert software engineer")
    all_texts = texts(conv.messages)
    assert "thanks" in all_texts and "lol" in all_texts and "does coding make you happy" in all_texts


def test_librechat_non_recursive_branches() -> None:
    [conv] = read("interop_librechat", "librechat_librechat-opts-nonr-branches.json")
    assert len(conv.messages) == 5 and len(leaves(conv)) == 3
    roots = [m for m in conv.messages if m.parent is None]
    assert [m.parts[0].text for m in roots] == ["tell me a long story", "tell me a long long story"]
    assert branch_points(conv) == 2  # two edited first prompts, two answers to the first one
    path = active_path(conv)  # the newest branch
    assert texts(path)[0] == "tell me a long long story" and len(path) == 2
    unfinished = [m for m in conv.messages if m.status == "interrupted"]
    assert len(unfinished) == 1 and "Chronicles of Elenor" in unfinished[0].parts[0].text


def test_librechat_recursive_and_linear() -> None:
    [nested] = read("interop_librechat", "librechat_librechat-export.json")
    assert len(active_path(nested)) == 6 and branch_points(nested) == 0
    assert active_path(nested)[-1].parts[0].text.startswith("The fuel consumption figures for the 2014")
    [linear] = read("interop_librechat", "librechat_librechat-linear.json")
    assert [m.role for m in active_path(linear)] == ["user", "assistant"]
    assert linear.title == "Adventure Across Time and Space" and active_path(linear)[1].model == "gpt-4o"


def test_chatbot_ui_export() -> None:
    first, second = read("interop_librechat", "librechat_chatbotui-export.json")
    assert first.title == "Hello what are you able to do?" and first.default_model == "gpt-4-1106-preview"
    assert [m.role for m in active_path(first)] == ["user", "assistant", "user", "assistant"]
    assert first.instructions[0].text.startswith("You are ChatGPT")
    assert "COBOL" in texts(active_path(second))[0] and second.default_model == "gpt-3.5-turbo"


def test_librechat_agent_content_parts() -> None:
    export = {
        "conversationId": "c-1",
        "title": "agents",
        "recursive": False,
        "messages": [
            {
                "messageId": "u",
                "parentMessageId": "00000000-0000-0000-0000-000000000000",
                "isCreatedByUser": True,
                "sender": "User",
                "text": "search owls",
            },
            {
                "messageId": "a",
                "parentMessageId": "u",
                "isCreatedByUser": False,
                "sender": "Agent",
                "text": "",
                "content": [
                    {"type": "think", "think": "I should search."},
                    {
                        "type": "tool_call",
                        "tool_call": {
                            "id": "t1",
                            "name": "web_search",
                            "args": '{"q": "owls"}',
                            "output": "3 owls",
                        },
                    },
                    {"type": "text", "text": "There are 3 owls."},
                ],
            },
            {
                "messageId": "e",
                "parentMessageId": "missing",
                "isCreatedByUser": False,
                "error": True,
                "text": "rate limited",
            },
        ],
    }
    [conv] = read_bytes("lc.json", json.dumps(export).encode())
    answer = next(m for m in conv.messages if m.id == "a")
    assert [type(p) for p in answer.parts] == [ReasoningPart, ToolCallPart, ToolResultPart, TextPart]
    assert answer.parts[1].arguments == {"q": "owls"} and answer.parts[2].output == "3 owls"
    error = next(m for m in conv.messages if m.id == "e")
    assert error.parent is None and error.status == "error" and isinstance(error.parts[0], SystemErrorPart)
    assert [w.code for w in conv.warnings] == ["DANGLING_PARENT"]


# ---------------------------------------------------------------- SillyTavern


def test_sillytavern_legacy_chats() -> None:
    for name, character in (
        ("st_legacy_Aqua_1673181146000.jsonl", "Aqua"),
        ("st_legacy_Darkness_1673225255706.jsonl", "Darkness"),
        ("st_legacy_Megumin_1673323621108.jsonl", "Megumin"),
    ):
        [conv] = read("interop_sillytavern", name)
        [greeting] = active_path(conv)
        assert greeting.role == "assistant" and greeting.author == character
        assert conv.title == character and conv.source.project == character
        assert character.lower() in greeting.parts[0].text.lower() and greeting.created_at.year == 2023
    [aqua] = read("interop_sillytavern", "st_legacy_Aqua_1673181146000.jsonl")
    assert "goddess of water" in aqua.messages[0].parts[0].text


def test_sillytavern_swipes_and_reasoning() -> None:
    lines = [
        {
            "user_name": "unused",
            "character_name": "unused",
            "create_date": "2025-01-02@10h11m12s",
            "chat_metadata": {"integrity": "chat-uuid-1"},
        },
        {
            "name": "Seraphina",
            "is_user": False,
            "send_date": "January 2, 2025 10:11am",
            "mes": "Welcome, traveler.",
        },
        {"name": "Ann", "is_user": True, "send_date": "January 2, 2025 10:12am", "mes": "Where am I?"},
        {
            "name": "Seraphina",
            "is_user": False,
            "send_date": "January 2, 2025 10:13am",
            "mes": "In the glade.",
            "swipe_id": 1,
            "swipes": ["In the forest.", "In the glade.", "Safe."],
            "swipe_info": [{"extra": {"reasoning": "forest idea"}}, {"extra": {}}, {"extra": {}}],
            "extra": {"reasoning": "She is lost.", "reasoning_duration": 1500, "model": "deepseek-r1"},
        },
        {
            "name": "Ann",
            "is_user": True,
            "send_date": "January 2, 2025 10:14am",
            "mes": "Thanks",
            "is_system": True,
        },
    ]
    raw = parse_json_bytes("chat.jsonl", "\n".join(json.dumps(x) for x in lines).encode())
    assert detect(raw).NAME == "sillytavern"
    [conv] = list(read_raw(raw))
    assert conv.source.conversation_id == "chat-uuid-1" and conv.title == "Seraphina"
    assert branch_points(conv) == 1 and len(leaves(conv)) == 3
    path = active_path(conv)
    assert texts(path) == ["Welcome, traveler.", "Where am I?", "In the glade.", "Thanks"]
    chosen = path[2]
    assert isinstance(chosen.parts[0], ReasoningPart) and chosen.parts[0].duration_sec == 1.5
    assert chosen.model == "deepseek-r1" and chosen.created_at.hour == 10
    others = [m for m in conv.messages if m.parent == path[1].id and m.id != chosen.id]
    assert sorted(texts(others)) == ["In the forest.", "Safe."]
    assert path[3].hidden and path[3].author == "Ann"
