"""The Mnemosyne conversation format, version 1.

These pydantic models are the source of truth: the committed JSON Schema
(host/mnemosyne/schema/conversation.v1.json) is generated from them and a test
fails when the two drift. A document keeps the whole message tree (every
message has its source id and parent; the conversation names the active leaf),
so edits and regenerations survive a round trip.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

FORMAT: Final = "mnemosyne.conversation"
SCHEMA_MAJOR = 1
SCHEMA_VERSION = "1.0"

Role = Literal["system", "user", "assistant", "tool"]
Site = Literal[
    "chatgpt",
    "claude",
    "openai",
    "anthropic",
    "sharegpt",
    "openwebui",
    "librechat",
    "sillytavern",
    "ollama",
    "other",
    "grok",
    "perplexity",
    "gemini",
    "deepseek",
]
CaptureMethod = Literal["site_api", "page_dom", "official_export", "other_tool", "manual"]
AttachmentKind = Literal["image", "file", "audio", "video"]
InstructionKind = Literal["system_prompt", "custom_instructions", "project_instructions", "memory"]


class Strict(BaseModel):
    """Every model refuses unknown fields so a typo never passes as data."""

    # defer_build: validators are built on first use, so a process that never validates a model never pays
    model_config = ConfigDict(extra="forbid", frozen=False, defer_build=True)


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def format_time(value: datetime) -> str:
    """One stable spelling per instant, so dumps are byte-identical."""
    spec = "microseconds" if value.microsecond else "seconds"
    return value.astimezone(timezone.utc).replace(tzinfo=None).isoformat(timespec=spec) + "Z"


class Timed(Strict):
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @field_validator("created_at", "updated_at")
    @classmethod
    def _to_utc(cls, v: datetime | None) -> datetime | None:
        return _utc(v)

    @field_serializer("created_at", "updated_at")
    def _ser_time(self, v: datetime | None) -> str | None:
        return None if v is None else format_time(v)


# ---------------------------------------------------------------- parts


class Citation(Strict):
    """A source a text part points at (web page, file, quote)."""

    title: str | None = None
    url: str | None = None
    snippet: str | None = None
    start: int | None = None  # character span in the text the citation supports
    end: int | None = None


class TextPart(Strict):
    type: Literal["text"] = "text"
    text: str
    format: Literal["markdown", "plain"] = "markdown"
    citations: list[Citation] = Field(default_factory=list)


class CodePart(Strict):
    """Code the model wrote for a tool to run (ChatGPT `code` content)."""

    type: Literal["code"] = "code"
    code: str
    language: str | None = None


class CodeOutputPart(Strict):
    """What running code printed (ChatGPT `execution_output`)."""

    type: Literal["code_output"] = "code_output"
    text: str
    images: list[str] = Field(default_factory=list)  # asset pointers or URLs of produced images


class AttachmentPart(Strict):
    """A reference to an image, file, audio or video; the bytes stay at the source unless the archive holds
    them (`sha256`, `bytes`)."""

    type: Literal["attachment"] = "attachment"
    kind: AttachmentKind
    asset_pointer: str | None = None
    name: str | None = None
    mime_type: str | None = None
    size_bytes: int | None = None
    width: int | None = None
    height: int | None = None
    extracted_text: str | None = None  # text the site extracted (Claude attachments, audio transcripts)
    export_file: str | None = (
        None  # the file in the export zip/folder that holds the bytes (ChatGPT .dat, images)
    )
    sha256: str | None = None  # the archive holds the bytes under this SHA-256 (`mnemo export` writes them)
    bytes: int | None = None  # their size, when the archive holds them


class ToolCallPart(Strict):
    type: Literal["tool_call"] = "tool_call"
    name: str
    call_id: str | None = None
    arguments: Any = None  # the JSON arguments as given (object or string)


class ToolResultPart(Strict):
    type: Literal["tool_result"] = "tool_result"
    call_id: str | None = None
    name: str | None = None
    output: str = ""
    is_error: bool = False
    citations: list[Citation] = Field(default_factory=list)


class ReasoningPart(Strict):
    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    summary: str | None = None
    duration_sec: float | None = None
    truncated: bool = False


class CitationPart(Strict):
    """A quote or web result that stands as its own part (ChatGPT `tether_quote`, browsing displays)."""

    type: Literal["citation"] = "citation"
    title: str | None = None
    url: str | None = None
    text: str = ""


class ArtifactPart(Strict):
    """A canvas document or Claude artifact, one version of it."""

    type: Literal["artifact"] = "artifact"
    artifact_id: str | None = None
    version: str | None = None
    title: str | None = None
    kind: str | None = None  # MIME-ish type: text/markdown, application/vnd.ant.code, code/python ...
    language: str | None = None
    command: str | None = None  # create / update / rewrite
    content: str = ""


class SystemErrorPart(Strict):
    type: Literal["system_error"] = "system_error"
    name: str | None = None
    text: str = ""


class UnknownPart(Strict):
    """A content type this reader does not know yet: kept whole, counted in warnings."""

    type: Literal["unknown"] = "unknown"
    source_type: str
    raw: Any = None


Part = Annotated[
    TextPart
    | CodePart
    | CodeOutputPart
    | AttachmentPart
    | ToolCallPart
    | ToolResultPart
    | ReasoningPart
    | CitationPart
    | ArtifactPart
    | SystemErrorPart
    | UnknownPart,
    Field(discriminator="type"),
]


# ---------------------------------------------------------------- messages


class Message(Timed):
    id: str
    parent: str | None = None
    role: Role
    author: str | None = None  # tool name, character name, or the person's display name
    model: str | None = None
    hidden: bool = False  # hidden in the site's UI (system context, custom instructions, memory)
    status: str | None = None  # finished / interrupted / in_progress, as the site says
    parts: list[Part] = Field(default_factory=list)


class Instruction(Strict):
    kind: InstructionKind
    text: str
    title: str | None = None


class Source(Strict):
    site: Site
    url: str | None = None
    conversation_id: str | None = None
    project: str | None = None  # project / custom GPT / character the chat belongs to


class Provenance(Strict):
    method: CaptureMethod
    reader: str  # e.g. "chatgpt.api"
    reader_version: str
    raw_sha256: str
    captured_at: datetime | None = None
    partial: bool = False  # the reader could not prove it saw every turn

    @field_validator("captured_at")
    @classmethod
    def _to_utc(cls, v: datetime | None) -> datetime | None:
        return _utc(v)

    @field_serializer("captured_at")
    def _ser_time(self, v: datetime | None) -> str | None:
        return None if v is None else format_time(v)


class Warning(Strict):
    code: str  # UNKNOWN_CONTENT_TYPE, DANGLING_PARENT, ...
    message: str
    count: int = 1


class Conversation(Timed):
    format: Literal["mnemosyne.conversation"] = FORMAT
    schema_version: str = SCHEMA_VERSION
    id: str  # Mnemosyne id: stable, derived from site + source id (see ids.py)
    title: str | None = None
    source: Source
    default_model: str | None = None
    instructions: list[Instruction] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)  # every node of the tree, parents before children
    active_leaf: str | None = None
    provenance: Provenance
    warnings: list[Warning] = Field(default_factory=list)

    @field_validator("schema_version")
    @classmethod
    def _known_major(cls, v: str) -> str:
        major = v.split(".", 1)[0]
        if not major.isdigit() or int(major) != SCHEMA_MAJOR:
            raise ValueError(
                f"schema_version {v!r} is not supported: this Mnemosyne reads {SCHEMA_MAJOR}.x (writes {SCHEMA_VERSION})"
            )
        return v
