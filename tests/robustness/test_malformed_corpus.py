"""Malformed JSON and wrong-shaped input against one real host process: every
case must get its defined error code (host/PROTOCOL.md), none may crash the
host, and the host must still answer hello afterwards."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mnemosyne.nativehost.codes import ERROR_CODES
from support.hostproc import HostProcess, frame

from . import malformed
from .figures import record
from .hostio import capture_payload, crashed, well_formed_reply

pytestmark = pytest.mark.robustness

LONG = "x" * 20_000
# Wrong values per parameter type; every one must be BAD_REQUEST.
WRONG = {
    "string": [1, 1.5, True, [], {}, ["a"], LONG],
    "required_string": [None, 1, 1.5, True, [], {}, LONG],
    "int": ["5", 5.5, True, False, [], {}, -1, 0, 10**30, "ten"],
    "bool": ["true", 1, 0, None, [], "false"],
    "list": ["reasoning", ["nope"], [1], {}, [None], 5],
    "payload": ["text", 5, True, None, 1.5],
    "choice": ["nonsense", 1, [], LONG],
    "url": ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", 1],
}
ACTION_PARAMS = {
    "save": {"payload": "payload", "kind": "choice", "source_url": "url"},
    "list": {"limit": "int", "cursor": "string", "source": "string"},
    "search": {"query": "required_string", "limit": "int", "source": "string"},
    "get": {"conversation_id": "required_string", "format": "choice", "branch": "string", "cursor": "string"},
    "context": {
        "conversation_id": "required_string",
        "target": "required_string",
        "budget": "int",
        "branch": "string",
        "include": "list",
        "redact": "bool",
        "cursor": "string",
    },
    "delete": {"conversation_id": "required_string"},
}


def wrong_type_cases(conv_id: str) -> list[tuple[str, bytes, str]]:
    valid = {
        "save": {"payload": capture_payload("w1", "wrong types", ["q", "a"]), "kind": "capture"},
        "list": {},
        "search": {"query": "hello"},
        "get": {"conversation_id": conv_id},
        "context": {"conversation_id": conv_id, "target": "chatgpt"},
        "delete": {"conversation_id": conv_id},
    }
    cases = []
    for action, params in ACTION_PARAMS.items():
        for name, kind in params.items():
            for value in WRONG[kind]:
                body = json.dumps({"id": 1, "action": action, **valid[action], name: value}).encode()
                cases.append((f"{action}.{name} = {str(value)[:24]!r}", body, "BAD_REQUEST"))
    cases.append(
        (
            "context.target unknown",
            json.dumps({"id": 1, "action": "context", "conversation_id": conv_id, "target": "nope"}).encode(),
            "UNKNOWN_TARGET",
        )
    )
    cases.append(
        (
            "get.cursor forged",
            json.dumps(
                {"id": 1, "action": "get", "conversation_id": conv_id, "cursor": "OTk5OTk5OmFiYw"}
            ).encode(),
            "BAD_CURSOR",
        )
    )
    cases.append(("list.cursor forged", b'{"id":1,"action":"list","cursor":"WzEsMiwzXQ"}', "BAD_CURSOR"))
    cases.append(
        (
            "get.conversation_id unknown",
            b'{"id":1,"action":"get","conversation_id":"qqqqqqqqqqqq"}',
            "NOT_FOUND",
        )
    )
    cases.append(
        (
            "delete.conversation_id unknown",
            b'{"id":1,"action":"delete","conversation_id":"qqqqqqqqqqqq"}',
            "NOT_FOUND",
        )
    )
    return cases


def test_malformed_corpus(env):
    host = HostProcess(env)
    try:
        conv_id = host.data(
            "save", payload=capture_payload("base", "Base", ["question", "answer"]), kind="capture"
        )["conversation_id"]
        cases = (
            malformed.json_level()
            + malformed.envelope_level()
            + malformed.site_shapes()
            + wrong_type_cases(conv_id)
            + malformed.huge()
        )
        outcomes: Counter = Counter()
        wrong: list[str] = []
        for name, body, expected in cases:
            if host.proc.poll() is not None:
                outcomes["crash"] += 1
                wrong.append(f"{name}: host had exited ({host.proc.returncode})")
                host = HostProcess(env)
            host.send_raw(frame(body))
            try:
                reply = host.recv(timeout=120)
            except (EOFError, TimeoutError) as exc:
                outcomes["crash"] += 1
                wrong.append(f"{name}: {type(exc).__name__}")
                continue
            code = "OK" if reply.get("ok") else reply.get("error", {}).get("code")
            defined = well_formed_reply(reply) and (code == "OK" or code in ERROR_CODES)
            outcomes["defined"] += defined
            allowed = (expected,) if isinstance(expected, str) else expected
            outcomes["expected"] += code in allowed
            outcomes["internal"] += code == "INTERNAL"
            if code == "OK" and allowed == malformed.TOLERATED:
                outcomes["tolerated"] += 1
                kept = reply["data"]
                outcomes["silent"] += kept.get("warnings", 0) == 0 and kept.get("messages", 0) == 0
            if code not in allowed:
                wrong.append(
                    f"{name}: got {code} ({reply.get('error', {}).get('message', '')[:120]}), expected {expected}"
                )
        hello_after = host.call("hello")["ok"] is True
        still_there = host.data("get", conversation_id=conv_id)["conversation_id"] == conv_id
    finally:
        code, _, err = (
            host.close(timeout=60) if host.proc.poll() is None else (host.proc.returncode, b"", b"")
        )
    outcomes["crash"] += crashed(code, err)
    label = "malformed corpus"
    record(label, "cases", len(cases))
    record(label, "with a defined error code", outcomes["defined"], f"{len(cases)}")
    record(label, "with the expected code", outcomes["expected"], f"{len(cases)}")
    record(label, "deep wrong types kept (with warnings)", outcomes["tolerated"])
    record(label, "  of which saved empty without a warning", outcomes["silent"])
    record(label, "INTERNAL replies", outcomes["internal"], "0")
    record(label, "crashes", outcomes["crash"], "0")
    record(label, "hello after", "yes" if hello_after else "NO", "yes")
    for line in wrong:
        print(f"[robustness] {label}: mismatch: {line}")
    assert outcomes["crash"] == 0 and hello_after and still_there
    assert outcomes["defined"] == len(cases)
    assert not wrong, wrong
