"""Redaction (host/mnemosyne/redact.py): recall on realistic fake secrets of
every supported family, in the places people paste them, and false positives on
ordinary technical text (synthetic hashes/UUIDs/base64/code, and every message
of the ChatGPT and Claude fixtures)."""

from __future__ import annotations

from collections import Counter

import pytest

from mnemosyne.readers import load_path, read_raw
from mnemosyne.readers.base import ReadFailure
from mnemosyne.redact import redact
from mnemosyne.text import message_text

from .figures import record
from .secrets_corpus import NEAR_MISSES, near_miss_cards, secret_corpus, technical_text

pytestmark = pytest.mark.robustness

PER_TYPE = 40
RECALL_TARGET = 0.95  # overall, and at least FAMILY_TARGET for every family
FAMILY_TARGET = 0.90
# A false positive costs readability, not safety (code that reads a key from the
# environment gets its right-hand side replaced): allowed, but rare.
FP_RATE_TARGET = 0.02
FIXTURE_FOLDERS = [
    "chatgpt_api",
    "chatgpt_export",
    "chatgpt_synthetic",
    "claude_export",
    "interop_openai_messages",
    "interop_anthropic_messages",
]
CONTACT_TYPES = {"email", "phone"}  # personal data, redacted on purpose; judged separately from secrets


def fixture_texts(fixtures) -> list[str]:
    texts = []
    for folder in FIXTURE_FOLDERS:
        for raw in load_path(fixtures / folder):
            try:
                items = list(read_raw(raw))
            except Exception:  # a fixture meant to be refused is not text to judge
                continue
            texts += [message_text(m) for c in items if not isinstance(c, ReadFailure) for m in c.messages]
    return [t for t in texts if t]


def test_redaction_recall_and_false_positives(fixtures):
    corpus = secret_corpus(seed=2026, per_type=PER_TYPE)
    found, total, missed = Counter(), Counter(), []
    for kind, text, value in corpus:
        out, _ = redact(text)
        total[kind] += 1
        if value in out:
            missed.append(f"{kind}: {text[:90]!r}")
        else:
            found[kind] += 1
    recall = sum(found.values()) / len(corpus)
    record("redaction", "secrets in the corpus", len(corpus))
    record("redaction", "recall (%)", round(100 * recall, 1), f">= {100 * RECALL_TARGET:.0f}")
    near = dict(NEAR_MISSES, **{"card number (Luhn)": near_miss_cards(seed=11, n=100)})
    near_fp = {kind: [t for t in texts if set(redact(t)[1]) - CONTACT_TYPES] for kind, texts in near.items()}
    record("redaction", "family: found/positives, false positives/near misses", "")
    for kind in total:
        misses = f", FP {len(near_fp[kind])}/{len(near[kind])} near misses" if kind in near else ""
        record(
            "redaction", f"  {kind}", f"{found[kind]}/{total[kind]}{misses}", f">= {FAMILY_TARGET:.0%}, FP 0"
        )

    synthetic_fp = Counter()
    synthetic = technical_text(seed=7)
    for text in synthetic:
        synthetic_fp.update(redact(text)[1])
    texts = fixture_texts(fixtures)
    fixture_hits = Counter()
    for text in texts:
        fixture_hits.update(redact(text)[1])
    secret_fp = sum(n for k, n in fixture_hits.items() if k not in CONTACT_TYPES)
    record("redaction", "technical snippets checked", len(synthetic))
    record(
        "redaction",
        "false positives in technical snippets",
        sum(synthetic_fp.values()),
        f"<= {FP_RATE_TARGET:.0%} of snippets",
    )
    record("redaction", "  by type", dict(synthetic_fp) or "-")
    record("redaction", "fixture messages checked", len(texts))
    record(
        "redaction",
        "secret-type redactions (false positives) in fixture messages",
        secret_fp,
        f"<= {FP_RATE_TARGET:.0%} of messages",
    )
    record(
        "redaction",
        "e-mail/phone redactions in fixture messages",
        sum(fixture_hits[k] for k in CONTACT_TYPES),
    )
    for line in missed[:40]:
        print(f"[robustness] redaction: missed {line}")
    assert not any(near_fp.values()), {k: v for k, v in near_fp.items() if v}
    assert len(texts) > 500
    assert recall >= RECALL_TARGET, missed[:10]
    weak = {k: f"{found[k]}/{total[k]}" for k in total if found[k] < FAMILY_TARGET * total[k]}
    assert not weak, f"families below {FAMILY_TARGET:.0%} recall: {weak}"
    assert sum(synthetic_fp.values()) <= FP_RATE_TARGET * len(synthetic), synthetic_fp
    assert secret_fp <= FP_RATE_TARGET * len(texts), fixture_hits
