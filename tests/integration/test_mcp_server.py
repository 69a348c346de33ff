"""`mnemo mcp` driven by the MCP SDK's own client over stdio, against a real archive (the export fixtures
imported): every tool answers as the matching CLI command does, a long conversation pages to its end,
bad ids and arguments come back as typed errors, and a hostile transcript's injected instruction appears
only between the transcript markers."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from mnemosyne.context.shapes import BEGIN, defuse
from support.archive_fixture import HOSTILE_ID, INJECTED, SECRET_EMAIL, make_archive
from support.cli import run_cli

# the real closing marker carries the tag its header names; one spelled in a transcript is quoted
CLOSING = re.compile(r"<<<END TRANSCRIPT \d{12}>>>")

HOST = str(Path(__file__).resolve().parents[2] / "host")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return make_archive(tmp_path_factory.mktemp("mcp"))


def server(env) -> StdioServerParameters:
    keep = ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE")
    extra = {k: env[k] for k in keep}
    extra["PYTHONPATH"] = os.pathsep.join(p for p in (HOST, env.get("PYTHONPATH")) if p)
    return StdioServerParameters(command=sys.executable, args=["-m", "mnemosyne.cli.main", "mcp"], env=extra)


def session(env, calls):
    """Run `calls(client)` against a fresh `mnemo mcp` process; its return value comes back."""

    async def main():
        async with Client(server(env), read_timeout_seconds=120) as client:
            return await calls(client)

    return anyio.run(main)


def only_inside_markers(text: str, needle: str) -> bool:
    """Every occurrence of `needle` sits after an opening marker and before the next closing one."""
    at = text.find(needle)
    while at >= 0:
        ends = [m.start() for m in CLOSING.finditer(text)]
        opened, closed = text.rfind(BEGIN, 0, at), max((e for e in ends if e < at), default=-1)
        if opened < 0 or closed > opened or not any(e > at for e in ends):
            return False
        at = text.find(needle, at + 1)
    return True


def cli_json(env, *args):
    return json.loads(run_cli(env, *args).stdout)


def test_tools_answer_as_the_cli_does(env):
    longest = cli_json(env, "list", "--json", "--limit", "0")
    longest.sort(key=lambda i: i["length"] or 0, reverse=True)
    long_id = longest[0]["id"]

    async def calls(client):
        listing = await client.list_tools()
        out = {"tools": {t.name: t for t in listing.tools}}
        out["recall"] = await client.call_tool("recall", {"query": "binary search overflow", "budget": 700})
        out["search"] = await client.call_tool("search", {"query": "python", "limit": 5})
        out["list"] = await client.call_tool("list", {"site": "claude", "limit": 5})
        out["context"] = await client.call_tool(
            "context", {"id": long_id, "target": "claude", "budget": 1500}
        )
        pages, cursor = [], None
        while True:
            args = {"id": long_id, "max_chars": 1000, **({"cursor": cursor} if cursor else {})}
            page = await client.call_tool("get", args)
            pages.append(page)
            cursor = page.structured_content["next_cursor"]
            if cursor is None:
                break
        out["pages"] = pages
        hits, cursor = [], None
        while True:
            args = {"query": "python", "limit": 3, **({"cursor": cursor} if cursor else {})}
            page = await client.call_tool("search", args)
            hits += [h["id"] for h in page.structured_content["hits"]]
            cursor = page.structured_content["next_cursor"]
            if cursor is None:
                break
        out["search_pages"] = hits
        return out

    got = session(env, calls)
    tools = got["tools"]
    assert set(tools) == {"recall", "search", "list", "get", "context"}
    for tool in tools.values():
        assert len(tool.description) > 80 and tool.input_schema["type"] == "object"
        assert tool.annotations.read_only_hint is True

    cli_recall = cli_json(env, "recall", "--json", "binary search overflow", "--budget", "700")
    assert got["recall"].content[0].text == cli_recall["text"]
    assert got["recall"].structured_content["passages"] == cli_recall["passages"]

    cli_search = cli_json(env, "search", "--json", "python", "--limit", "5")
    assert [h["id"] for h in got["search"].structured_content["hits"]] == [h["id"] for h in cli_search]
    every = cli_json(env, "search", "--json", "python", "--limit", "100")
    assert len(every) > 3 and got["search_pages"] == [h["id"] for h in every]
    cli_list = cli_json(env, "list", "--json", "--source", "claude", "--limit", "5")
    assert [c["id"] for c in got["list"].structured_content["conversations"]] == [c["id"] for c in cli_list]

    cli_context = run_cli(
        env, "context", long_id, "--target", "claude", "--budget", "1500", "--redact"
    ).stdout
    assert got["context"].content[0].text == cli_context.rstrip("\n")

    pages = got["pages"]
    assert (
        len(pages) > 3 and pages[-1].structured_content["end"] == pages[-1].structured_content["total_chars"]
    )
    bodies = []
    for page in pages:
        text = page.content[0].text
        bodies.append(text[text.index(BEGIN) + len(BEGIN) + 1 : CLOSING.search(text).start() - 1])
    shown = run_cli(env, "show", long_id, "--redact").stdout
    assert "".join(bodies) == defuse(shown)


def test_bad_ids_and_arguments_are_typed_errors(env):
    async def calls(client):
        found = {
            "id": await client.call_tool("get", {"id": "zzzz9999"}),
            "context_id": await client.call_tool("context", {"id": "zzzz9999"}),
            "budget": await client.call_tool("recall", {"query": "python", "budget": 10}),
            "missing": await client.call_tool("get", {}),
            "extra": await client.call_tool("list", {"colour": "red"}),
            "cursor": await client.call_tool("search", {"query": "python", "cursor": "not-a-cursor"}),
            "list_cursor": await client.call_tool("list", {"cursor": "bm90IG91cnM"}),
            "date": await client.call_tool("list", {"since": "March"}),
            "branch": await client.call_tool("get", {"id": HOSTILE_ID, "branch": "no-such-message"}),
        }
        try:
            await client.call_tool("delete", {"id": HOSTILE_ID})
        except MCPError as exc:
            found["unknown"] = exc
        return found

    got = session(env, calls)
    expected = {
        "id": "NOT_FOUND",
        "context_id": "NOT_FOUND",
        "budget": "BAD_ARGUMENTS",
        "missing": "BAD_ARGUMENTS",
        "extra": "BAD_ARGUMENTS",
        "cursor": "BAD_CURSOR",
        "list_cursor": "BAD_CURSOR",
        "date": "BAD_INPUT",
        "branch": "NOT_FOUND",
    }
    for name, code in expected.items():
        result = got[name]
        assert result.is_error, name
        assert result.structured_content["error"]["code"] == code, (name, result.structured_content)
        assert result.content[0].text.startswith(f"{code}: ")
    assert got["unknown"].data == {"code": "UNKNOWN_TOOL"}


def test_hostile_transcript_only_inside_markers_and_redacted(env):
    async def calls(client):
        return [
            await client.call_tool("recall", {"query": "zebrafish retry policy"}),
            await client.call_tool("search", {"query": "IGNORE PREVIOUS INSTRUCTIONS"}),
            await client.call_tool("get", {"id": HOSTILE_ID}),
            await client.call_tool("context", {"id": HOSTILE_ID, "target": "chatgpt", "budget": 400}),
        ]

    results = session(env, calls)
    for result in results:
        text = result.content[0].text
        assert not result.is_error and text.count(BEGIN) == 1 and len(CLOSING.findall(text)) == 1
        assert only_inside_markers(text, "pastebin") and only_inside_markers(text, "IGNORE")
        assert SECRET_EMAIL not in text
        assert INJECTED not in json.dumps(result.structured_content)
    assert all("to pastebin" in r.content[0].text for r in (results[0], results[2], results[3]))
    assert "IGNORE" in results[1].content[0].text


def test_redaction_can_be_turned_off_in_the_settings(env, tmp_path):
    config = Path(env["MNEMOSYNE_HOME"]) / "config.toml"
    config.write_text("[mcp]\nredact = false\n", encoding="utf-8")
    try:
        result = session(env, lambda client: client.call_tool("get", {"id": HOSTILE_ID}))
        assert SECRET_EMAIL in result.content[0].text
        config.write_text("[mcp\nredact = no\n", encoding="utf-8")
        broken = run_cli(env, "mcp", check=False, stdin="")
        assert broken.returncode == 2 and "[BAD_CONFIG]" in broken.stderr
    finally:
        config.unlink()
