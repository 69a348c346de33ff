"""Does the context keep the evidence a long conversation's questions need? LoCoMo, leave one out.

LoCoMo (snap-research/LoCoMo, Maharana et al., ACL 2024, CC BY-NC 4.0): six of its ten conversations are read
from ../shared/bench/locomo-tune/locomo_tune.json (looked for next to the clone and above it) or from
$MNEMOSYNE_LOCOMO; they are never copied into this repository, and the bench says it skipped when the file is
absent.

Method (the shared README's, applied unchanged):
- each conversation becomes a message list: speaker_a is `user`, speaker_b `assistant`, every session in
  order, then a final user message asking to catch up on both people;
- questions: category 1-4 whose answer (lower-cased, punctuation folded to spaces) appears word-bounded in
  the text of one of its evidence turns;
- a context keeps a question when the answer appears in it word-bounded with at least 3 content words
  (4+ letters, not stop words) of that evidence turn within 300 characters;
- catch-up (no focus): budgets 2,000 / 4,000 / 8,000 tokens for the `chatgpt` target (o200k_base), recounted
  here; baselines: last messages that fit, drop oldest first, evenly spaced messages;
- focus: the question itself as the focus, budgets 1,000 and 2,000; baseline: BM25 over whole messages.

Leave one conversation out: the engine's settings the bench may choose between (SETTINGS) are chosen, for each
mode, on five conversations and scored on the sixth, for each of the six; that figure is the result. The
figure of the best settings on all six is an upper bound (it was chosen on the data it is scored on).

Run: python tests/bench/context_locomo.py [--modes catch-up,focus] [--settings NAME,...]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_baselines import BASELINES, ENCODING, FOCUS_BASELINES  # noqa: E402

from mnemosyne import tokens  # noqa: E402
from mnemosyne.context import build_context  # noqa: E402
from mnemosyne.model import Conversation, Message, Provenance, Source, TextPart  # noqa: E402
from mnemosyne.prepare.caches import Caches  # noqa: E402

DATA = Path("shared") / "bench" / "locomo-tune" / "locomo_tune.json"
BUDGETS = {"catch-up": (2000, 4000, 8000), "focus": (1000, 2000)}
BASELINES_OF = {"catch-up": tuple(BASELINES), "focus": tuple(FOCUS_BASELINES)}
ENGINE = "mnemosyne"
# The engine settings leave-one-out chooses between: name -> {"module.ATTRIBUTE": value}; the first is the
# engine as it ships.
SETTINGS: dict[str, dict[str, object]] = {
    "as shipped": {},
    "passages without a focus": {"mnemosyne.context.retrieve.QUERY_SHARE": 0.25},
    "recent turns yield all": {"mnemosyne.context.select.RECENT_YIELD": 1.0},
    "previous turn 0.8": {"mnemosyne.context.retrieve.PREV_FIELD": 0.8},
    "length norm 0.75": {"mnemosyne.context.retrieve.BM25_B": 0.75},
    "catch-up spread over five stretches": {"mnemosyne.context.select.CATCH_UP_PARTS": 5},
    "catch-up spread over all its room": {
        "mnemosyne.context.select.CATCH_UP_PARTS": 5,
        "mnemosyne.context.select.SPREAD_SHARE": 1.0,
    },
    "generic sentences at full weight": {"mnemosyne.context.coverage.GENERIC_WEIGHT": 1.0},
    "generic sentences at 0.8": {"mnemosyne.context.coverage.GENERIC_WEIGHT": 0.8},
}
# what builds keep between them, as a warm host keeps it (emptied when the settings change)
MEMORY = Caches()
WINDOW = 300
MIN_EVIDENCE_WORDS = 3
_STOP_WORDS = (
    "about above after again against also been before being below between both but could does doing down "
    "during each from further have having here hers herself himself into itself just more most myself once "
    "only other ours ourselves over same should some such than that their theirs them themselves then there "
    "these they this those through under until very were what when where which while will with would your "
    "yours yourself yourselves really much like know think going gonna thanks thank yeah great good that's "
    "it's i'm you're"
)
STOP = frozenset(_STOP_WORDS.split())
_PUNCT = re.compile(r"[^\w\s]|_")

Question = tuple[
    str, str, list[set[str]]
]  # the question, its folded answer, the evidence turns' content words
Scores = dict[tuple[str, int, str], list[int]]  # (mode, budget, method) -> [kept, asked, tokens used]


def locate() -> Path | None:
    env = os.environ.get("MNEMOSYNE_LOCOMO")
    if env:
        return Path(env) if Path(env).is_file() else None
    here = Path(__file__).resolve().parents[2]  # the clone; ../shared next to it, or further up
    return next((p / DATA for p in [here, *here.parents] if (p / DATA).is_file()), None)


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


def questions(sample: dict) -> list[Question]:
    """The questions used, with their folded answer and the content words of each evidence turn holding it."""
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
            out.append((qa["question"], answer, holding))
    return out


def keeps(context: str, answer: str, evidence: list[set[str]]) -> bool:
    text = fold(context)
    for m in re.finditer(rf"\b{re.escape(answer)}\b", text):
        near = set(text[max(0, m.start() - WINDOW) : m.end() + WINDOW].split())
        if any(len(words & near) >= MIN_EVIDENCE_WORDS for words in evidence):
            return True
    return False


@contextmanager
def settings(overrides: dict[str, object]) -> Iterator[None]:
    """The engine with `overrides` (module attributes) in place, and nothing kept from other settings."""
    old = {}
    for name, value in overrides.items():
        module, attr = name.rsplit(".", 1)
        mod = importlib.import_module(module)
        old[name] = (mod, attr, getattr(mod, attr))
        setattr(mod, attr, value)
    MEMORY.clear()
    try:
        yield
    finally:
        for mod, attr, value in old.values():
            setattr(mod, attr, value)
        MEMORY.clear()


def _score(scores: Scores, key: tuple[str, int, str], conv: Conversation, budget: int, text: str, qs) -> None:
    used = tokens.count(text, ENCODING)
    if used > budget:
        raise SystemExit(f"FAIL: {key[2]} {conv.id} {key[0]} {budget}: {used} tokens over budget")
    row = scores.setdefault(key, [0, 0, 0])
    row[0] += sum(keeps(text, a, ev) for _, a, ev in qs)
    row[1] += len(qs)
    row[2] += used


def evaluate(sample: dict, modes: list[str], engine: bool) -> Scores:
    """One conversation's scores: the engine's (`engine`) or the baselines'."""
    conv, qs = conversation(sample), questions(sample)
    scores: Scores = {}
    for mode in modes:
        for budget in BUDGETS[mode]:
            if mode == "catch-up":
                if engine:
                    text = build_context(conv, "chatgpt", budget=budget, memory=MEMORY).text
                    _score(scores, (mode, budget, ENGINE), conv, budget, text, qs)
                else:
                    for name, fn in BASELINES.items():
                        _score(scores, (mode, budget, name), conv, budget, fn(conv, budget), qs)
                continue
            for q in qs:  # focus: each question its own context
                if engine:
                    text = build_context(conv, "chatgpt", budget=budget, focus=q[0], memory=MEMORY).text
                    _score(scores, (mode, budget, ENGINE), conv, budget, text, [q])
                else:
                    for name, fn in FOCUS_BASELINES.items():
                        _score(scores, (mode, budget, name), conv, budget, fn(conv, budget, q[0]), [q])
    return scores


