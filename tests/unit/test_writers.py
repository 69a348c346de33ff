"""Writers on hand-built conversations (every part type) and on real fixtures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import conversation_samples as samples
from mnemosyne import canonical
from mnemosyne.errors import NotFoundError, UnknownFormatError
from mnemosyne.readers import load_path, read_raw
from mnemosyne.writers import WRITERS, anthropic, markdown, ollama, openai, portable, text, writer

FIXTURES = Path(__file__).parents[1] / "fixtures"
CHATGPT_CODE = FIXTURES / "chatgpt_export" / "echomine_003_with_code.json"
CLAUDE_TOOLS = FIXTURES / "claude_export" / "echomine_claude_tool_messages.json"
CHATGPT_PYTHON = (
    FIXTURES / "chatgpt_api" / "elinvoss" / "0198-AI_Origin_Inquiry-6983ee11-711c-832f-a7b6-2a0791c4f38e.json"
)
CHATGPT_TREE = FIXTURES / "chatgpt_export" / "librechat_chatgpt-tree.json"


def read(path: Path) -> list:
    return [c for raw in load_path(path) for c in read_raw(raw)]


def front_matter(md: str) -> dict[str, str]:
    """The `key: value` lines between the leading `---` fences."""
    assert md.startswith("---\n")
    block = md[4 : md.index("\n---\n", 4)]
    pairs = [line.split(": ", 1) for line in block.splitlines()]
    assert all(len(p) == 2 and re.fullmatch(r"[a-z_]+", p[0]) for p in pairs), block
    return dict(pairs)


def headings(md: str) -> list[str]:
    return re.findall(r"^#{2,3} (.+)$", md, flags=re.M)


# ---------------------------------------------------------------- OpenAI / Anthropic rules


def check_openai(body: dict) -> None:
    msgs = body["messages"]
    for i, msg in enumerate(msgs):
        assert msg["role"] in ("system", "user", "assistant", "tool")
        if msg.get("tool_calls"):
            ids = [c["id"] for c in msg["tool_calls"]]
            assert len(set(ids)) == len(ids)
            answers = []
            for follower in msgs[i + 1 :]:
                if follower["role"] != "tool":
                    break
                answers.append(follower["tool_call_id"])
            assert sorted(answers) == sorted(ids), "every tool call is answered right after its message"
            for call in msg["tool_calls"]:
                assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", call["function"]["name"])
                json.loads(call["function"]["arguments"])
        if msg["role"] == "tool":
            assert msgs[i - 1]["role"] in ("assistant", "tool")


def check_anthropic(body: dict) -> None:
    turns = body["messages"]
    assert turns[0]["role"] == "user"
    for a, b in zip(turns, turns[1:]):
        assert a["role"] != b["role"], "user and assistant alternate"
    for i, turn in enumerate(turns):
        assert turn["role"] in ("user", "assistant") and turn["content"]
        for block in turn["content"]:
            if block["type"] == "text":
                assert block["text"].strip()
        uses = [b["id"] for b in turn["content"] if b["type"] == "tool_use"]
        if uses:
            assert turn["role"] == "assistant"
            following = turns[i + 1]["content"]
            results = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
            assert sorted(results) == sorted(uses), "each tool_use answered in the next user turn"
            assert all(b["type"] == "tool_result" for b in following[: len(results)]), "results come first"
    last = turns[-1]
    if last["role"] == "assistant" and last["content"][-1]["type"] == "text":
        assert last["content"][-1]["text"] == last["content"][-1]["text"].rstrip()


# ---------------------------------------------------------------- registry


def test_registry_lists_every_writer_with_its_metadata():
    assert set(WRITERS) == {"portable", "markdown", "text", "html", "openai", "anthropic", "ollama"}
    for name, mod in WRITERS.items():
        assert name == mod.NAME
        assert re.fullmatch(r"\.[a-z]+", mod.EXTENSION)
        assert "/" in mod.MEDIA_TYPE
    assert WRITERS["markdown"].EXTENSION == ".md" and WRITERS["html"].EXTENSION == ".html"
    with pytest.raises(UnknownFormatError):
        writer("docx")


# ---------------------------------------------------------------- hand-built: every part


def test_markdown_renders_every_part_of_the_active_path():
    conv = samples.every_part()
    md = markdown.write(conv)
    meta = front_matter(md)
    assert meta["title"] == '"Primes: \\"plots\\" #1 and more"'
    assert meta["tags"] == '["mnemosyne", "chatgpt"]' and meta["mnemosyne_id"] == '"abcdefghijkl"'
    assert meta["created"] == "2025-03-01T09:30:00Z"
    assert headings(md) == [
        "Instructions",
        "Custom instructions",
        "User",
        "Assistant",
        "Tool (python)",
        "Assistant",
        "Tool (web_search)",
        "Assistant",
    ]
    assert "hidden system context" not in md and "Old answer" not in md
    assert (
        "````python\nprint([2, 3, 5, 7])\n# ```inside```\n````" in md
    )  # fence outlasts the backticks inside
    assert "- Image: `primes.png` (image/png, 20.0 KB)\n- File: `notes.txt` (text/plain)" in md
    assert "> [!abstract]- Thinking (4 s)\n> Planning\n>\n> The user wants primes." in md
    assert '**Tool call:** `web_search`\n\n```json\n{\n  "query": "largest known prime"\n}\n```' in md
    assert "```python\nPRIMES = [2, 3]\n```" in md and "> [!error] ToolError\n> sandbox restarted" in md
    assert "*(content of type `brand_new_type` is not shown)*" in md
    assert "[^1]: [Prime number](<https://en.wikipedia.org/wiki/Prime_number>)" in md
    assert "[^2]: Bad link (`javascript:alert(1)`)" in md and "](<javascript" not in md
    assert md.endswith("[^3]: [GIMPS](<https://www.mersenne.org/>)\n")


def test_markdown_front_matter_is_yaml_even_for_hostile_titles():
    yaml = pytest.importorskip("yaml")
    conv = samples.every_part()
    conv.title = 'a: b # c "d" \\ e\x07\x7f\ufeff [f] {g} & *h - i\n---\nj'
    conv.source.url = "https://x.test/?q=a: b#frag"
    meta = yaml.safe_load(markdown.write(conv).split("---\n")[1])
    assert meta["title"] == 'a: b # c "d" \\ e\x07\x7f\ufeff [f] {g} & *h - i --- j'
    assert meta["url"] == "https://x.test/?q=a: b#frag"
    assert meta["tags"] == ["mnemosyne", "chatgpt"] and meta["source"] == "chatgpt"
    assert meta["created"].year == 2025


def test_markdown_closes_a_fence_the_message_left_open():
    conv = samples.claude_style_tools()
    conv.messages[1].parts[0].text = "look:\n```python\nprint(1)"
    md = markdown.write(conv)
    assert "```python\nprint(1)\n```\n\n## Assistant" in md


def test_writers_follow_the_requested_branch():
    conv = samples.every_part()
    for mod in (markdown, text, openai, anthropic, ollama):
        on_branch = mod.write(conv, branch="a1-old")
        assert "Old answer on another branch" in on_branch and "largest known prime" not in on_branch
        assert "Old answer" not in mod.write(conv)
    with pytest.raises(NotFoundError):
        markdown.write(conv, branch="no-such-message")


def test_portable_keeps_the_whole_tree_and_moves_only_the_active_leaf():
    conv = samples.every_part()
    assert canonical.loads(portable.write(conv)) == conv
    moved = canonical.loads(portable.write(conv, branch="a1-old"))
    assert moved.active_leaf == "a1-old" and moved.messages == conv.messages
    line = portable.write_line(conv)
    assert line.count("\n") == 1 and canonical.loads(line) == conv
    with pytest.raises(NotFoundError):
        portable.write(conv, branch="nope")


def test_text_is_a_labelled_transcript_without_added_markup():
    out = text.write(samples.every_part())
    assert out.startswith('Primes: "plots" #1 and more\nSource: chatgpt <https://chatgpt.com/c/x1>\n')
    labels = re.findall(r"^(?:===|---) (.+?) (?:===|---)$", out, flags=re.M)
    assert labels == [
        "Custom instructions",
        "User",
        "Assistant",
        "Tool (python)",
        "Assistant",
        "Tool (web_search)",
        "Assistant",
    ]
    assert "[code: python]\nprint([2, 3, 5, 7])" in out and "[tool call: web_search]" in out
    assert "[image: primes.png, image/png, 20.0 KB]" in out and "[unsupported content: brand_new_type]" in out
    assert "**" not in out and "> [!" not in out and "```python" not in out


def test_openai_body_from_hand_built_tree():
    body = json.loads(openai.write(samples.every_part()))
    check_openai(body)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert body["messages"][0]["content"] == "Answer briefly."
    assert "[image attached: primes.png (image/png, 20.0 KB)]" in body["messages"][1]["content"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {
        "name": "web_search",
        "arguments": '{"query": "largest known prime"}',
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "2^136279841 - 1"}
    assert "The user wants primes" not in json.dumps(body), "earlier reasoning is not sent back"


def test_anthropic_alternates_opens_with_user_and_answers_every_tool_use():
    body = json.loads(anthropic.write(samples.claude_style_tools()))
    check_anthropic(body)
    assert "system" not in body
    assert body["messages"][0]["content"][0]["text"] == anthropic.OPENING_NOTE
    results = body["messages"][4]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_01", "toolu_02"]
    assert results[1]["content"].startswith("[no tool result")
    assert body["messages"][3]["content"][2]["input"] == {
        "cmd": "python fib.py"
    }  # JSON string args -> object
    assert body["messages"][-1]["content"][-1]["text"] == "Done."


def test_duplicate_and_unmatched_tool_ids_stay_valid():
    conv = samples.claude_style_tools()
    conv.messages[2].parts[2].call_id = "toolu_01"  # the same id twice, as in real Claude Code logs
    conv.messages[3].parts.append(samples.ToolResultPart(call_id="toolu_zz", output="stray"))
    oa, an = json.loads(openai.write(conv)), json.loads(anthropic.write(conv))
    check_openai(oa)
    check_anthropic(an)
    assert [c["id"] for c in oa["messages"][2]["tool_calls"]] == ["toolu_01", "toolu_01_2"]
    assert "stray" in json.dumps(an) and "stray" in json.dumps(oa)


def test_ollama_body_has_model_objects_and_tool_names():
    conv = samples.every_part()
    body = json.loads(ollama.write(conv))
    assert body["model"] == "llama3.1" and body["stream"] is False
    assert json.loads(ollama.write(conv, model="qwen3:8b"))["model"] == "qwen3:8b"
    call = body["messages"][2]["tool_calls"][0]["function"]
    assert call == {"name": "web_search", "arguments": {"query": "largest known prime"}}
    assert body["messages"][3] == {"role": "tool", "content": "2^136279841 - 1", "tool_name": "web_search"}
    assert all(isinstance(m["content"], str) for m in body["messages"])


def test_json_writers_keep_non_ascii_readable():
    conv = samples.claude_style_tools()
    conv.messages[1].parts[0].text = "Écris fib.py — 日本語"
    for mod in (openai, anthropic, ollama, portable):
        out = mod.write(conv)
        assert "Écris fib.py — 日本語" in out and out.endswith("\n")


# ---------------------------------------------------------------- real fixtures


def test_chatgpt_code_fixture_in_every_writer():
    [conv] = read(CHATGPT_CODE)
    md = markdown.write(conv)
    assert front_matter(md)["title"] == '"Gmail API Management in Java"'
    assert headings(md)[:3] == ["User", "Assistant", "User"]  # the web tool turn is hidden at the source
    assert "```xml\n" in md and "```java\n" in md
    assert "**Tool call:** `web`" in md
    body = json.loads(openai.write(conv))
    check_openai(body)
    assert [m["role"] for m in body["messages"]][:4] == ["user", "assistant", "tool", "assistant"]
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == "web"
    assert body["messages"][2]["content"].startswith("[no tool result")  # its result node is hidden and empty
    check_anthropic(json.loads(anthropic.write(conv)))
    assert "Gmail API" in text.write(conv)


def test_chatgpt_python_fixture_code_blocks_and_outputs():
    [conv] = read(CHATGPT_PYTHON)
    md = markdown.write(conv)
    assert md.count("```python\n") == 4 and md.count("### Tool (python)") == 4
    assert "- Image: `4F172339-F8A9-4ADF-B3F3-B0CC75FE2F38.jpeg` (image/jpeg" in md
    assert "## Instructions" in md and "> [!abstract]- Thinking" in md
    oa = json.loads(openai.write(conv))
    check_openai(oa)
    assert oa["messages"][0]["role"] == "system" and "Elin Voss" in oa["messages"][0]["content"]
    assert "[image attached: 4F172339-F8A9-4ADF-B3F3-B0CC75FE2F38.jpeg" in oa["messages"][1]["content"]
    check_anthropic(json.loads(anthropic.write(conv)))


def test_claude_tool_fixture_keeps_tool_use_pairs():
    convs = read(CLAUDE_TOOLS)
    assert len(convs) == 4
    for conv in convs:
        oa, an = json.loads(openai.write(conv)), json.loads(anthropic.write(conv))
        check_openai(oa)
        check_anthropic(an)
        assert not any(
            MISSING in json.dumps(x) for x in (oa, an) for MISSING in ["no tool result was recorded"]
        )
    first = convs[0]
    an = json.loads(anthropic.write(first))
    uses = [b for t in an["messages"] for b in t["content"] if b["type"] == "tool_use"]
    assert [u["name"] for u in uses] == ["write_file", "execute_code"]
    assert uses[0]["id"] == "toolu_01A2B3C4D5E6F7" and uses[0]["input"]["path"] == "fibonacci.py"
    oa = json.loads(openai.write(first))
    assert [m["role"] for m in oa["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert oa["messages"][4]["content"] == "[0, 1, 1, 2, 3, 5, 8, 13, 21, 34]"
    md = markdown.write(first)
    assert headings(md) == [
        "User",
        "Assistant",
        "Tool (write_file)",
        "Assistant",
        "Tool (execute_code)",
        "Assistant",
    ]
    assert "```\n[0, 1, 1, 2, 3, 5, 8, 13, 21, 34]\n```" in md


def test_branch_fixture_writes_only_the_active_path():
    [conv] = read(CHATGPT_TREE)
    md = markdown.write(conv)
    from mnemosyne import tree

    active = [m for m in tree.active_path(conv) if not m.hidden and m.parts]
    other = [m for m in conv.messages if m not in tree.active_path(conv) and m.parts]
    assert tree.branch_points(conv) == 2 and other
    for msg in active:
        first = msg.parts[0]
        if getattr(first, "text", "").strip():
            assert first.text.strip()[:40] in md
    for msg in other:
        snippet = getattr(msg.parts[0], "text", "").strip()[:60]
        if snippet and all(snippet not in getattr(p, "text", "") for m in active for p in m.parts):
            assert snippet not in md
