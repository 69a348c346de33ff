"""The service layer, the token-count policy and the explicit registries the CLI and host dispatch through."""

from __future__ import annotations

import pytest

from mnemosyne.runtime.lazy import load


def test_every_registry_entry_names_a_function_that_exists():
    from mnemosyne.cli.main import COMMANDS
    from mnemosyne.nativehost.actions import ACTIONS

    refs = list(ACTIONS.values()) + [r for c in COMMANDS.values() for r in (c.add_arguments, c.run)]
    assert all(callable(load(ref)) for ref in refs)


@pytest.mark.parametrize(
    ("tokenizer", "include", "redact", "used"),
    [
        ("o200k_base", (), False, True),
        ("o200k_base", (), True, False),  # redacted text counts differently
        ("o200k_base", ("reasoning",), False, False),  # extra kinds change each message's text
        ("o200k_base", "tools", False, False),
        ("cl100k_base", (), False, False),  # stored counts are o200k
        ("claude-estimate", (), False, True),  # estimates scale o200k counts
    ],
)
def test_stored_counts_are_used_only_by_builds_that_read_them(tokenizer, include, redact, used):
    from mnemosyne.service.token_counts import uses_stored_counts

    assert uses_stored_counts(tokenizer, include, redact) is used


def test_import_paths_counts_each_conversation_and_reports_failures(mnemo_home, fixtures, tmp_path):
    from mnemosyne.archive import open_archive
    from mnemosyne.service import import_paths

    broken = tmp_path / "broken.json"
    broken.write_text('{"not": "a conversation"}', encoding="utf-8")
    export = fixtures / "claude_export" / "echomine_claude_sample_export.json"
    lines: list[str] = []
    with open_archive() as arc:
        first = import_paths(arc, [str(export), str(broken)], on_failure=lines.append, count_tokens=False)
        again = import_paths(arc, [str(export)], count_tokens=False)
    assert first.created >= 5 and first.failed == 1 and lines == first.failures and "broken.json" in lines[0]
    assert again.unchanged == first.created and again.created == again.failed == 0


def test_save_payload_refuses_what_a_page_may_not_send(mnemo_home):
    from mnemosyne.archive import open_archive
    from mnemosyne.errors import MnemosyneError
    from mnemosyne.service import save_payload

    with open_archive() as arc, pytest.raises(MnemosyneError):
        save_payload(arc, [{"role": "user", "content": "hi"}], kind="auto")
