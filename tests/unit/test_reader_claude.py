"""Claude reader: official exports (fixtures), a hand-built tree=True API object, an export zip."""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path

import pytest

from mnemosyne import canonical, tree
from mnemosyne.model import (
    ArtifactPart,
    AttachmentPart,
    Conversation,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from mnemosyne.readers import claude, load_path, read_raw
from mnemosyne.readers.base import RawInput, ReadContext, ReadFailure

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude_export"
ROOT = claude.ROOT_PARENT


def read_file(name: str) -> list[Conversation]:
    [raw] = load_path(FIXTURES / name)
    assert claude.detect(raw)
    results = list(read_raw(raw, fmt="claude"))
    assert not [r for r in results if isinstance(r, ReadFailure)]
    return results


def read_object(data, name: str = "api.json") -> list[Conversation]:
    text = json.dumps(data).encode()
    return list(claude.read(RawInput(name=name, data=data, raw=text), ReadContext()))


def texts(messages) -> list[str]:
    return [p.text for m in messages for p in m.parts if isinstance(p, TextPart)]


def parts_of(conv: Conversation, kind):
    return [p for m in conv.messages for p in m.parts if isinstance(p, kind)]


def assert_round_trip(conv: Conversation) -> None:
    first = canonical.dumps(conv)
    assert canonical.dumps(canonical.loads(first)) == first


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_every_fixture_converts_and_round_trips(path: Path) -> None:
    results = read_file(path.name)
    assert results
    for conv in results:
        assert conv.source.site == "claude"
        assert conv.provenance.method == "official_export"
        assert conv.source.url == f"https://claude.ai/chat/{conv.source.conversation_id}"
        assert_round_trip(conv)


def test_owi_export_counts() -> None:
    convs = read_file("owi-importer_claude_example_redacted.json")
    assert len(convs) == 85
    assert sum(len(c.messages) for c in convs) == 557
    # no parent links in this export: every message sits on the one linear path
    assert sum(len(tree.active_path(c)) for c in convs) == 557
    assert sum(tree.branch_points(c) for c in convs) == 0
    roles = [m.role for c in convs for m in c.messages]
    assert (roles.count("user"), roles.count("assistant")) == (283, 274)
    [titled] = [c for c in convs if c.title]
    assert titled.title == "How Photosynthesis Works"
    assert "Photosynthesis is how plants make their own food" in texts(tree.active_path(titled))[1]
    assert convs[0].title is None  # the publisher emptied the names


def test_sample_export_attachment_and_untitled() -> None:
    convs = {c.source.conversation_id: c for c in read_file("echomine_claude_sample_export.json")}
    assert len(convs) == 5
    review = convs["5551eb71-ada2-45bd-8f91-0c4945a1e5a6"]
    assert [m.role for m in tree.active_path(review)] == ["user", "assistant"]
    assert "```python\ndef binary_search" in texts(review.messages)[0]
    db = convs["7892bc45-def3-4a21-9c12-3d5e6f7a8b9c"]
    # attachments[] and a files[] entry naming the same file give one attachment
    [log] = parts_of(db, AttachmentPart)
    assert (log.name, log.mime_type, log.size_bytes) == ("slow_query_log.txt", "text/plain", 4096)
    assert log.extracted_text.startswith("SELECT * FROM users")
    assert convs["f9e8d7c6-b5a4-4321-9876-fedcba098765"].title is None


def test_attachments_and_files() -> None:
    [conv] = read_file("echomine_claude_attachments.json")
    by_id = tree.by_id(conv)
    [report] = [p for p in by_id["msg-with-attachments"].parts if isinstance(p, AttachmentPart)]
    assert report.kind == "file" and report.name == "report.pdf"
    assert report.extracted_text == "This is the extracted text from the PDF document."
    files = [p for p in by_id["msg-with-files-only"].parts if isinstance(p, AttachmentPart)]
    assert [(f.name, f.kind, f.asset_pointer) for f in files] == [
        ("data.csv", "file", "file-uuid-001"),
        ("image.png", "image", "file-uuid-002"),
    ]
    both = [p.name for p in by_id["msg-with-both"].parts if isinstance(p, AttachmentPart)]
    assert both == ["notes.txt", "backup.zip"]
    [nameless] = by_id["msg-empty-filename"].parts
    assert nameless.name is None and nameless.asset_pointer == "file-uuid-004"
    [only] = by_id["msg-attachment-only"].parts
    assert only.extracted_text == "Full extracted text from the uploaded PDF."
    assert texts([by_id["msg-text-plus-attachment"]]) == ["Analyze this document for me"]


def test_thinking_and_unknown_block() -> None:
    [conv] = read_file("echomine_claude_thinking.json")
    first, cut, budget = conv.messages
    reasoning = first.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text == "Let me analyze this step by step..."
    assert reasoning.summary == "Analyzed step by step" and not reasoning.truncated
    assert texts([first]) == ["Here is my answer."]
    assert cut.parts[0].truncated and cut.parts[0].text == "Processing..."
    [unknown] = budget.parts
    assert isinstance(unknown, UnknownPart)
    assert unknown.source_type == "token_budget" and unknown.raw == {"type": "token_budget", "budget": 4096}
    [warning] = conv.warnings
    assert warning.code == "UNKNOWN_CONTENT_TYPE" and "token_budget" in warning.message


def test_thinking_summary_objects_and_duration() -> None:
    [conv] = read_file("owi-importer_claude_thinking_example.json")
    reasoning = parts_of(conv, ReasoningPart)[0]
    assert reasoning.summary == "Planning a warm greeting"
    assert reasoning.duration_sec == 2.0
    assert texts(conv.messages) == ["Can you greet me?", "Hello there! It's great to hear from you."]


def test_tool_messages() -> None:
    convs = read_file("echomine_claude_tool_messages.json")
    assert [len(tree.active_path(c)) for c in convs] == [6, 4, 5, 8]
    calls = [p for c in convs for p in parts_of(c, ToolCallPart)]
    assert {c.name for c in calls} == {
        "write_file",
        "execute_code",
        "web_search",
        "bash",
        "read_file",
        "calculator",
        "check_prime",
    }
    assert calls[0].arguments["path"] == "fibonacci.py"
    results = [p for c in convs for p in parts_of(c, ToolResultPart)]
    assert len(results) == len(calls) == 8
    calculator = next(r for r in results if r.name == "calculator")
    assert calculator.output == "5754" and calculator.call_id == "toolu_07A8B9C0D1E2F3"
    # a human turn holding only tool results is a tool message
    assert [m.role for m in tree.active_path(convs[3])] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_old_export_inline_artifacts() -> None:
    [conv] = read_file("simonw_claude_artifacts.json")
    path = tree.active_path(conv)
    assert len(path) == 20
    assert [m.role for m in path] == ["user", "assistant"] * 10
    assert texts(path)[0].startswith("Built me an artifact with no react")
    artifacts = parts_of(conv, ArtifactPart)
    assert len(artifacts) == 10
    assert {a.artifact_id for a in artifacts} == {"llm-pricing-calculator"}
    assert {a.kind for a in artifacts} == {"text/html"}
    assert artifacts[0].title == "LLM Pricing Calculator"
    assert artifacts[-1].title == "LLM Pricing Calculator with Responsive Layout and Refined Output"
    assert all(
        a.content.startswith("<!DOCTYPE html>") and a.content.rstrip().endswith("</html>") for a in artifacts
    )
    assert all("<antArtifact" not in t and "<antThinking" not in t for t in texts(conv.messages))
    assert len(parts_of(conv, ReasoningPart)) == 10
    shots = [p for p in path[6].parts if isinstance(p, AttachmentPart)]
    assert len(shots) == 5 and all(s.kind == "image" for s in shots)
    assert [w.code for w in conv.warnings] == ["ORDER_FROM_TIMESTAMPS"]


def test_old_export_image_file() -> None:
    [conv] = read_file("simonw_claude_example.json")
    assert conv.title == "Bash Command for OpenAI API"
    [image] = parts_of(conv, AttachmentPart)
    assert (image.kind, image.name, image.mime_type) == (
        "image",
        "CleanShot 20241017 at 22.29.542x.png",
        "image/png",
    )
    assert texts(conv.messages)[0] == "Turn this into a bash command"


# ---------------------------------------------------------------- site API tree


def api_conversation() -> dict:
    """A chat_conversations tree=True&rendering_mode=messages object with an edit branch."""

    def msg(uuid, parent, sender, index, content, **extra):
        return {
            "uuid": uuid,
            "parent_message_uuid": parent,
            "sender": sender,
            "index": index,
            "created_at": f"2025-05-01T10:00:0{index}Z",
            "text": "",
            "content": content,
            **extra,
        }

    artifact = {
        "id": "haiku",
        "type": "application/vnd.ant.code",
        "language": "python",
        "title": "Haiku generator",
        "command": "create",
        "content": "print('old pond')",
        "version_uuid": "v-1",
    }
    return {
        "uuid": "0b1e8c2e-1111-4222-8333-944455556666",
        "name": "Haiku tool",
        "model": "claude-sonnet-4-5",
        "created_at": "2025-05-01T10:00:00Z",
        "updated_at": "2025-05-01T10:05:00Z",
        "project_uuid": "proj-42",
        "current_leaf_message_uuid": "m4b",
        "chat_messages": [
            msg(
                "m1",
                ROOT,
                "human",
                0,
                [{"type": "text", "text": "Write a haiku generator"}],
                files_v2=[
                    {
                        "file_kind": "image",
                        "file_uuid": "f-1",
                        "file_name": "pond.webp",
                        "preview_asset": {"url": "/api/f-1/preview", "image_width": 640, "image_height": 480},
                    }
                ],
                files=[{"file_kind": "image", "file_uuid": "f-1", "file_name": "pond.webp"}],
            ),
            msg(
                "m2",
                "m1",
                "assistant",
                1,
                [
                    {
                        "type": "thinking",
                        "thinking": "A tiny script will do.",
                        "summaries": [{"summary": "Plan"}],
                        "cut_off": False,
                    },
                    {"type": "text", "text": "Here it is."},
                    {"type": "tool_use", "id": "tu-1", "name": "artifacts", "input": artifact},
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu-1",
                        "content": [{"type": "text", "text": "OK"}],
                    },
                ],
            ),
            msg("m3a", "m2", "human", 2, [{"type": "text", "text": "Make it rhyme"}]),
            msg("m4a", "m3a", "assistant", 3, [{"type": "text", "text": "Rhymed version"}]),
            # listed before its parent: the reader must still put parents first
            msg(
                "m4b",
                "m3b",
                "assistant",
                5,
                [
                    {
                        "type": "tool_use",
                        "id": "tu-2",
                        "name": "artifacts",
                        "input": {
                            "id": "haiku",
                            "command": "update",
                            "old_str": "old pond",
                            "new_str": "old pond, a frog leaps in",
                            "version_uuid": "v-2",
                        },
                    },
                    {
                        "type": "tool_use",
                        "id": "tu-3",
                        "name": "web_search",
                        "input": {"query": "basho frog"},
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu-3",
                        "name": "web_search",
                        "content": [
                            {
                                "type": "knowledge",
                                "title": "Basho's frog",
                                "url": "https://example.org/frog",
                                "metadata": {"site_domain": "example.org"},
                            }
                        ],
                    },
                    {"type": "tool_use", "id": "tu-4", "name": "github:search_code", "input": {"q": "haiku"}},
                    {
                        "type": "text",
                        "text": "Longer now, with a frog.",
                        "citations": [
                            {
                                "uuid": "c1",
                                "start_index": 0,
                                "end_index": 10,
                                "details": {"type": "web_search_citation", "url": "https://example.org/frog"},
                            }
                        ],
                    },
                ],
            ),
            msg("m3b", "m2", "human", 4, [{"type": "text", "text": "Make it longer"}]),
        ],
    }