def _share(row: list[int] | None) -> float:
    return row[0] / row[1] if row and row[1] else 0.0


def _total(per_conv: dict[str, Scores], convs: list[str], key: tuple[str, int, str]) -> list[int]:
    rows = [per_conv[c][key] for c in convs]
    return [sum(r[i] for r in rows) for i in range(3)]


def _ratio(mine: float, best: float) -> str:
    return f"{mine / best:.2f}x" if best else "inf"


def per_conversation(mode: str, setting: str, engine: dict[str, Scores], base: dict[str, Scores]) -> None:
    methods = [ENGINE, *BASELINES_OF[mode]]
    convs = list(engine)
    print(f"\n{mode.upper()} per conversation, engine settings {setting!r} (share of questions kept)")
    for budget in BUDGETS[mode]:
        print(f"  budget {budget}: " + "".join(f"{m:>15}" for m in methods) + "  ratio to best baseline")
        for conv in [*convs, "total"]:
            ids = convs if conv == "total" else [conv]
            rows = {m: _total(engine if m == ENGINE else base, ids, (mode, budget, m)) for m in methods}
            shares = {m: _share(rows[m]) for m in methods}
            best = max(shares[m] for m in BASELINES_OF[mode])
            print(
                f"  {conv:>12} "
                + "".join(f"{shares[m]:>14.1%} " for m in methods)
                + f"  {_ratio(shares[ENGINE], best):>6}   ({rows[ENGINE][1]} questions)"
            )


