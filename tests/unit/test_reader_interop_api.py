"""OpenAI and Anthropic API bodies: real VCR cassettes (llm, llm-anthropic),
real Claude Code request bodies captured by a proxy (claude-nexus), and small
hand-built bodies for the shapes the recordings do not show."""

from __future__ import annotations

import json
from pathlib import Path

from interop_cassettes import cassette_inputs
from mnemosyne.model import (
    AttachmentPart,
    Conversation,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from mnemosyne.readers import load_path, read_raw
from mnemosyne.readers.base import ReadFailure
from mnemosyne.readers.loading import parse_json_bytes
from mnemosyne.tree import active_path

FIXTURES = Path(__file__).parents[1] / "fixtures"
OPENAI = FIXTURES / "interop_openai_messages"
ANTHROPIC = FIXTURES / "interop_anthropic_messages"


def convs(name: str, data: bytes) -> list[Conversation]:
    results = list(read_raw(parse_json_bytes(name, data)))
    assert not [r for r in results if isinstance(r, ReadFailure)]
    return results


def body(path: Path, which: str) -> list[Conversation]:
    """Conversations of the cassette body whose name ends with `which` (request2, response0 ...)."""
    [(name, data)] = [(n, d) for n, d in cassette_inputs(path) if n.endswith("#" + which)]
    return convs(name, data)


def obj(data) -> Conversation:
    [conv] = convs("inline.json", json.dumps(data).encode())
    return conv


def parts(conv: Conversation, kind) -> list:
    return [p for m in conv.messages for p in m.parts if isinstance(p, kind)]


# ---------------------------------------------------------------- OpenAI Chat Completions


def test_chat_completions_tool_chain() -> None:
    [conv] = body(OPENAI / "llm_test_tool_use_chain_of_two_calls.yaml", "request2")
    path = active_path(conv)
    assert [m.role for m in path] == ["user", "assistant", "tool", "assistant", "tool"]
    assert "Crumpet have dragons" in path[0].parts[0].text
    calls = parts(conv, ToolCallPart)
    assert [(c.name, c.arguments) for c in calls] == [
        ("lookup_population", {"country": "Crumpet"}),
        ("can_have_dragons", {"population": 123124}),
    ]
    results = parts(conv, ToolResultPart)
    assert [(r.call_id, r.name, r.output) for r in results][0] == (
        calls[0].call_id,
        "lookup_population",
        "123124",
    )
    assert results[1].name == "can_have_dragons" and results[1].call_id == calls[1].call_id
    assert conv.default_model == "gpt-4o-mini"
    assert conv.source.conversation_id is None  # a request body has no id: content hash


def test_chat_completion_response_body() -> None:
    [conv] = body(OPENAI / "llm_test_tool_use_chain_of_two_calls.yaml", "response2")
    [msg] = conv.messages
    assert msg.role == "assistant" and msg.parts[0].text == "YES" and msg.status == "stop"
    assert conv.source.conversation_id.startswith("chatcmpl-")
    assert msg.model.startswith("gpt-4o-mini")


def test_responses_input_interleaves_reasoning_and_calls() -> None:
    [conv] = body(OPENAI / "llm_test_responses_interleaved_reasoning_between_tool_calls.yaml", "request3")
    path = active_path(conv)
    assert [m.role for m in path] == ["user", "assistant", "tool"] * 1 + ["assistant", "tool"] * 2
    for turn in path[1::2][:3]:
        assert [p.type for p in turn.parts] == ["reasoning", "tool_call"]
        assert turn.parts[0].truncated  # only encrypted reasoning was sent back
    calls = parts(conv, ToolCallPart)
    assert [c.arguments for c in calls] == [{"key": "start"}, {"key": "7"}, {"key": "step1"}]
    assert {c.name for c in calls} == {"db_lookup"}
    outputs = parts(conv, ToolResultPart)
    assert outputs[0].output == "Begin with the value 7." and outputs[0].call_id == calls[0].call_id
    assert conv.default_model == "gpt-5.5"


def test_responses_response_body_groups_output_in_one_turn() -> None:
    [conv] = body(OPENAI / "llm_test_responses_interleaved_reasoning_between_tool_calls.yaml", "response3")
    [msg] = conv.messages
    assert [p.type for p in msg.parts] == ["reasoning"] + ["tool_call"] * 5
    assert conv.source.conversation_id.startswith("resp_")


def test_chat_messages_list_with_typed_parts_and_system() -> None:
    conv = obj(
        [
            {"role": "developer", "content": "Answer briefly."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
                    {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
                    {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
                    {"type": "file", "file": {"file_id": "file-1", "filename": "notes.pdf"}},
                    {"type": "hologram", "beam": 1},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{not json"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "a cat"},
            {"role": "assistant", "content": "A cat."},
        ]
    )
    system, user, call, result, answer = conv.messages
    assert system.role == "system" and system.hidden and system.author == "developer"
    assert conv.instructions[0].kind == "system_prompt" and conv.instructions[0].text == "Answer briefly."
    kinds = [(p.type, getattr(p, "kind", None)) for p in user.parts]
    assert kinds == [
        ("text", None),
        ("attachment", "image"),
        ("attachment", "image"),
        ("attachment", "audio"),
        ("attachment", "file"),
        ("unknown", None),
    ]
    assert user.parts[1].asset_pointer == "https://example.com/cat.png"
    assert user.parts[2].asset_pointer is None and user.parts[2].mime_type == "image/jpeg"
    assert user.parts[4].name == "notes.pdf"
    assert call.parts[0].arguments == "{not json"  # invalid JSON arguments stay as given
    assert result.role == "tool" and result.parts[0].name == "lookup"
    assert {w.code for w in conv.warnings} == {"INLINE_DATA_DROPPED", "UNKNOWN_CONTENT_TYPE"}
    assert answer.parts[0].text == "A cat."


def test_chat_completion_with_two_choices_makes_siblings() -> None:
    conv = obj(
        {
            "id": "chatcmpl-x",
            "object": "chat.completion",
            "model": "gpt-4o",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "one"}, "finish_reason": "stop"},
                {"index": 1, "message": {"role": "assistant", "content": "two"}, "finish_reason": "length"},
            ],
        }
    )
    assert [m.parent for m in conv.messages] == [None, None]
    assert [m.parts[0].text for m in active_path(conv)] == ["one"]


# ---------------------------------------------------------------- Anthropic


def test_anthropic_parallel_tool_calls() -> None:
    [conv] = body(ANTHROPIC / "llmanthropic_test_tools.yaml", "request1")
    path = active_path(conv)
    assert [m.role for m in path] == ["user", "assistant", "tool"]
    calls = parts(conv, ToolCallPart)
    assert [c.name for c in calls] == ["pelican_name_generator"] * 2
    results = path[2].parts
    assert [(r.output, r.call_id) for r in results] == [
        ("Charles", calls[0].call_id),
        ("Sammy", calls[1].call_id),
    ]
    [answer] = body(ANTHROPIC / "llmanthropic_test_tools.yaml", "response1")
    assert "Charles" in answer.messages[0].parts[0].text and answer.messages[0].status == "end_turn"


def test_anthropic_thinking_then_tool() -> None:
    path_ = ANTHROPIC / "llmanthropic_test_fixed_version_tool_chain_with_thinking_display_regression.yaml"
    [conv] = body(path_, "request1")
    assistant = active_path(conv)[1]
    assert [p.type for p in assistant.parts] == ["reasoning", "tool_call"]
    assert "fixed_version tool" in assistant.parts[0].text
    assert parts(conv, ToolResultPart)[0].output == "0.32a0"
    [reply] = body(path_, "response1")
    assert "0.32a0" in reply.messages[0].parts[0].text


def test_anthropic_web_search_blocks_and_citations() -> None:
    [conv] = body(ANTHROPIC / "llmanthropic_test_web_search.yaml", "response0")
    [msg] = conv.messages
    call = next(p for p in msg.parts if isinstance(p, ToolCallPart))
    assert call.name == "web_search" and "San Francisco" in call.arguments["query"]
    result = next(p for p in msg.parts if isinstance(p, ToolResultPart))
    assert result.call_id == call.call_id and len(result.citations) >= 5
    assert all(c.url.startswith("http") for c in result.citations)
    cited = [p for p in msg.parts if isinstance(p, TextPart) and p.citations]
    assert cited and all(c.url and c.snippet for p in cited for c in p.citations)


def test_claude_code_proxy_records() -> None:
    parent, child = list(read_raw(load_path(ANTHROPIC / "claudenexus_06-compact-weird.json")[0]))
    assert parent.source.conversation_id == "57413f14-0408-4e9a-b92e-6711b8deb2d5"
    assert child.source.conversation_id == "be29cb5e-61e4-449b-b91c-271d338a514b"
    for conv in (parent, child):
        assert conv.instructions[0].text.startswith("You are Claude Code")
        assert conv.messages[0].role == "system" and conv.messages[0].hidden
        names = {p.name for p in parts(conv, ToolCallPart)}
        assert {"Edit", "Bash", "Read", "TodoWrite", "Grep"} <= names
        assert len(parts(conv, ToolCallPart)) == len(parts(conv, ToolResultPart)) == 99
        assert conv.default_model == "claude-opus-4-20250514"
    last = active_path(parent)[-1]  # the logged response is the last turn
    assert last.role == "assistant" and "fixed the API paths" in last.parts[0].text
    assert len(active_path(parent)) == 209 and len(active_path(child)) == 210
    _, small = list(read_raw(load_path(ANTHROPIC / "claudenexus_07-duplicated-tools.json")[0]))
    error = parts(small, ToolResultPart)[-1]
    assert error.is_error and error.output == "File does not exist." and error.name == "Read"


def test_anthropic_request_with_other_blocks() -> None:
    conv = obj(
        {
            "model": "claude-sonnet-4",
            "system": "Be kind.",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                        {
                            "type": "document",
                            "title": "memo",
                            "source": {"type": "text", "media_type": "text/plain", "data": "hello"},
                        },
                        {"type": "text", "text": "Summarize."},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "redacted_thinking", "data": "xyz"},
                        {"type": "mystery_block", "x": 1},
                        {"type": "text", "text": "Done."},
                    ],
                },
            ],
        }
    )
    system, user, assistant = conv.messages
    assert conv.instructions[0].text == "Be kind." and system.hidden
    image, doc, text = user.parts
    assert isinstance(image, AttachmentPart) and image.asset_pointer == "https://example.com/a.png"
    assert doc.kind == "file" and doc.name == "memo" and doc.extracted_text == "hello"
    assert isinstance(assistant.parts[0], ReasoningPart) and assistant.parts[0].truncated
    assert isinstance(assistant.parts[1], UnknownPart) and assistant.parts[1].source_type == "mystery_block"
    assert [w.code for w in conv.warnings] == ["UNKNOWN_CONTENT_TYPE"]


def test_bare_anthropic_message_list_is_not_taken_for_openai() -> None:
    conv = obj(
        [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "cold", "is_error": False}
                ],
            },
        ]
    )
    assert conv.source.site == "anthropic"
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool"]
    assert conv.messages[2].parts[0].name == "weather" and conv.messages[2].parts[0].output == "cold"


def test_batch_jsonl_each_line_a_conversation() -> None:
    lines = [
        {
            "custom_id": "req-1",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "one"}]},
        },
        {
            "custom_id": "req-2",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "gpt-4o-mini"},
        },
        {"messages": [{"role": "user", "content": "three"}, {"role": "assistant", "content": "3"}]},
    ]
    raw = parse_json_bytes("batch.jsonl", "\n".join(json.dumps(x) for x in lines).encode())
    assert raw.jsonl
    first, broken, third = list(read_raw(raw))
    assert first.source.conversation_id == "req-1" and first.messages[0].parts[0].text == "one"
    assert isinstance(broken, ReadFailure) and broken.label == "batch.jsonl[1]"
    assert [m.role for m in third.messages] == ["user", "assistant"] and third.source.site == "openai"