def test_api_tree_branches_and_active_path() -> None:
    [conv] = read_object(api_conversation())
    assert conv.provenance.method == "site_api" and conv.provenance.reader == "claude.api"
    assert conv.title == "Haiku tool" and conv.default_model == "claude-sonnet-4-5"
    assert conv.source.project == "proj-42"
    assert tree.branch_points(conv) == 1
    assert conv.active_leaf == "m4b"
    assert [m.id for m in tree.active_path(conv)] == ["m1", "m2", "m3b", "m4b"]
    assert [m.id for m in conv.messages].index("m3b") < [m.id for m in conv.messages].index("m4b")
    assert conv.messages[0].parent is None
    [image] = parts_of(conv, AttachmentPart)  # files and files_v2 repeat the same upload
    assert (image.kind, image.asset_pointer, image.width) == ("image", "f-1", 640)
    reasoning = parts_of(conv, ReasoningPart)[0]
    assert (reasoning.text, reasoning.summary) == ("A tiny script will do.", "Plan")
    first, second = parts_of(conv, ArtifactPart)
    assert (first.title, first.language, first.command, first.version) == (
        "Haiku generator",
        "python",
        "create",
        "v-1",
    )
    # the update edit is applied to the version on this branch
    assert (second.command, second.version, second.content) == (
        "update",
        "v-2",
        "print('old pond, a frog leaps in')",
    )
    search = next(p for p in parts_of(conv, ToolResultPart) if p.name == "web_search")
    assert [(c.title, c.url) for c in search.citations] == [("Basho's frog", "https://example.org/frog")]
    assert "github:search_code" in {p.name for p in parts_of(conv, ToolCallPart)}
    [cited] = [p for p in parts_of(conv, TextPart) if p.citations]
    assert (cited.citations[0].url, cited.citations[0].end) == ("https://example.org/frog", 10)
    assert_round_trip(conv)


