"""Realistic text and conversations for the benchmarks, built from the fixtures.

English sentences come from the real ChatGPT conversations in tests/fixtures
(chatgpt_api, chatgpt_export, chatgpt_synthetic); Chinese from the real 2023
ChatGPT mapping (llmfarm) and the Chinese ShareGPT demo. Messages are random
runs of those sentences, so word frequencies look like real chats; a sprinkle
of generated rare words gives queries that hit only a few messages.
Everything is seeded: the same seed gives the same bytes.
"""

from __future__ import annotations

import copy
import json
import random
import re
import uuid
from functools import cache
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ENGLISH_SOURCES = ("chatgpt_api/**/*.json", "chatgpt_export/*.json", "chatgpt_synthetic/*.json")
CHINESE_SOURCES = ("chatgpt_api/llmfarm_dialog-data_mapping.json", "interop_sharegpt/*zh*.json")
LARGEST_FIXTURE = (
    "chatgpt_api/elinvoss/0001-Matthew_McConaughey_voice-688c4d3b-add4-8326-838d-ab64ce7962d6.json"
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_EN_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*#-])")
_ZH_SENTENCE = re.compile(r"(?<=[。！？；\n])")
CONSONANTS, VOWELS = "bcdfghjklmnprstvwxz", "aeiou"
RARE_WORD_COUNT = 4000


def _strings(node, out: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "parts" and isinstance(value, list):
                out.extend(p for p in value if isinstance(p, str))
            elif key in ("text", "value", "content") and isinstance(value, str):
                out.append(value)
            else:
                _strings(value, out)
    elif isinstance(node, list):
        for value in node:
            _strings(value, out)


def _texts(patterns: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for pattern in patterns:
        for path in sorted(FIXTURES.glob(pattern)):
            _strings(json.loads(path.read_text(encoding="utf-8")), out)
    return [s.strip() for s in out if len(s.strip()) >= 20]


@cache
def sentences() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(English sentences, Chinese sentences) from the fixtures."""
    english, chinese = [], []
    for text in _texts(ENGLISH_SOURCES):
        if len(_CJK.findall(text)) < len(text) * 0.2:
            english += [s.strip() for s in _EN_SENTENCE.split(text) if 8 <= len(s.strip()) <= 1200]
    for text in _texts(CHINESE_SOURCES):
        if len(_CJK.findall(text)) >= len(text) * 0.2:
            chinese += [s.strip() for s in _ZH_SENTENCE.split(text) if 4 <= len(s.strip()) <= 600]
    return tuple(dict.fromkeys(english)), tuple(dict.fromkeys(chinese))


@cache
def rare_words() -> tuple[str, ...]:
    """Pseudo-words absent from the fixtures: each lands in only a handful of messages."""
    rng = random.Random(7)
    words: set[str] = set()
    while len(words) < RARE_WORD_COUNT:
        syllables = rng.randint(3, 4)
        words.add(
            "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables)) + rng.choice("xqz")
        )
    return tuple(sorted(words))


class TextMaker:
    """Message texts: user turns short, assistant turns several paragraphs."""

    def __init__(self, seed: int, rare_rate: float = 0.02):
        self.rng = random.Random(seed)
        self.english, self.chinese = sentences()
        self.rare = rare_words()
        self.rare_rate = rare_rate

    def _run(self, pool: tuple[str, ...], count: int, joiner: str) -> str:
        start = self.rng.randrange(len(pool))
        picked = [
            pool[(start + i) % len(pool)] if self.rng.random() < 0.7 else self.rng.choice(pool)
            for i in range(count)
        ]
        if self.rng.random() < self.rare_rate * count:
            at = self.rng.randrange(len(picked))
            picked[at] = f"{picked[at]} ({self.rng.choice(self.rare)})"
        return joiner.join(picked)

    def message(self, role: str, chinese: bool) -> str:
        pool, joiner = (self.chinese, "") if chinese else (self.english, " ")
        if role == "user":
            return self._run(pool, self.rng.randint(1, 3), joiner)
        paragraphs = [self._run(pool, self.rng.randint(1, 4), joiner) for _ in range(self.rng.randint(2, 5))]
        return "\n\n".join(paragraphs)


def _node(
    mid: str, parent: str | None, child: str | None, role: str, text: str, when: float, model: str
) -> dict:
    return {
        "id": mid,
        "parent": parent,
        "children": [child] if child else [],
        "message": {
            "id": mid,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": when,
            "update_time": None,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully",
            "end_turn": role == "assistant" or None,
            "weight": 1.0,
            "metadata": {"model_slug": model} if role == "assistant" else {},
            "recipient": "all",
            "channel": None,
        },
    }


def chatgpt_conversation(
    seed: int, messages: int = 50, chinese: bool | None = None, rare_rate: float = 0.02
) -> dict:
    """A linear ChatGPT /backend-api/conversation/{id} payload with `messages` user/assistant turns."""
    maker = TextMaker(seed, rare_rate)
    rng = maker.rng
    chinese = rng.random() < 0.2 if chinese is None else chinese
    conv_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    ids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(messages)]
    root = "client-created-root"
    start = 1_700_000_000 + rng.randrange(60_000_000)
    model = rng.choice(("gpt-4o", "gpt-5", "gpt-5-thinking", "o3"))
    mapping = {root: {"id": root, "parent": None, "children": [ids[0]] if ids else [], "message": None}}
    for i, mid in enumerate(ids):
        role = "user" if i % 2 == 0 else "assistant"
        child = ids[i + 1] if i + 1 < len(ids) else None
        mapping[mid] = _node(
            mid,
            root if i == 0 else ids[i - 1],
            child,
            role,
            maker.message(role, chinese),
            start + 40.0 * i,
            model,
        )
    first_user = mapping[ids[0]]["message"]["content"]["parts"][0]
    title = first_user.split("\n")[0][:60].strip() or "Untitled"
    return {
        "title": title,
        "create_time": float(start),
        "update_time": start + 40.0 * messages,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": ids[-1],
        "conversation_id": conv_id,
        "id": conv_id,
        "default_model_slug": model,
        "is_archived": False,
        "safe_urls": [],
    }


def _path(payload: dict) -> list[str]:
    mapping, node, path = payload["mapping"], payload["current_node"], []
    while node:
        path.append(node)
        node = mapping[node].get("parent")
    return path[::-1]


def large_fixture_conversation(min_bytes: int = 1_100_000, seed: int = 1) -> dict:
    """The largest fixture conversation (real gpt-4o chat with browsing quotes, python and canvas nodes),
    its active path repeated with fresh ids until the JSON is over `min_bytes`."""
    fixture = json.loads((FIXTURES / LARGEST_FIXTURE).read_text(encoding="utf-8"))
    rng = random.Random(seed)
    path = [n for n in _path(fixture) if fixture["mapping"][n].get("message")]
    conv_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    root = "client-created-root"
    mapping: dict = {root: {"id": root, "parent": None, "children": [], "message": None}}
    previous, size, round_no = root, 0, 0
    while size < min_bytes:
        for old in path:
            node = copy.deepcopy(fixture["mapping"][old])
            new_id = f"{old}-r{round_no}"
            node.update(id=new_id, parent=previous, children=[])
            node["message"]["id"] = new_id
            mapping[previous]["children"] = [new_id]
            mapping[new_id] = node
            previous = new_id
        round_no += 1
        size = len(json.dumps(mapping, ensure_ascii=False).encode("utf-8"))
    out = {k: v for k, v in fixture.items() if k != "mapping"}
    out.update(
        mapping=mapping,
        current_node=previous,
        conversation_id=conv_id,
        id=conv_id,
        title=f"{fixture.get('title') or 'Long chat'} (long)",
    )
    return out


def json_size(payload) -> int:
    return len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


# A large real export is mostly short chats with a tail of long ones: 300 conversations, 74 MB in one
# conversations.json, the longest 1.1 MB, the median 50 KB (a 50-message chat).
MIXED_COUNT = 300
MIXED_BYTES = 72_500_000  # (74.0 MB written: the long ones come 1.1 MB at a time)
SMALL_BYTES = 50_000  # about what chatgpt_conversation(seed, 50) writes


def mixed_conversations(count: int = MIXED_COUNT, size: int = MIXED_BYTES, seed: int = 11):
    """`count` official-export conversations of about `size` bytes in all, one at a time: linear chats of
    30-70 messages, and spread evenly among them long ones (the largest fixture conversation's structure,
    browsing quotes, python and canvas, new ids and text, about 1.1 MB each), as many as make up `size`."""
    import import_bench  # (its variant(): new ids, times and text on a fixture's structure)

    rng = random.Random(seed)
    maker = TextMaker(seed)
    long_template = large_fixture_conversation()
    long_bytes = json_size(import_bench.variant(long_template, TextMaker(seed + 1), random.Random(seed)))
    longs = max(0, min(count, round((size - count * SMALL_BYTES) / (long_bytes - SMALL_BYTES))))
    for i in range(count):
        if (i + 1) * longs // count > i * longs // count:
            conv = import_bench.variant(long_template, maker, rng)
        else:
            conv = chatgpt_conversation(seed * 100_000 + i, rng.randint(30, 70))
        conv["create_time"] = (
            1_700_000_000.0 + i * 3600
        )  # every official export has them (convoviz needs them)
        conv["update_time"] = conv["create_time"] + 60
        yield conv


def write_export_array(path: Path, conversations) -> tuple[int, int]:
    """Conversations written one at a time as one JSON array (never all in memory); (count, largest bytes)."""
    count = largest = 0
    with open(path, "wb") as fh:
        fh.write(b"[")
        for conv in conversations:
            data = json.dumps(conv, ensure_ascii=False).encode("utf-8")
            fh.write(b"," if count else b"")
            fh.write(data)
            count, largest = count + 1, max(largest, len(data))
        fh.write(b"]")
    return count, largest


def write_split_export(folder: Path, conversations, file_bytes: int = 24_000_000) -> tuple[int, int]:
    """An unzipped export split as the 2025-2026 exports are: conversations-000.json, -001 ... of about
    `file_bytes` each; (count, largest conversation's bytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    encoded = (json.dumps(conv, ensure_ascii=False).encode("utf-8") for conv in conversations)
    pending = next(encoded, None)
    count = largest = number = 0
    while pending is not None:
        with open(folder / f"conversations-{number:03d}.json", "wb") as fh:
            written = fh.write(b"[")
            while pending is not None and written < file_bytes:
                written += fh.write(b"," if written > 1 else b"") + fh.write(pending)
                count, largest = count + 1, max(largest, len(pending))
                pending = next(encoded, None)
            fh.write(b"]")
        number += 1
    return count, largest


SPLIT_COUNT = 6_980  # about 234 MB of fixture variants (34 KB on average), the size of a large real export


def template_conversations(count: int = SPLIT_COUNT, seed: int = 5):
    """`count` official-export conversations made from the fixture templates (import_bench.variant: their
    structure, branches, tool calls, quotes, canvas and images, with new ids, times and text), one at a time,
    with the conversation times every official export has (templates taken from the site API lack them)."""
    import import_bench

    rng = random.Random(seed)
    maker = TextMaker(seed)
    pool = import_bench.templates()
    for n in range(count):
        conv = import_bench.variant(pool[n % len(pool)], maker, rng)
        if conv.get("create_time") is None:
            conv["create_time"] = 1_700_000_000.0 + n * 3600
        if conv.get("update_time") is None:
            conv["update_time"] = conv["create_time"] + 60
        yield conv
