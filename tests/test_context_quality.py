"""The quality benchmark at a 4k budget on a smaller conversation: Mnemosyne keeps the planted
facts that both baselines lose, every context fits, and the last user message is always there."""

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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_planted_facts_survive_where_baselines_lose_them(bench, lang):
    rows = bench.evaluate(lang, 100, (4000,))
    assert bench.check(rows) == []
    by_method = {r["method"]: r for r in rows}
    assert by_method["mnemosyne"]["conversation_tokens"] > 3 * 4000  # the facts are far outside a 4k tail
    assert by_method["mnemosyne"]["share"] >= 0.9, by_method["mnemosyne"]["missing"]
    assert by_method["last-messages"]["share"] < 0.3
    assert by_method["drop-oldest"]["share"] < 0.3
    assert by_method["mnemosyne"]["tokens"] <= 4000


def test_planted_facts_are_not_restated_in_the_tail(bench):
    # honesty check: the keys appear only where they were planted, never in the late turns or last question
    for lang in ("en", "zh"):
        conv, facts = bench.build(lang, 100)
        late = bench.EN_LATE if lang == "en" else bench.ZH_LATE
        last = bench.EN_LAST if lang == "en" else bench.ZH_LAST
        tail = "\n".join(text for _, text in late) + last
        assert not [f.key for f in facts if f.key in tail]
        assert len(facts) >= 9
