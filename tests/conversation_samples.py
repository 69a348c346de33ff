"""Hand-built conversations for writer and context tests: every part type, a branch, tools, a plain script; and
every conversation the readers make of the site fixtures."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path

from mnemosyne.model import (
    ArtifactPart,
    AttachmentPart,
    Citation,
    CitationPart,
    CodeOutputPart,
    CodePart,
    Conversation,
    Instruction,
    Message,
    Provenance,
    ReasoningPart,
    Source,
    SystemErrorPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)
from mnemosyne.readers import ReadFailure, load_path, read_raw

T0 = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)
FIXTURES = Path(__file__).parent / "fixtures"
SITE_FOLDERS = ("chatgpt_api", "chatgpt_export", "chatgpt_synthetic", "claude_export", "claude_api")


def fixture_conversations(folders: Iterable[str] = SITE_FOLDERS) -> Iterator[tuple[Path, Conversation]]:
    """(file, conversation) for every conversation the readers make of the fixtures in `folders`."""
    for folder in folders:
        for path in sorted((FIXTURES / folder).rglob("*.json")):
            for raw in load_path(path):
                for conv in read_raw(raw):
                    if not isinstance(conv, ReadFailure):
                        yield path, conv


def provenance() -> Provenance:
    return Provenance(method="manual", reader="tests", reader_version="0", raw_sha256="0" * 64)


def linear(
    script: Iterable[tuple[str, str]],
    *,
    conversation_id: str = "hand",
    title: str = "hand made",
    site: str = "claude",
    instructions: Iterable[Instruction] = (),
) -> Conversation:
    """A chain of text messages from (role, text) pairs, m0, m1, ...; the last one is the active leaf."""
    messages = [
        Message(id=f"m{i}", parent=f"m{i - 1}" if i else None, role=role, parts=[TextPart(text=text)])
        for i, (role, text) in enumerate(script)
    ]
    return Conversation(
        id=conversation_id,
        title=title,
        source=Source(site=site),
        messages=messages,
        instructions=list(instructions),
        active_leaf=messages[-1].id,
        provenance=provenance(),
    )


def every_part() -> Conversation:
    """A ChatGPT-like tree: hidden system node, an edited user turn, python tool, every part type."""
    msgs = [
        Message(id="sys", role="system", hidden=True, parts=[TextPart(text="hidden system context")]),
        Message(
            id="u1",
            parent="sys",
            role="user",
            created_at=T0,
            parts=[
                TextPart(text="Plot the first primes", format="plain"),
                AttachmentPart(kind="image", name="primes.png", mime_type="image/png", size_bytes=20480),
                AttachmentPart(
                    kind="file", name="notes.txt", mime_type="text/plain", extracted_text="2 3 5 7"
                ),
            ],
        ),
        Message(
            id="a1",
            parent="u1",
            role="assistant",
            model="gpt-4o",
            parts=[
                ReasoningPart(text="The user wants primes.", summary="Planning", duration_sec=4),
                CodePart(code="print([2, 3, 5, 7])\n# ```inside```", language="python"),
            ],
        ),
        Message(
            id="t1", parent="a1", role="tool", author="python", parts=[CodeOutputPart(text="[2, 3, 5, 7]")]
        ),
        Message(
            id="a2",
            parent="t1",
            role="assistant",
            parts=[
                TextPart(
                    text="Here they are: 2, 3, 5, 7.",
                    citations=[
                        Citation(title="Prime number", url="https://en.wikipedia.org/wiki/Prime_number"),
                        Citation(title="Bad link", url="javascript:alert(1)"),
                    ],
                ),
                ToolCallPart(name="web_search", call_id="call_1", arguments={"query": "largest known prime"}),
            ],
        ),
        Message(
            id="t2",
            parent="a2",
            role="tool",
            author="web_search",
            parts=[
                ToolResultPart(call_id="call_1", name="web_search", output="2^136279841 - 1"),
            ],
        ),
        Message(
            id="a3",
            parent="t2",
            role="assistant",
            parts=[
                CitationPart(title="GIMPS", url="https://www.mersenne.org/", text="M136279841 is prime."),
                ArtifactPart(
                    title="primes.py",
                    kind="application/vnd.ant.code",
                    language="python",
                    content="PRIMES = [2, 3]\n",
                ),
                SystemErrorPart(name="ToolError", text="sandbox restarted"),
                UnknownPart(source_type="brand_new_type", raw={"x": 1}),
            ],
        ),
        # an older branch: the first answer before a regeneration
        Message(
            id="a1-old", parent="u1", role="assistant", parts=[TextPart(text="Old answer on another branch")]
        ),
    ]
    return Conversation(
        id="abcdefghijkl",
        title='Primes: "plots" #1\nand more',
        source=Source(site="chatgpt", url="https://chatgpt.com/c/x1", conversation_id="x1"),
        created_at=T0,
        updated_at=T0,
        default_model="gpt-4o",
        instructions=[Instruction(kind="custom_instructions", text="Answer briefly.")],
        messages=msgs,
        active_leaf="a3",
        provenance=provenance(),
    )


def claude_style_tools() -> Conversation:
    """Claude export shape: tool_use in the assistant turn, tool_result in a human turn, assistant first."""
    msgs = [
        Message(id="m1", role="assistant", parts=[TextPart(text="Hello, I can run tools.")]),
        Message(id="m2", parent="m1", role="user", parts=[TextPart(text="Write fib.py")]),
        Message(
            id="m3",
            parent="m2",
            role="assistant",
            parts=[
                TextPart(text="Writing it."),
                ToolCallPart(name="write_file", call_id="toolu_01", arguments={"path": "fib.py"}),
                ToolCallPart(name="bash", call_id="toolu_02", arguments='{"cmd": "python fib.py"}'),
            ],
        ),
        Message(
            id="m4", parent="m3", role="user", parts=[ToolResultPart(call_id="toolu_01", output="written")]
        ),
        Message(id="m5", parent="m4", role="assistant", parts=[TextPart(text="Done.  \n")]),
    ]
    return Conversation(
        id="claudetools1",
        title="Tools",
        source=Source(site="claude"),
        messages=msgs,
        active_leaf="m5",
        provenance=provenance(),
    )
