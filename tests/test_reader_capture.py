"""Page-capture reader: the extension's DOM fallback payload (mnemosyne.capture v1)."""

from __future__ import annotations

import copy
import json

import pytest

from mnemosyne import canonical, tree
from mnemosyne.errors import InputError
from mnemosyne.model import AttachmentPart, TextPart
from mnemosyne.readers import capture, load_bytes, read_raw
from mnemosyne.readers.base import RawInput, ReadContext

ANSWER = (
    "Use a dict comprehension:\n\n```python\nsquares = {n: n * n for n in range(5)}\n```\n\n"
    "The sum is $\\sum_{n=0}^{4} n^2 = 30$.\n\n| n | n² |\n|---|---|\n| 2 | 4 |"
)


def payload() -> dict:
    return {
        "format": "mnemosyne.capture",
        "version": 1,
        "site": "claude",
        "url": "https://claude.ai/chat/5f0c2b1e-aaaa-4bbb-8ccc-123456789abc",
        "conversation_id": "5f0c2b1e-aaaa-4bbb-8ccc-123456789abc",
        "title": "Squares",
        "captured_at": "2025-06-01T12:30:00Z",
        "complete": False,
        "turns": [
            # listed out of order, as a virtualized page sweep finds them
            {
                "key": "t2",
                "order": 2,
                "role": "user",
                "model": None,
                "markdown": "Now in a dict?",
                "attachments": [{"name": "notes.txt", "kind": "file", "url": None}],
            },
            {
                "key": "t1",
                "order": 1,
                "role": "assistant",
                "model": "claude-opus-4",
                "markdown": "`[n*n for n in range(5)]`",
                "attachments": [],
            },
            {
                "key": "t0",
                "order": 0,
                "role": "user",
                "model": None,
                "markdown": "Squares of 0..4 in Python?",
                "attachments": [
                    {"name": "plot.png", "kind": "image", "url": "https://claude.ai/api/files/f1/preview"}
                ],
            },
            {
                "key": "t3",
                "order": 3,
                "role": "assistant",
                "model": "claude-opus-4",
                "markdown": "(streaming…)",
                "attachments": [],
            },
            # the same turn captured again after it finished: the last capture wins
            {
                "key": "t3",
                "order": 3,
                "role": "assistant",
                "model": "claude-opus-4",
                "markdown": ANSWER,
                "attachments": [],
            },
        ],
    }


def read(data: dict):
    raw = RawInput(name="capture.json", data=data, raw=json.dumps(data).encode())
    return list(capture.read(raw, ReadContext()))


def test_valid_capture_converts() -> None:
    [conv] = read(payload())
    path = tree.active_path(conv)
    assert [m.id for m in path] == ["t0", "t1", "t2", "t3"]
    assert [m.role for m in path] == ["user", "assistant", "user", "assistant"]
    assert [m.parent for m in path] == [None, "t0", "t1", "t2"]
    assert conv.active_leaf == "t3" and tree.branch_points(conv) == 0
    assert conv.provenance.method == "page_dom" and conv.provenance.partial is True
    assert conv.provenance.captured_at.isoformat() == "2025-06-01T12:30:00+00:00"
    assert (
        conv.source.site == "claude" and conv.source.conversation_id == "5f0c2b1e-aaaa-4bbb-8ccc-123456789abc"
    )
    assert conv.title == "Squares" and conv.default_model == "claude-opus-4"
    final = path[3].parts[0]
    assert isinstance(final, TextPart) and final.format == "markdown"
    assert "```python\nsquares = {n: n * n for n in range(5)}\n```" in final.text
    assert "$\\sum_{n=0}^{4} n^2 = 30$" in final.text and "| 2 | 4 |" in final.text
    assert path[1].model == "claude-opus-4" and path[0].model is None
    image = path[0].parts[1]
    assert isinstance(image, AttachmentPart)
    assert (image.kind, image.name, image.asset_pointer) == (
        "image",
        "plot.png",
        "https://claude.ai/api/files/f1/preview",
    )
    assert [(p.kind, p.name, p.asset_pointer) for p in path[2].parts if isinstance(p, AttachmentPart)] == [
        ("file", "notes.txt", None)
    ]
    first = canonical.dumps(conv)
    assert canonical.dumps(canonical.loads(first)) == first


def test_capture_without_id_is_identified_by_its_content_never_its_url() -> None:
    data = payload()
    data.update(complete=True, conversation_id=None, site="chatgpt", url="https://chatgpt.com/")
    [conv] = read(data)
    assert conv.provenance.partial is False
    assert conv.source.site == "chatgpt" and conv.source.conversation_id is None
    assert conv.source.url == "https://chatgpt.com/"
    [again] = read(dict(data, captured_at="2026-12-01T00:00:00Z", url="https://chatgpt.com/?model=x"))
    assert again.id == conv.id  # the same capture keeps its id wherever it was taken
    other = dict(data, turns=[dict(data["turns"][0], markdown="a different chat")] + data["turns"][1:])
    [different] = read(other)
    assert different.id != conv.id  # same URL, same keys, different chat: another entry


def test_detect_and_read_through_loading() -> None:
    data = payload()
    [raw] = load_bytes("capture.json", json.dumps(data).encode())
    assert capture.detect(raw)
    assert not capture.detect(RawInput(name="x", data={"format": "mnemosyne.conversation"}, raw=b""))
    assert not capture.detect(RawInput(name="x", data=[data], raw=b""))
    [conv] = read_raw(raw, fmt="capture")
    assert len(conv.messages) == 4


def _set(path: str, value):
    def change(data: dict) -> None:
        target = data
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[keys[-1]] = value

    return change


def _drop(key: str):
    return lambda data: data.pop(key)


@pytest.mark.parametrize(
    "change, where",
    [
        (_set("turns.0.role", "system"), "turns.0.role"),
        (_set("turns.0.order", "2"), "turns.0.order"),
        (_set("turns.0.extra", 1), "turns.0.extra"),
        (_set("turns.0.attachments.0.kind", "video"), "turns.0.attachments.0.kind"),
        (_set("turns.1.markdown", None), "turns.1.markdown"),
        (_set("turns.1.key", ""), "turns.1.key"),
        (_set("site", "grokipedia"), "site"),
        (_set("captured_at", "yesterday"), "captured_at"),
        (_set("complete", "yes"), "complete"),
        (_set("title", "x" * 5000), "title"),
        (_set("surprise", True), "surprise"),
        (_drop("turns"), "turns"),
        (_drop("url"), "url"),
    ],
)
def test_wrong_shape_raises_input_error(change, where: str) -> None:
    data = copy.deepcopy(payload())
    change(data)
    with pytest.raises(InputError) as caught:
        read(data)
    assert "not a valid page capture" in caught.value.message
    assert where in caught.value.message


@pytest.mark.parametrize("version", [2, True, "1", None])
def test_unsupported_version_is_named(version) -> None:
    data = payload()
    data["version"] = version
    with pytest.raises(InputError, match=f"version {version!r} is not supported"):
        read(data)
