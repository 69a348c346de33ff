"""The planted-fact benchmark, small: every context fits, holds the last user message, uses the
budget and shows no unit twice; Mnemosyne keeps facts the tail baselines lose; the halves are honest."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent / "bench" / "context_quality.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("context_quality_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("half", ["tuning", "test"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_guarantees_and_facts_beyond_the_tail(bench, lang, half):
    rows = bench.evaluate(lang, 100, (4000,), half)
    assert bench.check(rows) == []  # within budget, last user message present, no unit twice
    by_method = {r["method"]: r for r in rows}
    mine = by_method["mnemosyne"]
    assert mine["conversation_tokens"] > 3 * 4000  # the facts are far outside a 4k tail
    assert mine["tokens"] >= 0.97 * 4000  # the budget is used, not left empty
    assert by_method["last-messages"]["share"] < 0.3 and by_method["drop-oldest"]["share"] < 0.3
    # a floor against regressions, below the figures the bench prints (tuning ~80 %, test ~55-80 %)
    assert mine["share"] >= 0.5, mine["missing"]
    assert mine["share"] > by_method["last-messages"]["share"] + 0.4


def test_planted_facts_are_not_restated_in_the_tail_and_the_halves_share_no_text(bench):
    for half in ("tuning", "test"):
        for lang in ("en", "zh"):
            conv, facts = bench.build(lang, 100, half)
            _, late, last, _ = bench.HALVES[half][lang]
            tail = "\n".join(text for _, text in late) + last
            assert not [f.key for f in facts if f.key in tail]
            assert len(facts) >= 9
    for lang in ("en", "zh"):
        tuning = {a for pair in bench._filler(lang, "tuning")[:240] for a in pair}
        test = {a for pair in bench._filler(lang, "test") for a in pair}
        assert not tuning & test
        early = {t for _, t, _ in bench.HALVES["tuning"][lang][0]}
        assert not early & {t for _, t, _ in bench.HALVES["test"][lang][0]}
