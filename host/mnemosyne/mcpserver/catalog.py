"""What `mnemo mcp` lists: each tool's name, description and input schema, written for a model that has
never seen Mnemosyne's documentation, and the function that runs it (tools.py)."""

from __future__ import annotations

from typing import Any

from . import tools
from .tools import CONTEXT_TARGETS, DEFAULT_PAGE_CHARS, MAX_PAGE_CHARS, Tool

_ID = {
    "type": "string",
    "minLength": 4,
    "maxLength": 200,
    "description": "A conversation id from search, list or recall (or a unique prefix of 4+ characters).",
}
_SITE = {
    "type": "string",
    "maxLength": 40,
    "description": "Only conversations from this site: chatgpt, claude, openai, anthropic, sharegpt, "
    "openwebui, librechat, sillytavern, ollama.",
}
_DATE = "A date (YYYY-MM-DD) or an ISO 8601 time."


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


TOOLS: tuple[Tool, ...] = (
    Tool(
        "recall",
        "Recall what the user discussed in earlier ChatGPT, Claude and other AI conversations: the passages "
        "of their whole archive most relevant to a question, each labelled with its conversation's title, "
        "site, date and id, trimmed to a token budget. Use it first when the user refers to something "
        'decided, written or explained before ("the retry policy we settled on", "the schema from '
        'March"). Follow up with `get` or `context` on a conversation id for more of one conversation.',
        _schema(
            {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 2000,
                    "description": "What to recall, in words the conversations would use.",
                },
                "budget": {
                    "type": "integer",
                    "minimum": 200,
                    "maximum": 100_000,
                    "default": 4000,
                    "description": "Most tokens the answer may take.",
                },
                "site": _SITE,
                "since": {"type": "string", "description": f"Only conversations active since then. {_DATE}"},
            },
            ["query"],
        ),
        tools.run_recall,
    ),
    Tool(
        "search",
        "Full-text search of the user's archived AI conversations. Returns ranked conversations with a "
        "matching snippet each, a page at a time (pass next_cursor back for the next page). Words match "
        "whole words (all of them must appear); Chinese, Japanese, Korean and substrings work too.",
        _schema(
            {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 500,
                    "description": "Words to find.",
                },
                "site": _SITE,
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "default": 10,
                    "description": "Results per page.",
                },
                "cursor": {"type": "string", "description": "next_cursor from the previous page."},
            },
            ["query"],
        ),
        tools.run_search,
    ),
    Tool(
        "list",
        "List the user's archived AI conversations (id, site, dates, message count, title), newest first "
        "unless `order` says otherwise, filtered by site, project and a date range of last activity. "
        "A page at a time: pass next_cursor back, with the same filters, for the next page.",
        _schema(
            {
                "site": _SITE,
                "project": {
                    "type": "string",
                    "maxLength": 200,
                    "description": "Only conversations of this project (a ChatGPT or Claude project name).",
                },
                "since": {"type": "string", "description": f"Last active at or after. {_DATE}"},
                "until": {"type": "string", "description": f"Last active before. {_DATE}"},
                "order": {
                    "type": "string",
                    "enum": ["newest", "oldest", "created", "title", "length"],
                    "default": "newest",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                "cursor": {"type": "string", "description": "next_cursor from the previous page."},
            },
            [],
        ),
        tools.run_list,
    ),
    Tool(
        "get",
        "Read one archived conversation as Markdown (title, then each turn), the active branch or the "
        "branch ending at `branch`. Long conversations come a page at a time: pass next_cursor back, with "
        "the same id, until it is null.",
        _schema(
            {
                "id": _ID,
                "branch": {"type": "string", "description": "The id of the last message of another branch."},
                "max_chars": {
                    "type": "integer",
                    "minimum": 1000,
                    "maximum": MAX_PAGE_CHARS,
                    "default": DEFAULT_PAGE_CHARS,
                    "description": "Characters per page.",
                },
                "cursor": {"type": "string", "description": "next_cursor from the previous page."},
            },
            ["id"],
        ),
        tools.run_get,
    ),
    Tool(
        "context",
        "One archived conversation condensed to fit a token budget: its instructions, a digest of earlier "
        "turns and the latest turns verbatim, preferring what bears on `focus`. Use it to pick up work "
        "from a past conversation without reading all of it.",
        _schema(
            {
                "id": _ID,
                "target": {
                    "type": "string",
                    "enum": list(CONTEXT_TARGETS),
                    "default": "claude",
                    "description": "Whose tokenizer counts the budget.",
                },
                "budget": {
                    "type": "integer",
                    "minimum": 64,
                    "maximum": 200_000,
                    "description": "Most tokens (default: the target's, 16k-32k).",
                },
                "focus": {
                    "type": "string",
                    "maxLength": 2000,
                    "description": "What you want to do next; the parts that bear on it are preferred.",
                },
                "branch": {"type": "string", "description": "The id of the last message of another branch."},
            },
            ["id"],
        ),
        tools.run_context,
    ),
)

BY_NAME = {t.name: t for t in TOOLS}
