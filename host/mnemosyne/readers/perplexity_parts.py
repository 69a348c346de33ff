"""The assistant turn of one Perplexity entry: research steps as reasoning, the answer's Markdown, the web
results it cites. Blocks of kinds this reader does not know are kept whole and counted."""

from __future__ import annotations

import json
from typing import Any

from ..model import CitationPart, Part, ReasoningPart, TextPart, UnknownPart
from .base import Warnings, raw_json
from .json_values import as_dict, as_list, as_str

_PLAN = ("plan_block",)
_ANSWER = "markdown_block"
_RESULTS = "web_result_block"


def _squash(text: str) -> str:
    return " ".join(text.split())


def _step_line(step: dict[str, Any], warnings: Warnings) -> str | Part | None:
    """One research step as the page lists it; None for the question and the answer themselves."""
    kind = str(step.get("step_type") or "")
    content = next((v for k, v in step.items() if k.endswith("_content") and isinstance(v, dict)), {})
    if kind in ("INITIAL_QUERY", "FINAL"):
        return None
    if kind == "SEARCH_WEB":
        queries = [as_str(as_dict(q).get("query")) for q in as_list(content.get("queries"))]
        return "Searching: " + "; ".join(q for q in queries if q)
    if kind == "SEARCH_RESULTS":
        results = [as_dict(r) for r in as_list(content.get("web_results"))]
        lines = [" ".join(str(r.get(k) or "") for k in ("name", "url", "snippet")).strip() for r in results]
        return "Reading:\n" + "\n".join(f"- {line}" for line in lines if line)
    if kind == "URL_NAVIGATE":
        return "Opening: " + "; ".join(u for u in as_list(content.get("urls")) if isinstance(u, str))
    if kind == "ATTACHMENT":
        files = [as_dict(a) for a in as_list(content.get("attachments"))]
        return "Attached: " + "; ".join(f"{a.get('name') or ''} {a.get('url') or ''}".strip() for a in files)
    text = as_str(content.get("text")) or as_str(content.get("description")) or as_str(step.get("text"))
    if text:
        return text
    warnings.add("PERPLEXITY_UNKNOWN_STEP", f"a research step of kind {kind or '(none)'!r} was kept as is")
    return UnknownPart(source_type=f"perplexity.step.{kind or 'unknown'}", raw=raw_json(step))


def _research(plan: dict[str, Any], warnings: Warnings) -> list[Part]:
    """The plan's goals and the steps taken for them, as one reasoning part; unknown steps kept beside it."""
    lines: list[str] = []
    kept: list[Part] = []
    for goal in as_list(plan.get("goals")):
        text = as_str(as_dict(goal).get("description"))
        if text and text not in lines:
            lines.append(text)
    for step in as_list(plan.get("steps")):
        line = _step_line(as_dict(step), warnings)
        if isinstance(line, str) and line not in lines:
            lines.append(line)
        elif line is not None and not isinstance(line, str):
            kept.append(line)
    return ([ReasoningPart(text="\n".join(lines))] if lines else []) + kept


def _citations(block: dict[str, Any], seen: set[str]) -> list[Part]:
    parts: list[Part] = []
    for item in as_list(block.get("web_results")):
        result = as_dict(item)
        url, title = as_str(result.get("url")), as_str(result.get("name"))
        key = url or title or ""
        if key in seen or not (url or title or result.get("snippet")):
            continue
        seen.add(key)
        parts.append(CitationPart(title=title, url=url, text=as_str(result.get("snippet")) or ""))
    return parts


def _answers(blocks: list[dict[str, Any]]) -> list[str]:
    """The answer's Markdown: the numbered answer blocks (ask_text_0_markdown ...) when there are any, and
    the whole answer (ask_text) only when it says more than they do together."""
    texts: list[tuple[str, str]] = []
    for block in blocks:
        body = as_dict(block.get(_ANSWER))
        text = as_str(body.get("answer")) or "".join(
            c for c in as_list(body.get("chunks")) if isinstance(c, str)
        )
        if text:
            texts.append((str(block.get("intended_usage") or ""), text))
    numbered = [t for usage, t in texts if usage != "ask_text"]
    whole = [t for usage, t in texts if usage == "ask_text"]
    out: list[str] = []
    for text in numbered:
        if text not in out:
            out.append(text)
    joined = _squash(" ".join(out))
    out.extend(t for t in whole if _squash(t) != joined and t not in out)
    return out


def _answer_from_text(value: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """Older entries (and the stream's steps) carry the answer in `text`: a JSON string of the steps, whose
    FINAL step holds {"answer", "web_results"} as JSON again, or that object itself, or plain Markdown."""
    if not isinstance(value, str) or not value.strip():
        return None, []
    try:
        parsed = json.loads(value)
    except ValueError:
        return value, []
    if isinstance(parsed, list):
        final = next((as_dict(s) for s in parsed if as_dict(s).get("step_type") == "FINAL"), {})
        return _answer_from_text(as_dict(final.get("content")).get("answer"))
    body = as_dict(parsed)
    answer = body.get("answer")
    if isinstance(answer, str):
        return answer, [as_dict(r) for r in as_list(body.get("web_results"))]
    return None, []


def answer_parts(entry: dict[str, Any], warnings: Warnings) -> list[Part]:
    parts: list[Part] = []
    seen: set[str] = set()
    blocks = [as_dict(b) for b in as_list(entry.get("blocks"))]
    for block in blocks:
        plan = next((as_dict(block[k]) for k in _PLAN if k in block), None)
        if plan is not None:
            parts.extend(_research(plan, warnings))
    answers = _answers(blocks)
    if not answers:
        text, results = _answer_from_text(entry.get("text"))
        answers = [text] if text else []
        parts.extend([TextPart(text=a) for a in answers])
        parts.extend(_citations({"web_results": results}, seen))
    else:
        parts.extend(TextPart(text=a) for a in answers)
    for block in blocks:
        if _RESULTS in block:
            parts.extend(_citations(as_dict(block[_RESULTS]), seen))
        elif _ANSWER not in block and not any(k in block for k in _PLAN):
            usage = str(block.get("intended_usage") or "unknown")
            warnings.add("PERPLEXITY_UNKNOWN_BLOCK", f"a Perplexity answer block {usage!r} was kept as is")
            parts.append(UnknownPart(source_type=f"perplexity.{usage}", raw=raw_json(block)))
    if not answers and entry.get("status") in ("COMPLETED", None) and not entry.get("blocks"):
        warnings.add("PERPLEXITY_NO_ANSWER", "an entry with no answer text")
    return parts
