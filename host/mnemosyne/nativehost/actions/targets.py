"""targets: the tools a context can be built for, and the extension's "Continue in…" menu.

`menu` is everything the extension shows and does for a menu entry (group, label, budget, the page it
opens and fills), so the extension keeps no copy of target data: it renders this list as sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...context.targets import describe_all

# (target name, menu group, page the extension opens and fills; None: the context is copied)
# Groups: "web" = a chat site's composer is filled; "agent" = a coding agent's instructions file;
# "local" = a local model. The extension only opens fill pages on the sites it is allowed to fill.
MENU = (
    ("chatgpt", "web", "https://chatgpt.com/"),
    ("claude", "web", "https://claude.ai/new"),
    ("gemini", "web", "https://gemini.google.com/app"),
    ("deepseek", "web", "https://chat.deepseek.com/"),
    ("grok", "web", "https://grok.com/"),
    ("perplexity", "web", "https://www.perplexity.ai/"),
    ("mistral", "web", "https://chat.mistral.ai/chat"),
    ("qwen", "web", "https://chat.qwen.ai/"),
    ("agents-md", "agent", None),
    ("ollama", "local", None),
)


def menu_entries(described: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {target["name"]: target for target in described}
    return [
        {
            "target": name,
            "group": group,
            "label": by_name[name]["label"],
            "fill_url": fill_url,
            "budget": by_name[name]["default_budget"],
            "tokenizer": by_name[name]["tokenizer"],
            "estimate": by_name[name]["estimate"],
        }
        for name, group, fill_url in MENU
    ]


if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    described = describe_all()
    return {"targets": described, "menu": menu_entries(described)}
