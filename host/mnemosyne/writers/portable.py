"""The Mnemosyne document itself (canonical JSON).

It always holds the whole message tree, so no branch is ever lost. With
`branch`, the tree is unchanged and only `active_leaf` points at that message,
so tools that follow the active path show the chosen branch.
"""

from __future__ import annotations

from .. import canonical
from ..model import Conversation
from .common import selected_path

NAME = "portable"
EXTENSION = ".json"
MEDIA_TYPE = "application/json"


def _on_branch(conv: Conversation, branch: str | None) -> Conversation:
    if branch is None or branch == conv.active_leaf:
        return conv
    selected_path(conv, branch)  # refuses an id that is not in the tree
    return conv.model_copy(update={"active_leaf": branch})


def write(conv: Conversation, *, branch: str | None = None) -> str:
    return canonical.dumps(_on_branch(conv, branch))


def write_line(conv: Conversation, *, branch: str | None = None) -> str:
    """One document on one line, for JSON Lines."""
    return canonical.dumps(_on_branch(conv, branch), indent=None) + "\n"
