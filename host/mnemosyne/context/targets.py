"""The tools a context can be built for: window, tokenizer, default budget, output shape.

Default budget = the smaller of (window x share) — the rest is room for the
reply — and what the target's web composer takes in one paste (`composer_cap`).
Estimated tokenizers also hold back `margin` of the budget: the output is kept
under budget x (1 - margin) counted with the estimate.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from .. import tokens
from ..errors import InputError

Shape = Literal["text", "openai", "anthropic", "agents_md"]

ESTIMATE_MARGIN = 0.05


@dataclass(frozen=True)
class Target:
    name: str
    label: str
    window: int  # context window in tokens
    tokenizer: str  # a tokens.py name: exact encoding or estimate
    shape: Shape
    share: float = 0.75  # of the window, leaving the rest for the reply
    composer_cap: int | None = None  # tokens a web composer accepts in one paste
    file_name: str | None = None  # for agents_md shapes
    note: str = ""

    @property
    def exact(self) -> bool:
        return not tokens.is_estimate(self.tokenizer)

    @property
    def margin(self) -> float:
        return 0.0 if self.exact else ESTIMATE_MARGIN

    @property
    def default_budget(self) -> int:
        budget = int(self.window * self.share)
        return min(budget, self.composer_cap) if self.composer_cap else budget

    def usable(self, budget: int) -> int:
        """Tokens the output may use, counted with this target's tokenizer."""
        return budget - int(budget * self.margin + 0.999999) if self.margin else budget

    def describe(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(
            exact=self.exact, estimate=not self.exact, margin=self.margin, default_budget=self.default_budget
        )
        if not self.exact:
            data["estimate_basis"] = tokens.ESTIMATES[self.tokenizer].basis
        return {k: v for k, v in data.items() if v not in (None, "")}


TARGETS: tuple[Target, ...] = (
    Target(
        "chatgpt",
        "ChatGPT (web)",
        32_000,
        "o200k_base",
        "text",
        share=0.5,
        composer_cap=16_000,
        note="Plus/Team window of GPT-5 Instant is 32k (Free 16k); long pastes stay readable under 16k",
    ),
    Target("gpt-4o", "OpenAI API: GPT-4o / GPT-4o mini", 128_000, "o200k_base", "openai"),
    Target("gpt-4.1", "OpenAI API: GPT-4.1 family", 1_047_576, "o200k_base", "openai", share=0.5),
    Target("gpt-5", "OpenAI API: GPT-5 family", 400_000, "o200k_base", "openai", share=0.6),
    Target(
        "o-series",
        "OpenAI API: o1 / o3 / o4-mini",
        200_000,
        "o200k_base",
        "openai",
        share=0.6,
        note="reasoning tokens share the window: more room is left for the reply",
    ),
    Target("gpt-4", "OpenAI API: GPT-4 (8k)", 8_192, "cl100k_base", "openai"),
    Target("gpt-4-turbo", "OpenAI API: GPT-4 Turbo", 128_000, "cl100k_base", "openai"),
    Target("gpt-3.5-turbo", "OpenAI API: GPT-3.5 Turbo", 16_385, "cl100k_base", "openai"),
    Target(
        "claude",
        "Claude (web)",
        200_000,
        "claude-estimate",
        "text",
        composer_cap=32_000,
        note="claude.ai turns long pastes into an attachment; 32k keeps room for the chat",
    ),
    Target("claude-api", "Anthropic API: Claude", 200_000, "claude-estimate", "anthropic"),
    Target(
        "gemini",
        "Gemini (web)",
        1_000_000,
        "gemini-estimate",
        "text",
        composer_cap=32_000,
        note="free tier windows are smaller; 32k fits them",
    ),
    Target(
        "deepseek",
        "DeepSeek (web)",
        128_000,
        "llama3-estimate",
        "text",
        composer_cap=32_000,
        note="DeepSeek V3 chat's 128k window; its 128k-entry vocabulary splits Chinese and code like Qwen's",
    ),
    Target(
        "grok",
        "Grok (web)",
        128_000,
        "claude-estimate",
        "text",
        composer_cap=32_000,
        note="grok.com's tokenizer is not public: counted high; free accounts get smaller windows, 32k fits them",
    ),
    Target(
        "perplexity",
        "Perplexity (web)",
        32_000,
        "claude-estimate",
        "text",
        share=0.5,
        composer_cap=16_000,
        note="answers come from the model Perplexity picks (tokenizer unknown: counted high); a long paste "
        "becomes an attached file, so 16k stays in the question",
    ),
    Target(
        "mistral",
        "Mistral Le Chat (web)",
        128_000,
        "llama3-estimate",
        "text",
        composer_cap=32_000,
        note="Mistral's 131k-entry Tekken vocabulary, close to Llama 3's",
    ),
    Target(
        "qwen",
        "Qwen Chat (web)",
        128_000,
        "llama3-estimate",
        "text",
        composer_cap=32_000,
        note="Qwen's 151k-entry vocabulary; 32k fits every model chat.qwen.ai offers",
    ),
    Target(
        "ollama",
        "Ollama (local model, 8k context)",
        8_192,
        "llama3-estimate",
        "openai",
        note="raise num_ctx in Ollama and use local-32k or local-128k for longer contexts",
    ),
    Target("local-32k", "Local model with a 32k context", 32_768, "llama3-estimate", "openai"),
    Target(
        "local-128k",
        "Local model with a 128k context",
        131_072,
        "llama3-estimate",
        "openai",
    ),
    Target(
        "agents-md",
        "Codex, Cursor and other agents (AGENTS.md)",
        200_000,
        "o200k_base",
        "agents_md",
        share=0.04,
        file_name="AGENTS.md",
        note="the file is read into every session: kept short",
    ),
    Target(
        "claude-md",
        "Claude Code (CLAUDE.md)",
        200_000,
        "claude-estimate",
        "agents_md",
        share=0.04,
        file_name="CLAUDE.md",
        note="the file is read into every session: kept short",
    ),
)

_BY_NAME = {t.name: t for t in TARGETS}
_ALIASES = {
    "chatgpt-web": "chatgpt",
    "claude-web": "claude",
    "gemini-web": "gemini",
    "deepseek-web": "deepseek",
    "grok-web": "grok",
    "perplexity-web": "perplexity",
    "le-chat": "mistral",
    "mistral-web": "mistral",
    "qwen-web": "qwen",
    "gpt-4o-mini": "gpt-4o",
    "o3": "o-series",
    "o4-mini": "o-series",
    "o1": "o-series",
    "local": "ollama",
    "agents": "agents-md",
    "codex": "agents-md",
    "claude-code": "claude-md",
}


def get_target(name: str) -> Target:
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _BY_NAME:
        raise InputError(f"unknown target {name!r}; known: {', '.join(_BY_NAME)}", code="UNKNOWN_TARGET")
    return _BY_NAME[key]


def target_names() -> list[str]:
    return [t.name for t in TARGETS]


def describe_all() -> list[dict[str, Any]]:
    return [t.describe() for t in TARGETS]
