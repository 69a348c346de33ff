"""Newer ChatGPT shapes: the plural conversations endpoint, project chats, embedded apps.

The plural GET /backend-api/conversations/{id}?num_turns=N returns `messages` (the latest turns
of the active branch, as message objects) and `page_info`, and no `mapping` (shape as read by
public exporters that page it with `before`). It is built here from a real site-API capture.
"""

from __future__ import annotations

import json
from pathlib import Path

from mnemosyne import tree
from mnemosyne.model import Conversation, UnknownPart
from mnemosyne.readers import ReadContext, detect, read_raw
from mnemosyne.readers.base import RawInput

FIXTURES = Path(__file__).parents[1] / "fixtures"
API = next((FIXTURES / "chatgpt_api/elinvoss").glob("0119-*.json"))


def read_one(data: dict) -> Conversation:
    raw = RawInput(name="capture.json", data=data, raw=json.dumps(data).encode())
    (conv,) = list(read_raw(raw, ReadContext()))
    assert isinstance(conv, Conversation)
    return conv


def active_messages(data: dict) -> list[dict]:
    path, key = [], data["current_node"]
    while key:
        node = data["mapping"][key]
        if node.get("message"):
            path.append(node["message"])
        key = node.get("parent")
    return path[::-1]


def test_the_plural_endpoint_window_is_read_in_order_and_marked_partial():
    data = json.loads(API.read_text(encoding="utf-8"))
    whole = read_one(data)
    window = active_messages(data)[-4:]
    plural = {
        "title": data["title"],
        "conversation_id": data["conversation_id"],
        "messages": window,
        "page_info": {"has_previous_page": True, "start_cursor": "cursor-1"},
    }
    raw = RawInput(name="capture.json", data=plural, raw=b"{}")
    assert detect(raw).NAME == "chatgpt"
    conv = read_one(plural)
    assert conv.provenance.partial and not whole.provenance.partial
    assert any(w.code == "PARTIAL_CONVERSATION" for w in conv.warnings)
    assert [m.id for m in tree.active_path(conv)] == [m["id"] for m in window]
    by_id = {m.id: m for m in whole.messages}
    for message in conv.messages:
        assert message.parts == by_id[message.id].parts


def test_a_project_chat_is_filed_under_its_project():
    data = json.loads(API.read_text(encoding="utf-8"))
    data.pop("gizmo_id", None)
    for node in data["mapping"].values():
        (node.get("message") or {}).get("metadata", {}).pop("gizmo_id", None)
    data["conversation_template_id"] = "g-p-676071f578e48191bb71c4c1757ce2ec"
    assert read_one(data).source.project == "g-p-676071f578e48191bb71c4c1757ce2ec"


def test_a_backed_up_project_chat_carries_the_listed_project_name_and_instructions():
    """The conversation JSON names its project only by id; a backup adds the sidebar's name and instructions."""
    data = json.loads(API.read_text(encoding="utf-8"))
    data.pop("gizmo_id", None)
    for node in data["mapping"].values():
        (node.get("message") or {}).get("metadata", {}).pop("gizmo_id", None)
    data["conversation_template_id"] = "g-p-676071f578e48191bb71c4c1757ce2ec"
    listed = {
        "id": "g-p-676071f578e48191bb71c4c1757ce2ec",
        "name": "Tide tables",
        "instructions": "Answer in Spanish.",
    }
    conv = read_one({**data, "mnemosyne_project": listed})
    assert conv.source.project == "Tide tables"
    assert [(i.kind, i.text, i.title) for i in conv.instructions if i.kind == "project_instructions"] == [
        ("project_instructions", "Answer in Spanish.", "Tide tables")
    ]
    # another project's listing never renames this chat
    stray = read_one({**data, "mnemosyne_project": {**listed, "id": "g-p-someone-else"}})
    assert stray.source.project == "g-p-676071f578e48191bb71c4c1757ce2ec"
    assert not [i for i in stray.instructions if i.kind == "project_instructions"]


def test_an_embedded_app_state_without_a_report_is_kept_and_counted():
    data = json.loads(API.read_text(encoding="utf-8"))
    last = active_messages(data)[-1]
    state = {"app": "canvas-next", "blocks": [{"text": "Tabla de mareas"}]}
    last.setdefault("metadata", {})["chatgpt_sdk"] = {"widget_state": json.dumps(state)}
    conv = read_one(data)
    kept = [p for m in conv.messages for p in m.parts if isinstance(p, UnknownPart)]
    assert any("Tabla de mareas" in json.dumps(p.raw, ensure_ascii=False) for p in kept)
    assert any(w.code == "UNKNOWN_CONTENT_TYPE" and "widget_state" in w.message for w in conv.warnings)


def test_a_deep_research_report_resolves_its_markers():
    data = json.loads(API.read_text(encoding="utf-8"))
    last = active_messages(data)[-1]
    cite = "\ue200cite\ue202turn0search3\ue201"
    report = {
        "content": {
            "content_type": "text",
            "parts": [
                f'# Mareas\n\nSegún \ue200entity\ue202["organization","NOAA"]\ue201 {cite}, dos al día.'
            ],
        },
        "metadata": {
            "content_references": [
                {"matched_text": cite, "alt": "([NOAA](https://tidesandcurrents.noaa.gov))"}
            ]
        },
    }
    state = {"title": "Informe de mareas", "report_message": report}
    last.setdefault("metadata", {})["chatgpt_sdk"] = {"widget_state": json.dumps(state)}
    conv = read_one(data)
    (found,) = [p for m in conv.messages for p in m.parts if getattr(p, "title", None) == "Informe de mareas"]
    assert found.content == "# Mareas\n\nSegún NOAA ([NOAA](https://tidesandcurrents.noaa.gov)), dos al día."