def test_api_leaf_fallback_and_unresolved_edit() -> None:
    data = api_conversation()
    del data["current_leaf_message_uuid"]
    data["chat_messages"][1]["content"].pop(2)  # the artifact is never created, so the update has no base
    [conv] = read_object(data)
    assert conv.active_leaf == "m3b"  # the last message of the list
    assert [m.id for m in tree.active_path(conv)] == ["m1", "m2", "m3b"]
    assert not parts_of(conv, ArtifactPart)
    assert any(
        p.name == "artifacts" and p.arguments["old_str"] == "old pond" for p in parts_of(conv, ToolCallPart)
    )
    assert "ARTIFACT_EDIT_UNRESOLVED" in [w.code for w in conv.warnings]


def test_api_dangling_parent_and_detect() -> None:
    data = api_conversation()
    data["chat_messages"][2]["parent_message_uuid"] = "missing"
    [conv] = read_object(data)
    assert tree.by_id(conv)["m3a"].parent is None
    assert "DANGLING_PARENT" in [w.code for w in conv.warnings]
    assert claude.detect(RawInput(name="x", data=data, raw=b""))
    assert not claude.detect(RawInput(name="x", data={"chat_messages": []}, raw=b""))
    assert not claude.detect(RawInput(name="x", data={"format": "mnemosyne.capture"}, raw=b""))


