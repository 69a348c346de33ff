"""The context report: one stable schema for what `context` says about how the budget was spent.

The engine (context/engine.py) builds the report; this model is its contract, sent as is by the host and
rendered as sent by the extension. schema/context-report.v1.json is generated from it (`python -m
mnemosyne.report_schema`) and tests/unit/test_report_schema.py fails when the engine, this model or the committed
schema drift apart. Message ids are plain strings everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

COMMITTED = Path(__file__).with_name("schema") / "context-report.v1.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReportCounts(_Strict):
    messages: int = Field(ge=0, description="messages with text on the chosen branch")
    kept: int = Field(ge=0, description="messages carried verbatim")
    compressed: int = Field(ge=0, description="messages carried as salient sentences or code blocks")
    dropped: int = Field(ge=0, description="messages left out")
    sentences: int = Field(ge=0, description="sentences carried from compressed messages")
    code_blocks: int = Field(ge=0, description="code blocks carried from compressed messages")
    units: int = Field(
        ge=0, description="units of information (sentences, list items, table rows, code blocks) chosen"
    )


class ContextReport(_Strict):
    conversation: str = Field(description="the Mnemosyne conversation id")
    target: str = Field(description="the target name (see the targets action)")
    shape: str = Field(description="text, agents_md, openai or anthropic")
    tokens: int = Field(ge=0, description="tokens the context uses, counted with `tokenizer`")
    tokens_exact: bool = Field(
        default=True,
        description="true: `tokens` is the exact count; false: an upper bound (UTF-8 bytes, which o200k_base "
        "never exceeds, scaled for estimates): everything fitted by its byte count, so no tokenizer was loaded",
    )
    tokenizer: str = Field(description="an exact encoding, or an estimate name")
    estimate: bool = Field(description="true when the tokenizer is an estimate and `margin` is held back")
    budget: int = Field(gt=0, description="the budget asked for (or the target's default)")
    limit: int = Field(gt=0, description="tokens the context may use: the budget less the margin")
    margin: float = Field(ge=0, lt=1, description="share of the budget held back for estimates")
    leaf: str | None = Field(description="the last message id of the branch the context was built from")
    kept: list[str] = Field(description="ids of messages kept verbatim, in order")
    compressed: list[str] = Field(description="ids of messages compressed to salient sentences")
    dropped: list[str] = Field(description="ids of messages left out")
    counts: ReportCounts
    truncated: list[str] = Field(description="ids of verbatim messages cut in the middle to fit")
    instructions: int = Field(
        ge=0, description="instructions (system prompt, custom instructions...) carried"
    )
    focus: str | None = Field(
        description="the focus the units were scored against; null: the title and last user messages were"
    )
    file_name: str | None = Field(default=None, description="for file-shaped targets: the file to write")
    redactions: dict[str, int] | None = Field(
        default=None, description="only when redacting: how many of each type were replaced (never values)"
    )


def schema_text() -> str:
    return json.dumps(ContextReport.model_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    COMMITTED.write_text(schema_text(), encoding="utf-8")
