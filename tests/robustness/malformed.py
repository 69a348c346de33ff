"""The malformed-input corpus: (name, request frame body, expected reply code).

"OK" means the input is legal and must be accepted (a tolerated unknown
envelope key, text that only looks like an escape). Every other entry names
the code from host/PROTOCOL.md the host must answer with. TOLERATED marks
wrong types deep inside site JSON, which the readers may keep with a warning
(sites change shapes; refusing a whole conversation for one odd field loses it).
"""

from __future__ import annotations

import json

from .hostio import capture_payload

MIB = 1024 * 1024
TOLERATED = ("OK", "BAD_INPUT")


def _req(action: str, **params) -> bytes:
    return json.dumps({"id": 7, "action": action, **params}).encode()


def _save(payload, kind: str = "auto") -> bytes:
    return _req("save", payload=payload, kind=kind)


def _chatgpt(mapping, current="a", title="t"):
    return {"title": title, "mapping": mapping, "current_node": current, "conversation_id": "x1"}


def _node(role="user", parts=("hi",), parent=None, children=()):
    return {
        "id": "a",
        "parent": parent,
        "children": list(children),
        "message": {
            "id": "a",
            "author": {"role": role},
            "content": {"content_type": "text", "parts": list(parts)},
        },
    }


def _claude(messages, **extra):
    return {
        "uuid": "11111111-2222-4333-8444-555555555555",
        "name": "t",
        "created_at": "2025-01-01T00:00:00Z",
        "chat_messages": messages,
        **extra,
    }


def _claude_msg(**over):
    msg = {
        "uuid": "m1",
        "sender": "human",
        "text": "hi",
        "content": [{"type": "text", "text": "hi"}],
        "parent_message_uuid": "00000000-0000-4000-8000-000000000000",
        "created_at": "2025-01-01T00:00:00Z",
    }
    msg.update(over)
    return msg


def _capture(**over):
    cap = capture_payload("k1", "title", ["question", "answer"])
    cap.update(over)
    return cap


def _turn(**over):
    cap = capture_payload("k1", "title", ["question", "answer"])
    cap["turns"][1].update(over)
    return cap


