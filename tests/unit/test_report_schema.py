"""The context report has one schema (report_schema.ContextReport): every report the engine builds fits it
exactly, and the committed JSON Schema is the generated one."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemosyne.readers import ReadFailure, load_path, read_raw
from mnemosyne.report_schema import COMMITTED, ContextReport, schema_text
from mnemosyne.service import context_for

FIXTURES = Path(__file__).parents[1] / "fixtures"
SOURCES = [
    FIXTURES / "chatgpt_export" / "librechat_chatgpt-export.json",
    FIXTURES / "claude_export" / "echomine_claude_sample_export.json",
]


def _conversations():
    for path in SOURCES:
        for raw in load_path(path):
            yield from (c for c in read_raw(raw) if not isinstance(c, ReadFailure))


def test_committed_report_schema_is_the_generated_one():
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        f"{COMMITTED} is stale: regenerate with `python -m mnemosyne.report_schema`"
    )


@pytest.mark.parametrize(
    ("target", "options"),
    [
        ("chatgpt", {}),
        ("claude", {"redact": True}),
        ("gpt-4o", {"include": ("reasoning", "tools"), "budget": 2000}),
        ("agents-md", {"redact": True, "budget": 600}),
        ("claude-api", {"budget": 300}),
    ],
)
def test_every_report_fits_the_schema_exactly(target, options):
    built = 0
    for conv in _conversations():
        report = context_for(conv, target, **options).report
        model = ContextReport.model_validate(report)  # extra keys or wrong types fail here
        assert model.model_dump(exclude_unset=True) == report  # nothing dropped or coerced
        assert ("redactions" in report) is bool(options.get("redact"))
        assert model.counts.kept == len(model.kept) and model.counts.dropped == len(model.dropped)
        built += 1
    assert built >= 7
