"""save-attachment / get-attachment over the real host, and the sha256 the portable format then carries."""

from __future__ import annotations

import base64
import hashlib
import json
import os

import pytest

from support.data import load

AI_ORIGIN = "chatgpt_api/elinvoss/0198-AI_Origin_Inquiry-6983ee11-711c-832f-a7b6-2a0791c4f38e.json"
SOURCE_ID = "6983ee11-711c-832f-a7b6-2a0791c4f38e"
FILE_ID = "file_00000000c73c71f58216ef48c6464cab"  # the upload's id; its image part says sediment://<id>


def attachment_parts(doc):
    return [p for m in doc["messages"] for p in m["parts"] if p["type"] == "attachment"]


def fetch(host, digest):
    chunks, cursor, pages = [], None, 0
    while True:
        data = host.data("get-attachment", sha256=digest, **({"cursor": cursor} if cursor else {}))
        chunks.append(base64.b64decode(data["chunk"]))
        pages += 1
        cursor = data["next_cursor"]
        if cursor is None:
            return b"".join(chunks), data, pages


def test_attachment_is_kept_deduplicated_linked_and_paged_back(host, fixtures):
    saved = host.data("save", payload=load(fixtures, AI_ORIGIN), kind="chatgpt_api")
    blob = os.urandom(2 * 672 * 1024 + 123)  # three pages of 672 KiB
    params = {
        "site": "chatgpt",
        "source_id": SOURCE_ID,
        "file_id": FILE_ID,
        "name": "photo.jpeg",
        "mime": "image/jpeg",
    }
    first = host.data("save-attachment", **params, data=base64.b64encode(blob).decode())
    digest = hashlib.sha256(blob).hexdigest()
    assert first == {"sha256": digest, "bytes": len(blob), "status": "created", "linked": True}
    again = host.data(
        "save-attachment",
        **dict(params, file_id="sediment://" + FILE_ID),
        data=base64.b64encode(blob).decode(),
    )
    assert again["status"] == "unchanged" and again["linked"] is True
    back, last, pages = fetch(host, digest)
    assert back == blob and pages == 3
    assert (last["name"], last["mime"], last["bytes"]) == ("photo.jpeg", "image/jpeg", len(blob))
    doc = json.loads(host.paged("get", conversation_id=saved["conversation_id"])[0])
    held = [p for p in attachment_parts(doc) if p.get("sha256")]
    assert held and all(p["sha256"] == digest and p["bytes"] == len(blob) for p in held)
    # a re-save of the conversation from the site keeps the link
    host.data("save", payload=load(fixtures, AI_ORIGIN), kind="chatgpt_api")
    doc = json.loads(host.paged("get", conversation_id=saved["conversation_id"])[0])
    assert any(p.get("sha256") == digest for p in attachment_parts(doc))
    # deleting the conversation deletes the bytes no other conversation links to
    host.data("delete", conversation_id=saved["conversation_id"])
    assert host.call("get-attachment", sha256=digest)["error"]["code"] == "NOT_FOUND"


def test_attachment_sent_before_its_conversation_links_when_it_arrives(host, fixtures):
    blob = b"\x89PNG\r\n\x1a\n" + os.urandom(1000)
    early = host.data(
        "save-attachment",
        site="chatgpt",
        source_id=SOURCE_ID,
        file_id=FILE_ID,
        name="a.png",
        data=base64.b64encode(blob).decode(),
    )
    assert early["linked"] is False and early["status"] == "created"
    saved = host.data("save", payload=load(fixtures, AI_ORIGIN), kind="chatgpt_api")
    doc = json.loads(host.paged("get", conversation_id=saved["conversation_id"])[0])
    assert any(p.get("sha256") == early["sha256"] for p in attachment_parts(doc))


BAD = [
    ({"data": "not base64!!"}, "BAD_REQUEST"),
    ({"data": "QUJD\nRA=="}, "BAD_REQUEST"),
    ({"data": 12}, "BAD_REQUEST"),
    ({"data": ""}, "BAD_REQUEST"),
    ({"site": "example"}, "BAD_REQUEST"),
    ({"source_id": ""}, "BAD_REQUEST"),
    ({"file_id": ["x"]}, "BAD_REQUEST"),
    ({"name": 5}, "BAD_REQUEST"),
]


@pytest.mark.parametrize("change,code", BAD, ids=[f"{next(iter(c))}-{n}" for n, (c, _) in enumerate(BAD)])
def test_bad_attachments_get_typed_errors_and_nothing_is_lost(host, fixtures, change, code):
    saved = host.data("save", payload=load(fixtures, AI_ORIGIN), kind="chatgpt_api")
    params = {"site": "chatgpt", "source_id": SOURCE_ID, "file_id": FILE_ID, "data": "QUJD", **change}
    assert host.call("save-attachment", **params)["error"]["code"] == code
    assert host.data("list")["items"][0]["id"] == saved["conversation_id"]


def test_oversize_attachment_is_refused_before_decoding(host):
    data = "A" * (4 * (32 * 1024 * 1024 // 3 + 2))  # just over 32 MiB decoded
    reply = host.call("save-attachment", timeout=120, site="chatgpt", source_id="s", file_id="f", data=data)
    assert reply["error"]["code"] == "ATTACHMENT_TOO_LARGE"
    assert host.data("hello")["protocol"] == 1


@pytest.mark.parametrize(
    "params,code",
    [
        ({"sha256": "0" * 64}, "NOT_FOUND"),
        ({"sha256": "../etc/passwd"}, "BAD_REQUEST"),
        ({}, "BAD_REQUEST"),
        ({"sha256": hashlib.sha256(b"ABC").hexdigest(), "cursor": "bm9wZQ"}, "BAD_CURSOR"),
    ],
    ids=["unknown", "not-hex", "missing", "cursor"],
)
def test_get_attachment_errors(host, params, code):
    host.data("save-attachment", site="claude", source_id="c1", file_id="u1", data="QUJD")
    assert host.call("get-attachment", **params)["error"]["code"] == code


def test_claude_file_links_by_its_file_uuid(host, fixtures):
    [conv] = load(fixtures, "claude_export/echomine_claude_attachments.json")
    saved = host.data("save", payload=conv, kind="claude_api")
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(300)
    params = {"site": "claude", "source_id": conv["uuid"], "name": "image.png", "mime": "image/png"}
    kept = host.data(
        "save-attachment", **params, file_id="file-uuid-002", data=base64.b64encode(png).decode()
    )
    assert kept["linked"] is True
    stray = host.data(
        "save-attachment", **params, file_id="file-uuid-999", data=base64.b64encode(b"x").decode()
    )
    assert stray["linked"] is False  # no attachment of that conversation has this id
    doc = json.loads(host.paged("get", conversation_id=saved["conversation_id"])[0])
    held = {p.get("name"): p.get("sha256") for p in attachment_parts(doc)}
    assert held["image.png"] == kept["sha256"] and held["data.csv"] is None