def json_level() -> list[tuple[str, bytes, str]]:
    deep = 100_000
    return [
        ("invalid UTF-8 (0xff)", b'{"id":1,"action":"hello","x":"\xff"}', "INVALID_JSON"),
        ("invalid UTF-8 (overlong '/')", b'{"id":1,"action":"hello","x":"\xc0\xaf"}', "INVALID_JSON"),
        ("invalid UTF-8 (truncated sequence)", b'{"id":1,"action":"hello","x":"\xe4\xb8"}', "INVALID_JSON"),
        ("UTF-8-encoded surrogate bytes", b'{"id":1,"action":"hello","x":"\xed\xa0\x80"}', "INVALID_JSON"),
        ("lone high surrogate escape", b'{"id":1,"action":"hello","x":"\\ud800"}', "INVALID_JSON"),
        ("lone low surrogate escape", b'{"id":1,"action":"hello","x":"\\udc00"}', "INVALID_JSON"),
        ("reversed surrogate pair", b'{"id":1,"action":"hello","x":"\\udc00\\ud800"}', "INVALID_JSON"),
        ("two high surrogates", b'{"id":1,"action":"hello","x":"\\ud800\\ud800"}', "INVALID_JSON"),
        (
            "lone surrogate in a save payload",
            _save(_capture(title="x")).replace(b'"x"', b'"\\ud83d"'),
            "INVALID_JSON",
        ),
        ("valid surrogate pair (emoji)", b'{"id":1,"action":"hello","x":"\\ud83d\\ude00"}', "OK"),
        ("escaped backslash then 'ud800' text", b'{"id":1,"action":"hello","x":"\\\\ud800"}', "OK"),
        (
            "JS escape text in a saved message",
            _save(
                _capture(
                    turns=capture_payload("k2", "t", ["JS: '\\ud83d\\ude00' is one emoji", "yes"])["turns"]
                ),
                "capture",
            ),
            "OK",
        ),
        ("100,000-deep arrays", b"[" * deep + b"]" * deep, "INVALID_JSON"),
        (
            "100,000-deep objects in a param",
            b'{"id":1,"action":"hello","x":' + b'{"a":' * deep + b"1" + b"}" * deep + b"}",
            "INVALID_JSON",
        ),
        (
            "100,000-deep payload",
            b'{"id":1,"action":"save","payload":' + b"[" * deep + b"]" * deep + b"}",
            "INVALID_JSON",
        ),
        (
            "900-deep payload (parses, readers recurse)",
            _save({"format": "mnemosyne.capture", "x": json.loads("[" * 900 + "]" * 900)}, "capture"),
            "BAD_INPUT",
        ),
        ("5,000-digit integer", b'{"id":1,"action":"list","limit":' + b"9" * 5000 + b"}", "INVALID_JSON"),
        (
            "5,000-digit negative integer",
            b'{"id":1,"action":"hello","x":-' + b"1" * 5000 + b"}",
            "INVALID_JSON",
        ),
        ("5,000-digit float", b'{"id":1,"action":"list","limit":1.' + b"5" * 5000 + b"}", "BAD_REQUEST"),
        ("1e5000 (overflows to inf)", b'{"id":1,"action":"list","limit":1e5000}', "BAD_REQUEST"),
        (
            "1e5000 inside a payload",
            b'{"id":1,"action":"save","kind":"capture","payload":{"format":"mnemosyne.capture","version":1e5000}}',
            "BAD_INPUT",
        ),
        ("NaN", b'{"id":1,"action":"list","limit":NaN}', "INVALID_JSON"),
        ("Infinity", b'{"id":1,"action":"list","limit":Infinity}', "INVALID_JSON"),
        ("-Infinity", b'{"id":1,"action":"hello","x":-Infinity}', "INVALID_JSON"),
        ("NaN inside a payload", b'{"id":1,"action":"save","payload":{"title":NaN}}', "INVALID_JSON"),
        ("duplicate top-level key", b'{"id":1,"action":"hello","action":"delete"}', "INVALID_JSON"),
        ("duplicate key in a payload", b'{"id":1,"action":"save","payload":{"a":1,"a":2}}', "INVALID_JSON"),
        ("duplicate id", b'{"id":1,"id":2,"action":"hello"}', "INVALID_JSON"),
        ("trailing comma", b'{"id":1,"action":"hello",}', "INVALID_JSON"),
        ("single quotes", b"{'id':1,'action':'hello'}", "INVALID_JSON"),
        ("comment", b'{"id":1,"action":"hello"} // hi', "INVALID_JSON"),
        ("two JSON values", b'{"id":1,"action":"hello"}{"id":2}', "INVALID_JSON"),
        ("UTF-8 BOM", b'\xef\xbb\xbf{"id":1,"action":"hello"}', "INVALID_JSON"),
        ("UTF-16 text", '{"id":1,"action":"hello"}'.encode("utf-16"), "INVALID_JSON"),
        ("empty body", b"", "INVALID_JSON"),
        ("only whitespace", b" \n\t ", "INVALID_JSON"),
        ("NUL byte body", b"\x00", "INVALID_JSON"),
        ("raw control char in string", b'{"id":1,"action":"hello","x":"a\x01b"}', "INVALID_JSON"),
        ("JSON null", b"null", "BAD_REQUEST"),
        ("JSON string", b'"hello"', "BAD_REQUEST"),
        ("JSON array", b"[1,2,3]", "BAD_REQUEST"),
        ("JSON number", b"42", "BAD_REQUEST"),
    ]


def envelope_level() -> list[tuple[str, bytes, str]]:
    return [
        ("missing action", b'{"id":1}', "BAD_REQUEST"),
        ("empty action", b'{"id":1,"action":""}', "BAD_REQUEST"),
        ("action is a number", b'{"id":1,"action":5}', "BAD_REQUEST"),
        ("action is a list", b'{"id":1,"action":["hello"]}', "BAD_REQUEST"),
        ("unknown action", b'{"id":1,"action":"rm -rf /"}', "UNKNOWN_ACTION"),
        ("action with path", b'{"id":1,"action":"../save"}', "UNKNOWN_ACTION"),
        ("action is a module attribute", b'{"id":1,"action":"__init__"}', "UNKNOWN_ACTION"),
        ("id is an object", b'{"id":{"x":1},"action":"hello"}', "BAD_REQUEST"),
        ("id is a float", b'{"id":1.5,"action":"hello"}', "BAD_REQUEST"),
        ("id is true", b'{"id":true,"action":"hello"}', "BAD_REQUEST"),
        ("id of 201 characters", json.dumps({"id": "x" * 201, "action": "hello"}).encode(), "BAD_REQUEST"),
        ("unknown envelope keys (ignored)", b'{"id":1,"action":"hello","zzz":1,"__proto__":{}}', "OK"),
    ]


