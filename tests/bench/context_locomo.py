"""Does the context keep the evidence a long conversation's questions need? LoCoMo, held out.

LoCoMo (snap-research/LoCoMo, Maharana et al., ACL 2024, CC BY-NC 4.0) is read from
../shared/bench/locomo-tune/locomo_tune4.json or $MNEMOSYNE_LOCOMO; it is never copied into
this repository, and the bench says it skipped when the file is absent.

Method (the shared README's, applied unchanged):
- each conversation becomes a message list: speaker_a is `user`, speaker_b `assistant`, every session in
  order, then a final user message asking to catch up on both people;
- questions: category 1-4 whose answer (lower-cased, punctuation folded to spaces) appears word-bounded in
  the text of one of its evidence turns;
- a context keeps a question when the answer appears in it word-bounded with at least 3 content words
  (4+ letters, not stop words) of that evidence turn within 300 characters;
- budgets 2,000 / 4,000 / 8,000 tokens for the `chatgpt` target (o200k_base), recounted here;
- baselines: last messages that fit, drop oldest first, evenly spaced messages.

The four conversations are split by conversation before any tuning: TUNING (conv-26, conv-30) is what the
engine may be tuned on, TEST (conv-41, conv-42) is reported. All four are printed for reference.

Run: python tests/bench/context_locomo.py [--split tuning|test|all] [--budgets 2000,4000,8000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_baselines import BASELINES, ENCODING  # noqa: E402

from mnemosyne import tokens  # noqa: E402
from mnemosyne.context import build_context  # noqa: E402
from mnemosyne.model import Conversation, Message, Provenance, Source, TextPart  # noqa: E402

DEFAULT_PATH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo-tune" / "locomo_tune4.json"
BUDGETS = (2000, 4000, 8000)
TUNING = ("conv-26", "conv-30")
TEST = ("conv-41", "conv-42")
WINDOW = 300
MIN_EVIDENCE_WORDS = 3
STOP = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "hers",
        "herself",
        "himself",
        "into",
        "itself",
        "just",
        "more",
        "most",
        "myself",
        "once",
        "only",
        "other",
        "ours",
        "ourselves",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "really",
        "much",
        "like",
        "know",
        "think",
        "going",
        "gonna",
        "thanks",
        "thank",
        "yeah",
        "great",
        "good",
        "that's",
        "it's",
        "i'm",
        "you're",
    ]
)
_PUNCT = re.compile(r"[^\w\s]|_")


def locate() -> Path | None:
    env = os.environ.get("MNEMOSYNE_LOCOMO")
    path = Path(env) if env else DEFAULT_PATH
    return path if path.is_file() else None


def fold(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


def content_words(text: str) -> set[str]:
    return {w for w in fold(text).split() if len(w) >= 4 and w not in STOP}


def conversation(sample: dict) -> Conversation:
    c = sample["conversation"]
    a, b = c["speaker_a"], c["speaker_b"]
    sessions = sorted(
        (int(k.split("_")[1]) for k in c if re.fullmatch(r"session_\d+", k) and isinstance(c[k], list)),
    )
    script = [
        ("user" if t["speaker"] == a else "assistant", t["text"]) for s in sessions for t in c[f"session_{s}"]
    ]
    script.append(("user", f"Catch me up: what do we know so far about {a} and {b}?"))
    messages = [
        Message(id=f"m{i:05d}", parent=f"m{i - 1:05d}" if i else None, role=r, parts=[TextPart(text=t)])
        for i, (r, t) in enumerate(script)
    ]
    return Conversation(
        id=sample["sample_id"],
        title=f"{a} and {b}",
        source=Source(site="chatgpt"),
        messages=messages,
        active_leaf=messages[-1].id,
        provenance=Provenance(method="manual", reader="bench", reader_version="0", raw_sha256="0" * 64),
    )


def questions(sample: dict) -> list[tuple[str, list[set[str]]]]:
    """(folded answer, content words of each evidence turn holding it) for the questions used."""
    turns = {
        t["dia_id"]: t["text"]
        for k, v in sample["conversation"].items()
        if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
        for t in v
    }
    out = []
    for qa in sample["qa"]:
        if qa.get("category") not in (1, 2, 3, 4) or "answer" not in qa:
            continue
        answer = fold(str(qa["answer"]))
        if not answer:
            continue
        pattern = re.compile(rf"\b{re.escape(answer)}\b")
        holding = [
            content_words(turns[e]) for e in qa["evidence"] if e in turns and pattern.search(fold(turns[e]))
        ]
        if holding:
            out.append((answer, holding))
    return out


def keeps(context: str, answer: str, evidence: list[set[str]]) -> bool:
    text = fold(context)
    for m in re.finditer(rf"\b{re.escape(answer)}\b", text):
        near = set(text[max(0, m.start() - WINDOW) : m.end() + WINDOW].split())
        if any(len(words & near) >= MIN_EVIDENCE_WORDS for words in evidence):
            return True
    return False


def contexts(conv: Conversation, budget: int, focus: str | None = None) -> dict[str, str]:
    out = {
        "mnemosyne": build_context(conv, "chatgpt", budget=budget, **({"focus": focus} if focus else {})).text
    }
    out.update((name, fn(conv, budget)) for name, fn in BASELINES.items())
    return out


def evaluate(samples: list[dict], budgets=BUDGETS) -> dict[tuple[int, str], list[int]]:
    """(budget, method) -> [kept, asked], summed over `samples`; also checks every context fits."""
    totals: dict[tuple[int, str], list[int]] = {}
    for sample in samples:
        conv = conversation(sample)
        qs = questions(sample)
        for budget in budgets:
            for method, text in contexts(conv, budget).items():
                used = tokens.count(text, ENCODING)
                if used > budget:
                    raise SystemExit(f"FAIL: {method} {conv.id} {budget}: {used} tokens over budget")
                row = totals.setdefault((budget, method), [0, 0, 0])
                row[0] += sum(keeps(text, a, ev) for a, ev in qs)
                row[1] += len(qs)
                row[2] += used
    return totals


def table(title: str, totals: dict[tuple[int, str], list[int]], n_conv: int, budgets=BUDGETS) -> None:
    methods = ["mnemosyne", *BASELINES]
    print(f"\n{title}")
    print(f"{'budget':>6}  " + "  ".join(f"{m:>15}" for m in methods) + "  ratio to best baseline")
    for budget in budgets:
        shares = {m: totals[(budget, m)][0] / totals[(budget, m)][1] for m in methods}
        best = max(shares[m] for m in BASELINES)
        fill = totals[(budget, "mnemosyne")][2] / n_conv / budget
        print(
            f"{budget:>6}  "
            + "  ".join(f"{shares[m]:>14.1%} " for m in methods)
            + f"  {shares['mnemosyne'] / best if best else float('inf'):.2f}x"
            + f"   (budget used {fill:.1%}, {totals[(budget, 'mnemosyne')][1]} questions)"
        )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("tuning", "test", "all"), default=None)
    parser.add_argument(
        "--budgets",
        default=",".join(map(str, BUDGETS)),
        help="comma-separated budgets; tuning used 1500,2000,2500,3000,4000,6000,8000 (a finer grid is less noisy)",
    )
    args = parser.parse_args()
    budgets = tuple(int(b) for b in args.budgets.split(","))
    path = locate()
    if path is None:
        print(f"SKIP: LoCoMo not found at {DEFAULT_PATH} (set MNEMOSYNE_LOCOMO to its locomo_tune4.json)")
        return 0
    data = {s["sample_id"]: s for s in json.loads(path.read_text(encoding="utf-8"))}
    splits = {"test": TEST, "tuning": TUNING, "all": tuple(data)}
    for name in [args.split] if args.split else ["test", "all"]:
        ids = [i for i in splits[name] if i in data]
        label = {
            "test": "TEST half (held out, reported)",
            "tuning": "TUNING half",
            "all": "all four (reference)",
        }
        table(
            f"{label[name]}: {', '.join(ids)}", evaluate([data[i] for i in ids], budgets), len(ids), budgets
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
