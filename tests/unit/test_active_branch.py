"""One active-branch rule (tree.active_leaf): `active_leaf` when it names a message, else the last leaf."""

from __future__ import annotations

from conversation_samples import fixture_conversations, provenance
from mnemosyne import tree
from mnemosyne.model import Conversation, Message, Source, TextPart


def _conv(messages: list[tuple[str, str | None]], active: str | None) -> Conversation:
    return Conversation(
        id="abcdefghijkl",
        source=Source(site="chatgpt"),
        messages=[
            Message(id=mid, parent=parent, role="user", parts=[TextPart(text=mid)])
            for mid, parent in messages
        ],
        active_leaf=active,
        provenance=provenance(),
    )


# the last message listed ("mid") is not a leaf: its child was listed before it
TREE = [("root", None), ("leaf2", "mid"), ("leaf1", "root"), ("mid", "root")]


def test_the_active_leaf_names_the_branch():
    assert [m.id for m in tree.path_to(_conv(TREE, "leaf1"), None)] == ["root", "leaf1"]


def test_without_a_valid_active_leaf_the_last_leaf_wins_not_the_last_message():
    for active in (None, "no-such-message"):
        conv = _conv(TREE, active)
        assert tree.active_leaf(conv) == "leaf1"
        assert [m.id for m in tree.path_to(conv, None)] == ["root", "leaf1"]
    assert tree.active_leaf(_conv([], None)) is None and tree.path_to(_conv([], None), None) == []


def test_an_explicit_branch_overrides_the_active_leaf():
    assert [m.id for m in tree.path_to(_conv(TREE, "leaf1"), "leaf2")] == ["root", "mid", "leaf2"]


def test_every_reader_sets_the_active_leaf_to_a_leaf():
    """So the fallback never decides what a saved conversation shows."""
    checked = 0
    for path, conv in fixture_conversations(
        ("chatgpt_api", "chatgpt_export", "chatgpt_synthetic", "claude_export")
    ):
        if conv.messages:
            assert conv.active_leaf in {m.id for m in tree.leaves(conv)}, (path, conv.id)
            checked += 1
    assert checked >= 110
