"""The ChatGPT reader on real site-API captures, official exports and third-party synthetic samples."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mnemosyne import canonical, tree
from mnemosyne.errors import InputError
from mnemosyne.model import (
    ArtifactPart,
    AttachmentPart,
    CitationPart,
    CodeOutputPart,
    CodePart,
    Conversation,
    ReasoningPart,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from mnemosyne.readers import chatgpt, load_path, read_raw
from mnemosyne.readers.base import RawInput, ReadContext, ReadFailure

FIXTURES = Path(__file__).parents[1] / "fixtures"
ALL_FILES = sorted(
    p
    for folder in ("chatgpt_api", "chatgpt_export", "chatgpt_synthetic")
    for p in (FIXTURES / folder).rglob("*.json")
)


def read_all(path: Path, ctx: ReadContext | None = None) -> list:
    return [item for raw in load_path(path) for item in read_raw(raw, ctx, fmt="chatgpt")]


def one(pattern: str) -> Conversation:
    matches = sorted(FIXTURES.glob(pattern))
    assert len(matches) == 1, pattern
    items = read_all(matches[0])
    assert len(items) == 1 and isinstance(items[0], Conversation)
    return items[0]


def parts(messages, kind) -> list:
    return [p for m in messages for p in m.parts if isinstance(p, kind)]


def texts(messages) -> str:
    return "\n".join(p.text for p in parts(messages, TextPart))


def tool_authors(conv: Conversation) -> set[str]:
    return {m.author for m in conv.messages if m.role == "tool" and m.author}


# ---------------------------------------------------------------- every fixture


def test_fixture_set_is_complete():
    assert len(ALL_FILES) == 22


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name[:40])
def test_every_fixture_converts_whole_and_round_trips(path: Path):
    raws = load_path(path)
    assert all(chatgpt.detect(raw) for raw in raws)
    convs = [c for c in read_all(path) if isinstance(c, Conversation)]
    assert convs
    for conv in convs:
        assert conv.source.site == "chatgpt" and conv.messages
        seen: set[str] = set()
        for msg in conv.messages:  # parents before children, no dangling parent
            assert msg.parent is None or msg.parent in seen
            seen.add(msg.id)
        assert conv.active_leaf in seen
        text = canonical.dumps(conv)
        assert canonical.dumps(canonical.loads(text)) == text


@pytest.mark.parametrize(
    "pattern,branches",
    [
        ("chatgpt_api/llmfarm_dialog-data_mapping.json", 8),
        ("chatgpt_api/elinvoss/0029-*.json", 2),
        ("chatgpt_api/elinvoss/0124-*.json", 1),
        ("chatgpt_export/librechat_chatgpt-tree.json", 2),
        ("chatgpt_synthetic/pionxzh_image-generation.json", 2),
        ("chatgpt_api/elinvoss/0001-*.json", 0),
    ],
)
def test_branch_points_survive(pattern: str, branches: int):
    assert tree.branch_points(one(pattern)) == branches


# ---------------------------------------------------------------- trees and branches


def test_edited_tree_keeps_every_branch_and_follows_current_node():
    conv = one("chatgpt_export/librechat_chatgpt-tree.json")
    assert len(conv.messages) == 12
    path = tree.active_path(conv)
    assert [m.role for m in path] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert conv.active_leaf == "f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8"
    assert "hi again" in texts(path) and "tell me a joke" in texts(path)
    story = [m for m in conv.messages if m.id.startswith("ada93f81")][0]
    assert story.status == "interrupted" and "Once upon a time" in texts([story])
    assert "tell me a story" not in texts(path)
    assert conv.default_model == "text-davinci-002-render-sha"


def test_user_edit_branch_keeps_both_questions():
    conv = one("chatgpt_api/elinvoss/0124-*.json")
    path = tree.active_path(conv)
    assert len(path) == 20
    assert "The front left struts nut was loose" in texts(path)
    assert "struts but was loose" not in texts(path)
    abandoned = [m for m in conv.messages if "struts but was loose" in texts([m])]
    assert len(abandoned) == 1
    (reply,) = [m for m in conv.messages if m.parent == abandoned[0].id]
    assert reply.status == "interrupted"
    assert "web.run" in tool_authors(conv)


def test_bare_mapping_without_wrapper():
    path = FIXTURES / "chatgpt_api/llmfarm_dialog-data_mapping.json"
    conv = one(path.relative_to(FIXTURES).as_posix())
    assert len(conv.messages) == 32
    active = tree.active_path(conv)
    assert len(active) == 19
    assert [m.role for m in active[:3]] == ["system", "user", "assistant"]
    assert conv.source.conversation_id is None and conv.source.url is None
    assert conv.id == one(path.relative_to(FIXTURES).as_posix()).id  # content-hash id is stable
    assert "你好" in texts(active)


# ---------------------------------------------------------------- content types on real data


def test_canvas_python_and_file_search():
    conv = one("chatgpt_api/elinvoss/0001-*.json")
    assert len(tree.active_path(conv)) == 28
    assert {"python", "file_search", "canmore.create_textdoc"} <= tool_authors(conv)
    (doc,) = parts(conv.messages, ArtifactPart)
    assert doc.title == "First 8 Chapters Rewrite" and doc.command == "create"
    assert doc.artifact_id == "688c6608e354819188b9e2f67fced30f" and doc.version == "1"
    assert "Counter-Spark" in doc.content
    (code,) = parts(conv.messages, CodePart)
    assert code.language == "python" and "from docx import Document" in code.code
    assert [p.text for p in parts(conv.messages, CodeOutputPart)] == ["8317"]
    (quote,) = parts(conv.messages, CitationPart)
    assert quote.title == "finally.docx" and "Cosmic Argument" in quote.text
    uploads = [p for p in parts(conv.messages, AttachmentPart) if p.kind == "file"]
    assert [u.name for u in uploads] == ["finally.docx"]


def test_python_runs_with_images():
    conv = one("chatgpt_api/elinvoss/0073-*.json")
    assert [p.language for p in parts(conv.messages, CodePart)] == ["python"] * 3
    outputs = parts(conv.messages, CodeOutputPart)
    assert sum(len(o.images) for o in outputs) == 2
    assert len(parts(conv.messages, ReasoningPart)) >= 10
    (photo,) = [p for p in parts(conv.messages, AttachmentPart) if p.kind == "image"]
    assert photo.mime_type == "image/jpeg" and photo.width == 1152 and photo.name.endswith(".jpeg")


def test_voice_mode_transcripts_and_audio():
    conv = one("chatgpt_api/elinvoss/0075-*.json")
    active = tree.active_path(conv)
    assert "I don't have the old plug to line it up." in texts(active)
    audio = [p for p in parts(active, AttachmentPart) if p.kind == "audio"]
    assert len(audio) == 10 and all(a.asset_pointer.startswith("sediment://") for a in audio)
    calls = parts(conv.messages, ToolCallPart)
    assert [c.name for c in calls] == ["web.search"]
    cited = [p for p in parts(active, TextPart) if p.citations]
    assert cited and any("infinitybox.com" in (c.url or "") for c in cited[-1].citations)


def test_video_upload_keeps_its_transcript():
    conv = one("chatgpt_api/elinvoss/0054-*.json")
    (video,) = [p for p in parts(conv.messages, AttachmentPart) if p.kind == "video"]
    assert video.mime_type == "video/mp4" and video.size_bytes == 15793167
    assert "19mm" in video.extracted_text


def test_thinking_model_custom_gpt_interrupted_answer():
    conv = one("chatgpt_api/elinvoss/0119-*.json")
    path = tree.active_path(conv)
    assert len(path) == 7 and sum(m.hidden for m in path) == 3
    recap = [p for p in parts(path, ReasoningPart) if p.summary == "Thought for 15s"]
    assert recap and recap[0].duration_sec == 15
    assert path[-1].status == "interrupted" and path[-1].model == "gpt-5-thinking"
    assert conv.source.project == "g-69119d14ce108191b6951c67e9fd7e3b"
    assert (
        conv.source.url
        == f"https://chatgpt.com/g/{conv.source.project}/c/6925e174-6714-832f-8946-84bdb22f6d2e"
    )
    assert conv.provenance.method == "site_api" and conv.provenance.reader == "chatgpt.api"


def test_system_error_from_python_tool():
    conv = one("chatgpt_api/elinvoss/0210-*.json")
    (error,) = parts(conv.messages, SystemErrorPart)
    assert error.name == "ChatGPTAgentToolRateLimitException"
    assert [m.author for m in conv.messages if any(isinstance(p, SystemErrorPart) for p in m.parts)] == [
        "python"
    ]
    assert any(
        p.language == "python" for p in parts(conv.messages, CodePart)
    )  # python sent as commentary text
    (upload,) = parts(conv.messages, AttachmentPart)
    assert upload.name == "layout.png" and upload.mime_type == "image/png"


def test_web_run_call_and_search_results():
    conv = one("chatgpt_api/fanout_chatgpt-conversation-webrun.json")
    (call,) = parts(conv.messages, ToolCallPart)
    assert call.name == "web.run" and "system1_search_query" in call.arguments
    (result,) = parts(conv.messages, ToolResultPart)
    assert result.name == "web.run"
    assert any("reuters.com" in (c.url or "") for c in result.citations)


def test_browsing_plugin_export():
    convs = read_all(FIXTURES / "chatgpt_export/librechat_chatgpt-export.json")
    assert [c.title for c in convs] == ["Conversation 1. Web Search", "Conversation 2"]
    web = convs[0]
    assert tool_authors(web) == {"browser"}
    assert [c.name for c in parts(web.messages, ToolCallPart)] == ["browser"] * 4
    assert len(parts(web.messages, CitationPart)) == 3
    assert all(p.url.startswith("https://") for p in parts(web.messages, CitationPart))
    assert all(c.provenance.method == "official_export" for c in convs)


def test_answer_citations_keep_spans():
    conv = one("chatgpt_export/librechat_chatgpt-citations.json")
    answer = [p for p in parts(conv.messages, TextPart) if p.citations][0]
    assert len(answer.citations) == 4
    first = answer.citations[0]
    assert first.url == "https://www.crunchbase.com/organization/signal-sciences" and first.start == 674
    assert any(w.code == "DANGLING_PARENT" for w in conv.warnings)


def test_custom_instructions_are_hidden_and_lifted():
    conv = one("chatgpt_export/echomine_001_simple_text.json")
    assert [i.kind for i in conv.instructions] == ["custom_instructions", "custom_instructions"]
    assert [i.title for i in conv.instructions] == ["About the user", "How to respond"]
    (context,) = [m for m in conv.messages if "How to respond" in texts([m])]
    assert context.hidden and context.role == "user"
    visible = [m for m in tree.active_path(conv) if not m.hidden]
    assert [m.role for m in visible] == ["user", "assistant", "assistant"]


def test_image_upload_in_export():
    conv = one("chatgpt_export/echomine_002_with_images.json")
    (image,) = parts(conv.messages, AttachmentPart)
    assert image.asset_pointer == "file-service://file-6y9faxjcnXrzx8UTUQepS7" and image.width == 1536
    assert "Interpret" in texts(conv.messages)


# ---------------------------------------------------------------- synthetic samples


def test_content_type_zoo_keeps_unknowns_with_warnings():
    conv = one("chatgpt_synthetic/echomine_openai_content_types.json")
    by_id = {m.id: m for m in conv.messages}
    assert conv.active_leaf == "node-recipient"  # no current_node: newest leaf
    (unknown,) = by_id["node-unknown"].parts
    assert isinstance(unknown, UnknownPart) and unknown.source_type == "brand_new_type"
    assert unknown.raw["parts"] == ["some data"]
    codes = {(w.code, w.message) for w in conv.warnings}
    assert ("UNKNOWN_CONTENT_TYPE", "content type 'brand_new_type' kept as an unknown part") in codes
    assert isinstance(by_id["node-sys-error"].parts[0], SystemErrorPart)
    assert isinstance(by_id["node-tether-quote"].parts[0], CitationPart)
    assert by_id["node-recipient"].parts[0].language == "python"
    assert by_id["node-user-editable"].hidden
    assert conv.instructions[0].text == "Custom instructions text"
    image = by_id["node-multimodal"].parts[1]
    assert isinstance(image, AttachmentPart) and image.asset_pointer == "sediment://file_abc123"


def test_corrupted_entry_fails_alone():
    items = read_all(FIXTURES / "chatgpt_synthetic/librechat_chatgpt-modern-export.json")
    assert [type(i).__name__ for i in items] == ["Conversation", "ReadFailure", "Conversation"]
    failure = items[1]
    assert "[1]" in failure.label and "Corrupted entry" in failure.label
    assert failure.error.code == "BAD_INPUT" and "mapping" in failure.error.message
    staging = items[0]
    assert {i.text for i in staging.instructions} == {"The user is an SRE.", "Answer concisely."}
    assert [m.role for m in tree.active_path(staging) if not m.hidden] == ["user", "assistant"] * 2
    assert items[2].title == "Weeknight pasta" and texts(items[2].messages).endswith("Puttanesca.")


def test_thinking_summaries_in_order():
    conv = one("chatgpt_synthetic/pionxzh_thinking-summaries.json")
    reasoning = parts(tree.active_path(conv), ReasoningPart)
    assert [r.text for r in reasoning if r.text] == ["thought 1", "thought 2", "thought 3", "thought 4"]
    assert [r.summary for r in reasoning if r.duration_sec] == ["Thought for 29s", "Thought for 14s"]
    assert "answer 1" in texts(conv.messages) and "answer 2" in texts(conv.messages)
    assert tool_authors(conv) == {"web.run"}


def test_image_generation_regenerations():
    conv = one("chatgpt_synthetic/pionxzh_image-generation.json")
    assert conv.active_leaf == "n24" and len(tree.active_path(conv)) == 22
    pointers = {p.asset_pointer for p in parts(conv.messages, AttachmentPart)}
    assert pointers == {f"sediment://file_{i}" for i in range(1, 6)}
    assert sum(m.hidden for m in conv.messages) == 9


# ---------------------------------------------------------------- methods, zips, detection


def test_method_override_and_export_names():
    api = FIXTURES / "chatgpt_api/fanout_chatgpt-conversation-webrun.json"
    (conv,) = read_all(api, ReadContext(method="page_dom", source_url="https://chatgpt.com/c/x"))
    assert conv.provenance.method == "page_dom" and conv.source.url == "https://chatgpt.com/c/x"
    data = api.read_bytes()
    raw = RawInput(name="export.zip:conversations-003.json", data=json.loads(data), raw=data)
    (exported,) = read_raw(raw, fmt="chatgpt")
    assert exported.provenance.method == "official_export" and exported.provenance.reader == "chatgpt.export"


def test_export_zip(tmp_path: Path):
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(FIXTURES / "chatgpt_export/librechat_chatgpt-export.json", "conversations.json")
        zf.writestr("user.json", "{}")
    (raw,) = load_path(archive)
    assert raw.name.endswith("conversations.json") and chatgpt.detect(raw)
    convs = list(read_raw(raw, fmt="chatgpt"))
    assert [c.title for c in convs] == ["Conversation 1. Web Search", "Conversation 2"]
    assert all(c.provenance.method == "official_export" for c in convs)
    assert convs[0].provenance.raw_sha256 != convs[1].provenance.raw_sha256


def test_split_export_zip(tmp_path: Path):
    export = json.loads((FIXTURES / "chatgpt_export/librechat_chatgpt-export.json").read_text())
    tree_conv = json.loads((FIXTURES / "chatgpt_export/librechat_chatgpt-tree.json").read_text())
    archive = tmp_path / "split.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("conversations-000.json", json.dumps(export))
        zf.writestr("conversations-001.json", json.dumps(tree_conv))
    raws = load_path(archive)
    assert [r.name.rsplit(":", 1)[1] for r in raws] == ["conversations-000.json", "conversations-001.json"]
    convs = [c for raw in raws for c in read_raw(raw, fmt="chatgpt")]
    assert [c.title for c in convs] == [
        "Conversation 1. Web Search",
        "Conversation 2",
        "Assist user with summary",
    ]
    assert tree.branch_points(convs[2]) == 2


@pytest.mark.parametrize(
    "data",
    [
        {"format": "mnemosyne.conversation"},
        [{"role": "user", "content": "hi"}],
        {"mapping": {}},
        {"mapping": {"a": "not a node"}},
        [],
        ["x", 1],
        {"a": {"id": "b", "message": None}},
    ],
)
def test_detect_rejects_other_shapes(data):
    assert not chatgpt.detect(RawInput(name="x.json", data=data, raw=b"{}"))


def test_detect_rejects_claude_export():
    for raw in load_path(FIXTURES / "claude_export/simonw_claude_example.json"):
        assert not chatgpt.detect(raw)


def test_unreadable_single_input_is_a_typed_error():
    with pytest.raises(InputError, match="not a ChatGPT conversation"):
        list(chatgpt.read(RawInput(name="bad.json", data={"title": "x"}, raw=b"{}"), ReadContext()))
    with pytest.raises(InputError, match="bad.json"):
        list(chatgpt.read(RawInput(name="bad.json", data={"mapping": [1, 2]}, raw=b"{}"), ReadContext()))


# ---------------------------------------------------------------- hand-built trees


def node(nid, parent, role=None, content=None, **msg):
    body = None
    if role:
        body = {
            "id": nid,
            "author": {"role": role},
            "content": content or {"content_type": "text", "parts": [""]},
            "recipient": "all",
            **msg,
        }
    return nid, {"id": nid, "parent": parent, "message": body}


def text(s):
    return {"content_type": "text", "parts": [s]}


def convert(*nodes, **conv):
    data = {"id": "conv-1", "mapping": dict(nodes), **conv}
    raw = RawInput(name="c.json", data=data, raw=json.dumps(data).encode())
    (result,) = chatgpt.read(raw, ReadContext())
    return result


def test_continue_generating_is_merged_only_when_cut_at_length():
    cut = {"finish_details": {"type": "max_tokens"}}
    nodes = [
        node("root", None),
        node("u1", "root", "user", text("Write a long poem")),
        node("a1", "u1", "assistant", text("Roses are red, vio"), metadata=cut),
        node("a2", "a1", "assistant", text("lets are blue.")),
        node("u2", "a2", "user", text("Thanks")),
    ]
    conv = convert(*nodes, current_node="u2")
    assert [m.id for m in conv.messages] == ["u1", "a1", "u2"]
    assert conv.messages[1].parts[0].text == "Roses are red, violets are blue."
    assert conv.messages[2].parent == "a1" and conv.active_leaf == "u2"
    nodes[2] = node("a1", "u1", "assistant", text("Roses are red."))
    plain = convert(*nodes, current_node="u2")
    assert [m.id for m in plain.messages] == ["u1", "a1", "a2", "u2"]


def test_canvas_update_memory_and_deep_research():
    state = json.dumps(
        {"report_message": {"content": {"content_type": "text", "parts": ["# Findings\nAll good."]}}}
    )
    update = json.dumps({"updates": [{"pattern": ".*", "multiple": False, "replacement": "v2 of the doc"}]})
    conv = convert(
        node(
            "m",
            None,
            "user",
            {"content_type": "model_editable_context", "model_set_context": "1. Likes Rust"},
        ),
        node("u", "m", "user", text("Rewrite the doc")),
        node(
            "a",
            "u",
            "assistant",
            {"content_type": "code", "language": "json", "text": update},
            recipient="canmore.update_textdoc",
        ),
        node("t", "a", "tool", text("Updated"), metadata={"canvas": {"textdoc_id": "doc9", "version": 2}}),
        node("r", "t", "assistant", text("Done."), metadata={"chatgpt_sdk": {"widget_state": state}}),
    )
    assert conv.instructions[0].kind == "memory" and conv.instructions[0].text == "1. Likes Rust"
    assert conv.messages[0].hidden
    (doc,) = parts(conv.messages, ArtifactPart)[:1]
    assert (doc.command, doc.content, doc.artifact_id, doc.version) == (
        "rewrite",
        "v2 of the doc",
        "doc9",
        "2",
    )
    report = parts([conv.messages[-1]], ArtifactPart)
    assert report[0].kind == "text/markdown" and report[0].content.startswith("# Findings")
    assert conv.source.url == "https://chatgpt.com/c/conv-1"


def test_deep_chains_do_not_crash_and_cycles_keep_every_message():
    chain = [node("n0", None, "user", text("start"))]
    chain += [
        node(f"n{i}", f"n{i - 1}", "assistant" if i % 2 else "user", text(str(i))) for i in range(1, 3000)
    ]
    long = convert(*chain)
    assert len(long.messages) == 3000 and len(tree.active_path(long)) == 3000
    looped = convert(
        node("a", "b", "user", text("x")),
        node("b", "a", "assistant", text("y")),
        node("c", None, "user", text("z")),
    )
    assert [(m.id, m.parent) for m in looped.messages] == [("c", None), ("a", None), ("b", "a")]
    assert any(w.code == "PARENT_CYCLE" for w in looped.warnings)


def test_unknown_role_and_bad_current_node_are_reported():
    conv = convert(
        node("u", None, "user", text("hi")), node("x", "u", "critic", text("meh")), current_node="zzz"
    )
    assert conv.messages[1].role == "tool" and conv.messages[1].author == "critic"
    assert {w.code for w in conv.warnings} >= {"UNKNOWN_ROLE", "MISSING_CURRENT_NODE"}
    assert conv.active_leaf == "x"


def test_failure_objects_are_read_failures():
    bad = RawInput(
        name="conversations.json", data=[{"title": "ok", "mapping": {}}, {"title": "broken"}], raw=b"[]"
    )
    items = list(chatgpt.read(bad, ReadContext()))
    assert isinstance(items[0], Conversation) and not items[0].messages
    assert isinstance(items[1], ReadFailure) and "'broken'" in items[1].label


def test_citation_markers_become_the_links_the_site_shows():
    conv = one("chatgpt_api/elinvoss/0075-Wiring*")
    text = texts(conv.messages)
    assert "\ue200" not in text and "\ue201" not in text
    assert "([Ford Explorer Forums](https://www.explorerforum.com/" in text
