"""Random inputs for the framing fuzz: frame bodies for a long-lived host and
whole byte streams that end a host process (truncated or oversize frames)."""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass

from mnemosyne.nativehost.framing import MAX_IN
from support.hostproc import HEADER, frame

ACTIONS = ["hello", "save", "list", "search", "get", "context", "delete", "targets", "doctor"]
JUNK_ACTIONS = ["", "HELLO", "hello ", "__init__", "../save", "params", "dispatch", "eval", "x" * 300]
# Actions cheap enough for thousands of calls; doctor (~0.2 s) only with low weight.
VALID = [
    {"action": "hello"},
    {"action": "targets"},
    {"action": "list", "limit": 5},
    {"action": "search", "query": "hello"},
    {"action": "search", "query": "数据库"},
    {"action": "get", "conversation_id": "zzzzzzzzzzzz"},
    {"action": "list", "source": "claude"},
]


def _text(rng: random.Random, n: int) -> str:
    alphabet = string.printable + "éß中文😀\u202e\u0000\ud7ff\ufeff\u2028"
    return "".join(rng.choice(alphabet) for _ in range(n))


def _value(rng: random.Random, depth: int = 0):
    pick = rng.randrange(10 if depth < 3 else 7)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 1, 2**31, 2**63, -(2**64), rng.randrange(-(10**6), 10**6)])
    if pick == 3:
        return rng.choice([0.5, -1e308, 1e-300, 3.0, rng.random()])
    if pick in (4, 5, 6):
        return _text(rng, rng.randrange(0, 40))
    if pick in (7, 8):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {_text(rng, rng.randrange(0, 8)): _value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


PARAM_NAMES = [
    "payload",
    "kind",
    "source_url",
    "limit",
    "cursor",
    "source",
    "query",
    "conversation_id",
    "format",
    "branch",
    "target",
    "budget",
    "include",
    "redact",
]


def json_request(rng: random.Random) -> bytes:
    """A JSON object shaped like a request, with random ids, actions and parameter values."""
    obj: dict = {}
    if rng.random() < 0.9:
        obj["id"] = rng.choice([rng.randrange(10**9), _text(rng, rng.randrange(0, 30)), None, 1.5, [], True])
    obj["action"] = rng.choice(ACTIONS + JUNK_ACTIONS) if rng.random() < 0.95 else _value(rng)
    if obj["action"] == "doctor" and rng.random() < 0.9:
        obj["action"] = "hello"  # doctor costs 0.2 s; keep the run short
    for name in rng.sample(PARAM_NAMES, rng.randrange(0, 4)):
        obj[name] = _value(rng)
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def mutated(rng: random.Random) -> bytes:
    """A valid request with a few random byte edits."""
    body = bytearray(json.dumps({"id": rng.randrange(1000), **rng.choice(VALID)}).encode())
    for _ in range(rng.randrange(1, 5)):
        op = rng.randrange(5)
        pos = rng.randrange(len(body)) if body else 0
        if op == 0 and body:
            body[pos] = rng.randrange(256)
        elif op == 1 and body:
            del body[pos]
        elif op == 2:
            body.insert(pos, rng.choice(b'{}[]",:\\0123456789eE+-.tfn \x00\xff\xc3'))
        elif op == 3 and body:
            body[pos:pos] = body[pos : pos + rng.randrange(1, 20)]
        else:
            del body[pos:]
    return bytes(body)


@dataclass
class BodyCase:
    """One exchange with a long-lived host: bytes to write (in pieces) and how many replies to expect."""

    kind: str
    pieces: list[bytes]
    replies: int
    pause: bool = False


def _split(rng: random.Random, data: bytes) -> list[bytes]:
    pieces, pos = [], 0
    while pos < len(data):
        step = rng.randrange(1, 8)
        pieces.append(data[pos : pos + step])
        pos += step
    return pieces


def body_case(rng: random.Random) -> BodyCase:
    roll = rng.random()
    if roll < 0.2:
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        return BodyCase("random_bytes", [frame(body)], 1)
    if roll < 0.25:
        return BodyCase("length_0", [frame(b"")], 1)
    if roll < 0.5:
        return BodyCase("mutated_request", [frame(mutated(rng))], 1)
    if roll < 0.75:
        return BodyCase("json_request", [frame(json_request(rng))], 1)
    if roll < 0.9:
        data = frame(json.dumps({"id": rng.randrange(1000), **rng.choice(VALID)}).encode())
        return BodyCase("split_frame", _split(rng, data), 1, pause=rng.random() < 0.1)
    count = rng.randrange(2, 6)
    bodies = [rng.choice([mutated, json_request])(rng) for _ in range(count)]
    return BodyCase("pipelined", [b"".join(frame(b) for b in bodies)], count)


@dataclass
class EndingCase:
    """A byte stream after which the host must exit by itself (the kind names how it is broken)."""

    kind: str
    data: bytes

    def expected(self) -> tuple[int, bool, int]:
        """(replies, last one is FRAME_TOO_LARGE, exit status), by reading the stream as PROTOCOL.md says."""
        pos, replies = 0, 0
        while True:
            if pos == len(self.data):
                return replies, False, 0
            if len(self.data) - pos < 4:
                return replies, False, 1
            (length,) = HEADER.unpack_from(self.data, pos)
            if length > MAX_IN:
                return replies + 1, True, 1
            if len(self.data) - pos - 4 < length:
                return replies, False, 1
            replies, pos = replies + 1, pos + 4 + length


def ending_case(rng: random.Random) -> EndingCase:
    pick = rng.randrange(6)
    if pick == 0:
        return EndingCase("truncated_header", HEADER.pack(rng.randrange(1, 2**32))[: rng.randrange(1, 4)])
    if pick == 1:
        length = rng.randrange(1, 100_000)
        return EndingCase("truncated_body", HEADER.pack(length) + b"{" * rng.randrange(0, min(length, 5000)))
    if pick == 2:
        return EndingCase("length_2^32-1", HEADER.pack(2**32 - 1) + b"x" * rng.randrange(0, 64))
    if pick == 3:
        length = rng.randrange(MAX_IN + 1, 2**32)
        return EndingCase("oversize", HEADER.pack(length) + b'{"id":1' * rng.randrange(0, 2000))
    if pick == 4:
        return EndingCase("unframed_random", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))))
    valid = rng.randrange(1, 4)
    head = b"".join(frame(json.dumps({"id": i, "action": "hello"}).encode()) for i in range(valid))
    return EndingCase("valid_then_truncated", head + HEADER.pack(50) + b'{"id": 9')
