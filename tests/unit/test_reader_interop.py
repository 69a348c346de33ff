"""Readers of other tools' formats, all fixtures together: auto-detection picks
the right reader, --from gives the same result, canonical dumps round-trip,
and no detect() claims another format's files.

Format-specific content is asserted in test_reader_interop_api.py (OpenAI,
Anthropic), _datasets.py (ShareGPT) and _apps.py (Open WebUI, LibreChat,
SillyTavern)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interop_cassettes import cassette_inputs
from mnemosyne import canonical
from mnemosyne.cli.main import main
from mnemosyne.model import Conversation
from mnemosyne.readers import detect, load_path, read_raw, reader
from mnemosyne.readers.base import RawInput, ReadContext, ReadFailure
from mnemosyne.readers.loading import parse_json_bytes

FIXTURES = Path(__file__).parents[1] / "fixtures"
OTHER_TOOLS = ("openwebui", "librechat", "sillytavern", "anthropic", "openai", "sharegpt")
FOLDER_FORMAT = {
    "interop_openai_messages": "openai",
    "interop_anthropic_messages": "anthropic",
    "interop_sharegpt": "sharegpt",
    "interop_openwebui": "openwebui",
    "interop_librechat": "librechat",
    "interop_sillytavern": "sillytavern",
}
# conversations each file holds (cassettes: summed over every request and response body)
EXPECTED_COUNT = {
    "claudenexus_06-compact-weird.json": 2,
    "claudenexus_07-duplicated-tools.json": 2,
    "llmanthropic_test_fixed_version_tool_chain_with_thinking_display_regression.yaml": 4,
    "llmanthropic_test_tools.yaml": 4,
    "llmanthropic_test_web_search.yaml": 2,
    "llm_test_responses_interleaved_reasoning_between_tool_calls.yaml": 8,
    "llm_test_tool_use_chain_of_two_calls.yaml": 6,
    "librechat_chatbotui-export.json": 2,
    "librechat_librechat-export.json": 1,
    "librechat_librechat-linear.json": 1,
    "librechat_librechat-opts-nonr-branches.json": 1,
    "librechat_librechat-tree.json": 1,
    "librechat_openwebui-export.json": 3,
    "owi-importer_expected_claude_output.json": 1,
    "axolotl_conversation.json": 1,
    "axolotl_conversation.missingturns.json": 1,
    "fastchat_dummy_conversation.json": 500,
    "llamafactory_glaive_toolcall_en_demo.json": 300,
    "llamafactory_glaive_toolcall_zh_demo.json": 300,
    "llamafactory_mllm_demo.json": 6,
    "llamafactory_reason_tool_use_demo_50.jsonl": 50,
    "st_legacy_Aqua_1673181146000.jsonl": 1,
    "st_legacy_Darkness_1673225255706.jsonl": 1,
    "st_legacy_Megumin_1673323621108.jsonl": 1,
}


def interop_files() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("interop_*/*") if p.suffix in (".json", ".jsonl", ".yaml"))


def inputs_of(path: Path) -> list[RawInput]:
    if path.suffix == ".yaml":
        return [parse_json_bytes(name, data) for name, data in cassette_inputs(path)]
    return load_path(path)


def read_all(raw: RawInput, fmt: str | None = None) -> list[Conversation]:
    results = list(read_raw(raw, ReadContext(), fmt=fmt))
    failures = [r for r in results if isinstance(r, ReadFailure)]
    assert not failures, failures[0].error.message
    return results


def test_every_fixture_file_is_covered() -> None:
    assert {p.name for p in interop_files()} == set(EXPECTED_COUNT)


@pytest.mark.parametrize("path", interop_files(), ids=lambda p: p.name)
def test_fixture_converts_through_detection_and_from(path: Path) -> None:
    fmt = FOLDER_FORMAT[path.parent.name]
    total = 0
    for raw in inputs_of(path):
        assert fmt == detect(raw).NAME
        detected = read_all(raw)
        chosen = read_all(raw, fmt=fmt)
        assert [canonical.dumps(c) for c in detected] == [canonical.dumps(c) for c in chosen]
        for conv in detected:
            assert conv.source.site == fmt
            assert conv.provenance.method == "other_tool"
            assert conv.provenance.reader.startswith(fmt + ".")
            assert conv.messages, f"{raw.name}: a conversation without messages"
            ids = [m.id for m in conv.messages]
            assert len(ids) == len(set(ids))
            seen: set[str] = set()
            for m in conv.messages:  # parents before children
                assert m.parent is None or m.parent in seen
                seen.add(m.id)
            assert conv.active_leaf in seen
        total += len(detected)
    assert total == EXPECTED_COUNT[path.name]


@pytest.mark.parametrize("path", interop_files(), ids=lambda p: p.name)
def test_round_trip_is_byte_identical(path: Path) -> None:
    raws = inputs_of(path)
    sample = [c for raw in raws[-2:] for c in read_all(raw)][:5]
    for conv in sample:
        first = canonical.dumps(conv)
        assert canonical.dumps(canonical.loads(first)) == first


def test_ids_are_stable_across_reads() -> None:
    path = FIXTURES / "interop_sharegpt" / "fastchat_dummy_conversation.json"
    first = [c.id for c in read_all(load_path(path)[0])]
    again = [c.id for c in read_all(load_path(path)[0])]
    assert first == again
    assert len(set(first)) == 500  # item ids (identity_0 ...) give each its own id


def foreign_fixtures() -> list[Path]:
    """Inputs of the sites and the extension; the planted-fact bench's filler is LLaMA-Factory data (Alpaca and
    ShareGPT-style), which the interop readers may rightly claim."""
    return sorted(
        p
        for p in FIXTURES.rglob("*")
        if p.suffix in (".json", ".jsonl", ".zip")
        and not p.parent.name.startswith("interop_")
        and p.parent.name != "planted_filler"
    )


def test_no_reader_claims_chatgpt_claude_or_capture_inputs() -> None:
    checked = 0
    for path in foreign_fixtures():
        try:
            raws = load_path(path)
        except Exception:  # some are deliberately broken inputs for other readers
            continue
        for raw in raws:
            claimed = [name for name in OTHER_TOOLS if reader(name).detect(raw)]
            assert not claimed, f"{path.name} claimed by {claimed}"
            checked += 1
    assert checked >= 10


def test_no_reader_claims_a_mnemosyne_document() -> None:
    path = FIXTURES / "interop_openwebui" / "librechat_openwebui-export.json"
    conv = read_all(load_path(path)[0])[0]
    text = canonical.dumps(conv).encode()
    raw = parse_json_bytes("doc.json", text)
    assert [n for n in OTHER_TOOLS if reader(n).detect(raw)] == []
    assert detect(raw).NAME == "portable"


def test_broken_item_is_a_failure_and_the_rest_continue() -> None:
    items = [
        {
            "id": "ok-1",
            "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}],
        },
        {"id": "bad", "conversations": [{"from": "human", "value": "hi"}, {"from": "martian", "value": "?"}]},
        {"id": "ok-2", "conversations": [{"from": "human", "value": "bye"}]},
    ]
    raw = parse_json_bytes("mixed.json", json.dumps(items).encode())
    results = list(read_raw(raw, fmt="sharegpt"))
    assert [type(r).__name__ for r in results] == ["Conversation", "ReadFailure", "Conversation"]
    assert results[1].label == "mixed.json[1]"
    assert results[1].error.code == "BAD_INPUT"
    assert [r.source.conversation_id for r in results if isinstance(r, Conversation)] == ["ok-1", "ok-2"]


def test_cli_convert_from_each_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "openwebui": FIXTURES / "interop_openwebui" / "owi-importer_expected_claude_output.json",
        "librechat": FIXTURES / "interop_librechat" / "librechat_librechat-tree.json",
        "sillytavern": FIXTURES / "interop_sillytavern" / "st_legacy_Aqua_1673181146000.jsonl",
        "anthropic": FIXTURES / "interop_anthropic_messages" / "claudenexus_07-duplicated-tools.json",
        "sharegpt": FIXTURES / "interop_sharegpt" / "axolotl_conversation.json",
    }
    for fmt, path in cases.items():
        out = tmp_path / fmt
        assert main(["convert", str(path), "--from", fmt, "--to", "portable", "-o", str(out)]) == 0
        files = [out] if out.is_file() else sorted(out.iterdir())
        docs = [canonical.loads(f.read_bytes()) for f in files]
        assert docs and all(d.source.site == fmt for d in docs)
    capsys.readouterr()


def test_cli_from_wrong_format_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "interop_sillytavern" / "st_legacy_Aqua_1673181146000.jsonl"
    assert main(["convert", str(path), "--from", "librechat", "--to", "portable"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "librechat" in err


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_our_api_writers_output_reads_back(fmt: str) -> None:
    """mnemo's own --to openai/anthropic bodies are inputs these readers take back."""
    from mnemosyne.model import ToolCallPart, ToolResultPart
    from mnemosyne.tree import active_path
    from mnemosyne.writers import writer

    path = FIXTURES / "interop_anthropic_messages" / "claudenexus_07-duplicated-tools.json"
    conv = read_all(load_path(path)[0])[1]
    raw = parse_json_bytes("written.json", writer(fmt).write(conv).encode())
    assert fmt == detect(raw).NAME
    [back] = read_all(raw)
    assert [m.role for m in active_path(back)] == [m.role for m in active_path(conv)]
    calls = [p for m in back.messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p for m in back.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [c.name for c in calls] == ["Read", "Read"] and results[-1].output == "File does not exist."
    assert back.instructions[0].text == conv.instructions[0].text