def leave_one_out(
    mode: str, runs: dict[str, dict[str, Scores]], base: dict[str, Scores]
) -> dict[int, tuple[list[int], dict[str, str]]]:
    """For each held-out conversation, the settings that keep most on the other five (summed over the mode's
    budgets; ties to the earlier), scored on it: budget -> ([kept, asked, used] summed, held-out -> setting)."""
    convs = list(base)
    chosen: dict[str, str] = {}
    for held in convs:
        train = [c for c in convs if c != held]
        chosen[held] = max(
            runs,
            key=lambda s: (
                sum(_total(runs[s], train, (mode, b, ENGINE))[0] for b in BUDGETS[mode]),
                -list(runs).index(s),
            ),
        )
    out = {}
    for budget in BUDGETS[mode]:
        rows = [runs[chosen[c]][c][(mode, budget, ENGINE)] for c in convs]
        out[budget] = ([sum(r[i] for r in rows) for i in range(3)], chosen)
    return out


def summary(mode: str, runs: dict[str, dict[str, Scores]], base: dict[str, Scores]) -> None:
    convs = list(base)
    loo = leave_one_out(mode, runs, base)
    best_all = max(
        runs,
        key=lambda s: (
            sum(_total(runs[s], convs, (mode, b, ENGINE))[0] for b in BUDGETS[mode]),
            -list(runs).index(s),
        ),
    )
    print(f"\n{mode.upper()}: leave-one-conversation-out (the result) and all six (an upper bound)")
    cols = [*BASELINES_OF[mode], "LOO " + ENGINE, "ratio", "all-six " + ENGINE, "ratio"]
    print(f"  {'budget':>6} " + "".join(f"{c:>18}" for c in cols))
    for budget in BUDGETS[mode]:
        bases = [_share(_total(base, convs, (mode, budget, m))) for m in BASELINES_OF[mode]]
        best = max(bases)
        held = _share(loo[budget][0])
        upper = _share(_total(runs[best_all], convs, (mode, budget, ENGINE)))
        print(
            f"  {budget:>6} "
            + "".join(f"{s:>17.1%} " for s in bases)
            + f"{held:>17.1%} {_ratio(held, best):>17} {upper:>17.1%} {_ratio(upper, best):>17}"
        )
    for name in runs:
        shares = [_share(_total(runs[name], convs, (mode, b, ENGINE))) for b in BUDGETS[mode]]
        print(f"  settings {name!r} on all six: " + " / ".join(f"{s:.1%}" for s in shares))
    picks = loo[BUDGETS[mode][0]][1]
    print("  settings chosen on the other five: " + ", ".join(f"{c}: {s}" for c, s in picks.items()))
    print(f"  settings best on all six: {best_all}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="catch-up,focus", help="catch-up, focus or both (comma-separated)")
    parser.add_argument("--settings", default=None, help="only these of SETTINGS (comma-separated names)")
    parser.add_argument("--conversations", default=None, help="only these sample ids (comma-separated)")
    args = parser.parse_args()
    modes = args.modes.split(",")
    names = args.settings.split(",") if args.settings else list(SETTINGS)
    path = locate()
    if path is None:
        print(f"SKIP: LoCoMo not found at ../{DATA} next to the clone or above it (set MNEMOSYNE_LOCOMO)")
        return 0
    samples = json.loads(path.read_text(encoding="utf-8"))
    if args.conversations:
        samples = [s for s in samples if s["sample_id"] in args.conversations.split(",")]
    print(f"LoCoMo from {path}: {', '.join(s['sample_id'] for s in samples)}")
    base = {s["sample_id"]: evaluate(s, modes, engine=False) for s in samples}
    runs: dict[str, dict[str, Scores]] = {}
    for name in names:
        with settings(SETTINGS[name]):
            runs[name] = {s["sample_id"]: evaluate(s, modes, engine=True) for s in samples}
    for mode in modes:
        per_conversation(mode, names[0], runs[names[0]], base)
    for mode in modes:
        summary(mode, runs, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
