"""`mnemo convert` end to end through `main(argv)`: folders, JSON Lines, stdin, zips, bad inputs;
one real process proves the installed entry point reads stdin and writes bytes to stdout."""

from __future__ import annotations

import io
import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from mnemosyne import canonical
from support.cli import mnemo, run_cli

FIXTURES = Path(__file__).parents[1] / "fixtures"
CHATGPT_ARRAY = FIXTURES / "chatgpt_export" / "librechat_chatgpt-export.json"  # 2 conversations
CHATGPT_ONE = FIXTURES / "chatgpt_export" / "echomine_003_with_code.json"
CHATGPT_TREE = FIXTURES / "chatgpt_export" / "librechat_chatgpt-tree.json"
CHATGPT_WITH_BROKEN = FIXTURES / "chatgpt_synthetic" / "librechat_chatgpt-modern-export.json"  # 1 of 3 broken
CLAUDE_TOOLS = FIXTURES / "claude_export" / "echomine_claude_tool_messages.json"  # 4 conversations


def convert(*args: str | Path, stdin: bytes | None = None, cwd: Path | None = None):
    return run_cli(None, "convert", *args, stdin=stdin, cwd=cwd, check=False, text=False)


def one_error_line(done: subprocess.CompletedProcess, name: str) -> str:
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"mnemo convert: {name}: "), lines[0]
    assert "Traceback" not in lines[0]
    return lines[0]


def test_chatgpt_export_array_to_a_folder_of_markdown(tmp_path):
    done = convert(CHATGPT_ARRAY, "--to", "markdown", "-o", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    files = sorted((tmp_path / "out").iterdir())
    assert len(files) == 2
    titles = set()
    for f in files:
        assert re.fullmatch(r"[a-z0-9-]+-[a-z2-7]{12}\.md", f.name)
        md = f.read_text(encoding="utf-8")
        title = re.search(r'^title: "(.*)"$', md, flags=re.M).group(1)
        assert f.name.startswith(re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:20])
        assert f.name[-15:-3] in md  # mnemosyne_id in the front matter
        assert "## User" in md and "## Assistant" in md
        titles.add(title)
    assert len(titles) == 2
    assert done.stdout == b""


def test_several_conversations_as_json_lines_on_stdout():
    done = convert(CLAUDE_TOOLS, "--to", "portable")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode("utf-8").splitlines()
    assert len(lines) == 4
    convs = [canonical.loads(line) for line in lines]
    assert [c.title for c in convs] == [
        "Code Execution with Tools",
        "Web Search and Analysis",
        "Mixed Text and Tool Blocks",
        "Tool-Only Messages",
    ]
    assert all(line == canonical.dumps(c, indent=None) for line, c in zip(lines, convs))


def test_several_conversations_to_stdout_need_a_folder():
    done = convert(CLAUDE_TOOLS, "--to", "markdown")
    assert done.returncode == 2 and done.stdout == b""
    assert "use -o" in one_error_line(done, str(CLAUDE_TOOLS))


def test_stdin_to_stdout_and_to_a_file(tmp_path):
    data = CHATGPT_ONE.read_bytes()
    done = mnemo(None, "convert", "-", "--to", "openai", stdin=data, check=False, text=False, timeout=60)
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["messages"][0] == {"role": "user", "content": body["messages"][0]["content"]}
    assert "Gmail" in body["messages"][0]["content"]
    target = tmp_path / "conv.html"
    done = convert("-", "--to", "html", "-o", target, stdin=data)
    assert done.returncode == 0 and done.stdout == b""
    assert "<title>Gmail API Management in Java</title>" in target.read_text(encoding="utf-8")


def test_export_zip_and_branch(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("conversations.json", CHATGPT_ARRAY.read_bytes())
    done = convert(archive, "--to", "anthropic", "-o", tmp_path / "api")
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "api").glob("*.json"))) == 2

    conv = canonical.loads(convert(CHATGPT_TREE, "--to", "portable").stdout)
    other_leaf = next(
        m.id
        for m in conv.messages
        if m.id != conv.active_leaf and not any(c.parent == m.id for c in conv.messages)
    )
    done = convert(CHATGPT_TREE, "--to", "portable", "--branch", other_leaf)
    assert canonical.loads(done.stdout).active_leaf == other_leaf
    assert (
        convert(CHATGPT_TREE, "--to", "text", "--branch", other_leaf).stdout
        != convert(CHATGPT_TREE, "--to", "text").stdout
    )


def test_a_broken_conversation_is_reported_and_the_rest_converted(tmp_path):
    done = convert(CHATGPT_WITH_BROKEN, "--to", "text", "-o", tmp_path / "out")
    assert done.returncode == 1
    assert len(list((tmp_path / "out").iterdir())) == 2
    errors = [line for line in done.stderr.decode().splitlines() if "wrote" not in line]
    assert len(errors) == 1 and errors[0].startswith(f"mnemo convert: {CHATGPT_WITH_BROKEN}")
    assert "Corrupted entry" in errors[0]


def _truncated_zip(tmp_path: Path) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", CHATGPT_ARRAY.read_bytes())
    path = tmp_path / "cut.zip"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    return path


@pytest.mark.parametrize(
    "case", ["not_json", "truncated_zip", "unknown_format", "empty", "missing", "bad_from"]
)
def test_bad_inputs_exit_2_with_one_line_naming_the_file(case, tmp_path):
    extra: list[str] = []
    if case == "not_json":
        path = tmp_path / "notes.json"
        path.write_text("this is not JSON {")
    elif case == "truncated_zip":
        path = _truncated_zip(tmp_path)
    elif case == "unknown_format":
        path = tmp_path / "shopping.json"
        path.write_text('{"items": ["milk", "eggs"]}')
    elif case == "empty":
        path = tmp_path / "empty.json"
        path.write_text("")
    elif case == "missing":
        path = tmp_path / "absent.json"
    else:
        path, extra = CHATGPT_ONE, ["--from", "docx"]
    done = convert(path, "--to", "markdown", *extra)
    assert done.returncode == 2
    assert done.stdout == b""
    line = one_error_line(done, str(path))
    expected = {
        "not_json": "not valid JSON",
        "truncated_zip": "zip",
        "unknown_format": "not a conversation format",
        "empty": "empty",
        "missing": "no such file",
        "bad_from": "unknown input format",
    }[case]
    assert expected in line


def test_the_collector_pace_convert_sets_is_undone_after(tmp_path):
    """convert collects garbage less often while it runs (the bench's export spent 0.1 s in the collector);
    a caller in the same process gets its own settings back, and nothing stays frozen out of collection."""
    import gc

    before = gc.get_threshold()
    done = convert(CHATGPT_ARRAY, "--to", "markdown", "-o", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
