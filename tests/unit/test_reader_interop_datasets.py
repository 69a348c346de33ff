"""ShareGPT-style training data: FastChat, axolotl and LLaMA-Factory samples
(tool calling in English and Chinese, multimodal placeholders, typed content
with reasoning in JSON Lines)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from mnemosyne.model import (
    AttachmentPart,
    Conversation,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from mnemosyne.readers import load_path, read_raw
from mnemosyne.readers.base import ReadFailure
from mnemosyne.readers.loading import parse_json_bytes
from mnemosyne.tree import active_path

SHAREGPT = Path(__file__).parents[1] / "fixtures" / "interop_sharegpt"


def read(name: str) -> list[Conversation]:
    [raw] = load_path(SHAREGPT / name)
    results = list(read_raw(raw))
    assert not [r for r in results if isinstance(r, ReadFailure)]
    assert all(c.source.site == "sharegpt" for c in results)
    return results


def parts(conv: Conversation, kind) -> list:
    return [p for m in conv.messages for p in m.parts if isinstance(p, kind)]


def test_fastchat_500_items_with_ids() -> None:
    convs = read("fastchat_dummy_conversation.json")
    assert len(convs) == 500
    first = convs[0]
    assert first.source.conversation_id == "identity_0"
    path = active_path(first)
    assert [m.role for m in path] == ["user", "assistant", "user", "assistant"]
    assert path[0].parts[0].text == "Who are you?"
    assert "Vicuna" in path[1].parts[0].text
    assert all(c.messages[0].role == "user" for c in convs)


def test_axolotl_conversation_and_missing_turn() -> None:
    [full] = read("axolotl_conversation.json")
    [gappy] = read("axolotl_conversation.missingturns.json")
    assert full.source.conversation_id is None and full.id != gappy.id  # content hash
    roles = [m.role for m in active_path(full)]
    assert roles[:2] == ["user", "assistant"] and len(roles) == len(active_path(gappy))
    assert "algebraic topology" in active_path(full)[0].parts[0].text
    assert active_path(gappy)[1].parts == []  # the empty turn is kept, empty, so turns stay aligned


def test_glaive_tool_calling_english() -> None:
    convs = read("llamafactory_glaive_toolcall_en_demo.json")
    assert len(convs) == 300
    first = convs[0]
    assert [m.role for m in active_path(first)][:6] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    call = parts(first, ToolCallPart)[0]
    assert call.name == "search_recipes" and call.arguments == {
        "ingredients": ["chicken", "bell peppers", "rice"]
    }
    result = parts(first, ToolResultPart)[0]
    assert result.name == "search_recipes" and "Chicken and Bell Pepper Stir Fry" in result.output
    tools = [i for i in first.instructions if i.title == "tools"]
    assert tools and json.loads(tools[0].text)[0]["name"] == "search_recipes"
    assert sum(len(parts(c, ToolCallPart)) for c in convs) == 211
    assert sum(len(parts(c, ToolResultPart)) for c in convs) == 211


def test_glaive_tool_calling_chinese() -> None:
    convs = read("llamafactory_glaive_toolcall_zh_demo.json")
    assert len(convs) == 300
    first = convs[0]
    path = active_path(first)
    assert [m.role for m in path] == ["user", "assistant", "tool", "assistant"]
    assert "发票" in path[0].parts[0].text
    call = path[1].parts[0]
    assert call.name == "generate_invoice" and call.arguments["customer_name"] == "约翰·多伊"
    assert "INV12345" in path[2].parts[0].output
    names = Counter(p.name for c in convs for p in parts(c, ToolCallPart))
    assert len(names) == 60 and sum(names.values()) == 216
    assert names["search_books"] == 14 and names["calculate_distance"] == 13
    assert "生成发票" in first.instructions[-1].text  # the tool descriptions are Chinese too


def test_mllm_images_replace_placeholders() -> None:
    convs = read("llamafactory_mllm_demo.json")
    assert len(convs) == 6
    user = active_path(convs[0])[0]
    assert [type(p) for p in user.parts] == [AttachmentPart, TextPart]
    assert user.parts[0].asset_pointer == "mllm_demo_data/1.jpg" and user.parts[0].kind == "image"
    assert user.parts[1].text == "Who are they?"
    assert all("<image>" not in p.text for c in convs for p in parts(c, TextPart))
    assert "桂海潮" in active_path(convs[-1])[1].parts[0].text


def test_reasoning_tool_use_jsonl() -> None:
    convs = read("llamafactory_reason_tool_use_demo_50.jsonl")
    assert len(convs) == 50
    assert sum(len(parts(c, ReasoningPart)) for c in convs) == 112
    assert sum(len(parts(c, ToolCallPart)) for c in convs) == 68
    first = convs[0]
    assert first.messages[0].role == "system" and first.messages[0].hidden
    assert first.instructions[0].text.startswith("You are a methodical and expert assistant")
    assert first.instructions[-1].title == "tools"
    with_call = next(c for c in convs if parts(c, ToolCallPart))
    call = parts(with_call, ToolCallPart)[0]
    assert call.name == "get_movie_details" and call.arguments == {"title": "Inception"}
    result = parts(with_call, ToolResultPart)[0]
    assert result.name == "get_movie_details" and "Christopher Nolan" in result.output


def test_parallel_calls_and_unparsable_call() -> None:
    item = {
        "conversations": [
            {"from": "human", "value": "two things"},
            {
                "from": "function_call",
                "value": json.dumps(
                    [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": '{"y": 2}'}]
                ),
            },
            {"from": "observation", "value": "done"},
            {"from": "function_call", "value": "call a please"},
        ],
        "system": "Be exact.",
    }
    [conv] = list(read_raw(parse_json_bytes("one.json", json.dumps(item).encode())))
    calls = parts(conv, ToolCallPart)
    assert [(c.name, c.arguments) for c in calls] == [("a", {"x": 1}), ("b", {"y": 2})]
    assert parts(conv, ToolResultPart)[0].name == "b"
    assert conv.messages[-1].parts[0].text == "call a please"
    assert [w.code for w in conv.warnings] == ["UNPARSED_TOOL_CALL"]
    assert conv.instructions[0].text == "Be exact." and conv.messages[0].role == "system"