def site_shapes() -> list[tuple[str, bytes, str]]:
    doc2 = {"format": "mnemosyne.conversation", "schema_version": "2.0", "id": "abcdabcdabcd", "messages": []}
    return [
        # a page may not save Mnemosyne documents at all (they choose their own id), whatever their version
        ("Mnemosyne document, schema_version 2.0", _save(doc2), "BAD_INPUT"),
        ("Mnemosyne document, schema_version 'one'", _save(dict(doc2, schema_version="one")), "BAD_INPUT"),
        (
            "Mnemosyne document, no schema_version",
            _save({k: v for k, v in doc2.items() if k != "schema_version"}),
            "BAD_INPUT",
        ),
        (
            "Mnemosyne document 1.0 with wrong types",
            _save(dict(doc2, schema_version="1.0", messages="none")),
            "BAD_INPUT",
        ),
        (
            "Claude conversation of a newer shape",
            _save({"uuid": "u1", "chat_messages": "later"}, "claude_api"),
            "BAD_INPUT",
        ),
        ("ChatGPT mapping is a number", _save({"mapping": 5}, "chatgpt_api"), "BAD_INPUT"),
        ("ChatGPT mapping is a list", _save(_chatgpt([_node()]), "chatgpt_api"), "BAD_INPUT"),
        ("ChatGPT node is a string", _save(_chatgpt({"a": "node"}), "chatgpt_api"), TOLERATED),
        ("ChatGPT parts are numbers", _save(_chatgpt({"a": _node(parts=(1, 2))}), "chatgpt_api"), TOLERATED),
        ("ChatGPT role is a number", _save(_chatgpt({"a": _node(role=5)}), "chatgpt_api"), TOLERATED),
        (
            "ChatGPT children is a string",
            _save(_chatgpt({"a": _node(children="b")}), "chatgpt_api"),
            TOLERATED,
        ),
        (
            "ChatGPT current_node is a list",
            _save(_chatgpt({"a": _node()}, current=["a"]), "chatgpt_api"),
            TOLERATED,
        ),
        (
            "ChatGPT parent cycle",
            _save(_chatgpt({"a": dict(_node(parent="a"), children=["a"])}), "chatgpt_api"),
            TOLERATED,
        ),
        (
            "ChatGPT title is an object",
            _save(_chatgpt({"a": _node()}, title={"x": 1}), "chatgpt_api"),
            TOLERATED,
        ),
        ("Claude chat_messages is a string", _save(_claude("not a list"), "claude_api"), "BAD_INPUT"),
        ("Claude chat_messages holds numbers", _save(_claude([1, 2]), "claude_api"), TOLERATED),
        ("Claude content is a string", _save(_claude([_claude_msg(content="hi")]), "claude_api"), TOLERATED),
        ("Claude sender is unknown", _save(_claude([_claude_msg(sender="robot")]), "claude_api"), TOLERATED),
        ("Claude uuid missing", _save({"name": "t", "chat_messages": []}, "claude_api"), "BAD_INPUT"),
        ("capture with role 'system'", _save(_turn(role="system"), "capture"), "BAD_INPUT"),
        ("capture with role 'root'", _save(_turn(role="root"), "capture"), "BAD_INPUT"),
        ("capture order is a string", _save(_turn(order="1"), "capture"), "BAD_INPUT"),
        ("capture turns is an object", _save(_capture(turns={"a": 1}), "capture"), "BAD_INPUT"),
        ("capture version 2", _save(_capture(version=2), "capture"), "UNSUPPORTED_SCHEMA_VERSION"),
        (
            "Claude chat_messages of non-objects",
            _save({"uuid": "u1", "chat_messages": [1, 2]}, "claude_api"),
            "BAD_INPUT",
        ),
        (
            "capture site 'mistral' (a site we only fill)",
            _save(_capture(site="mistral"), "capture"),
            "BAD_INPUT",
        ),
        ("capture unknown field", _save(_capture(extra_field=1), "capture"), "BAD_INPUT"),
        ("capture turn unknown field", _save(_turn(onclick="x"), "capture"), "BAD_INPUT"),
        ("capture bad captured_at", _save(_capture(captured_at="yesterday"), "capture"), "BAD_INPUT"),
        ("capture markdown over 8 MiB", _save(_turn(markdown="x" * (9 * MIB)), "capture"), "BAD_INPUT"),
        ("payload that no reader knows", _save({"hello": "world"}), "UNKNOWN_FORMAT"),
        ("empty list payload", _save([]), "UNKNOWN_FORMAT"),
        ("chatgpt payload sent as claude_api", _save(_chatgpt({"a": _node()}), "claude_api"), "BAD_INPUT"),
    ]


def huge() -> list[tuple[str, bytes, str]]:
    big = "x" * (60 * MIB)
    return [
        ("60 MiB search query", _req("search", query=big), "BAD_REQUEST"),
        ("60 MiB capture markdown", _save(_turn(markdown=big), "capture"), "BAD_INPUT"),
    ]