def test_export_zip_with_projects(tmp_path: Path) -> None:
    in_project = copy.deepcopy(api_conversation())
    in_project["project_uuid"] = "proj-1"
    plain = {
        "uuid": "c-plain",
        "name": "",
        "chat_messages": [
            {"uuid": "p1", "sender": "human", "text": "hello there", "created_at": "2025-01-01T00:00:00Z"}
        ],
    }
    projects = [
        {
            "uuid": "proj-1",
            "name": "Poetry lab",
            "prompt_template": "Answer in verse.",
            "docs": [{"uuid": "d1", "filename": "style.md", "content": "Use 5-7-5."}],
        }
    ]
    zip_path = tmp_path / "claude-export.zip"
    with zipfile.ZipFile(zip_path, "w") as archive:
        archive.writestr("conversations.json", json.dumps([in_project, plain]))
        archive.writestr("projects.json", json.dumps(projects))
        archive.writestr("users.json", json.dumps([{"uuid": "u1"}]))
    [raw] = load_path(zip_path)
    assert "projects.json" in raw.members
    first, second = read_raw(raw, fmt="claude")
    assert first.provenance.method == "official_export"
    assert first.source.project == "Poetry lab"
    assert [(i.kind, i.title, i.text) for i in first.instructions] == [
        ("project_instructions", "Poetry lab", "Answer in verse."),
        ("project_instructions", "style.md", "Use 5-7-5."),
    ]
    assert second.instructions == [] and second.source.project is None and second.title is None
    assert texts(second.messages) == ["hello there"] and second.messages[0].role == "user"
    for conv in (first, second):
        assert_round_trip(conv)


def test_broken_conversation_in_export_is_a_failure() -> None:
    odd = {"uuid": "odd", "name": 5, "chat_messages": [{"uuid": "x", "sender": "human", "content": "plain"}]}
    results = read_object([api_conversation(), {"name": "no messages"}, odd])
    assert isinstance(results[0], Conversation)
    assert isinstance(results[1], ReadFailure) and "not a Claude conversation" in results[1].error.message
    assert results[2].title is None and texts(results[2].messages) == ["plain"]
