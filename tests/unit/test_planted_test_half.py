"""The planted-fact benchmark's test half stays apart from the halves the engine was tuned on, and the
bench plants its facts the same way every time."""

import hashlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "bench" / "context_quality.py"
OTHER_HALVES = ("tuning", "dev", "fresh")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("context_quality_test_half", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def half_texts(bench, half: str, lang: str) -> list[str]:
    """Every text a half puts in its conversations: its templates and the filler it uses."""
    early, late, last, title = bench.HALVES[half][lang]
    texts = [t for _, t, _ in early] + [t for _, t in late] + [last, title]
    filler = bench._filler(lang, half)
    if half in ("tuning", "test", "fresh", "test2"):
        filler = filler[: bench.TUNING_FILLER_PAIRS]  # (what build takes of it)
    return texts + [t for pair in filler for t in pair]


def passages(text: str) -> set[str]:
    """Lines and sentences long enough to be recognisable: prose of 30+ characters (a line of code or
    markup, such as `public static void main(String[] args) {`, is any program's), or 12+ of Chinese."""
    out = set()
    for piece in re.split(r"\n|(?<=[.!?。！？])\s*", text):
        piece = " ".join(piece.split())
        if len(re.findall(r"[\u4e00-\u9fff]", piece)) >= 12 or (
            len(piece) >= 30 and not re.search(r"[{};<>=]", piece)
        ):
            out.add(piece)
    return out


@pytest.mark.parametrize("test_half, others_of", [("test", OTHER_HALVES), ("test2", (*OTHER_HALVES, "test"))])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_test_half_shares_no_text_with_the_halves_before_it(bench, lang, test_half, others_of):
    test = half_texts(bench, test_half, lang)
    others = [t for half in others_of for t in half_texts(bench, half, lang)]
    assert len(test) > 150 and len(others) > 300
    assert not set(test) & set(others)  # no message in common
    shared = set().union(*map(passages, test)) & set().union(*map(passages, others))
    assert not shared, sorted(shared)[:5]
    other_text = "\n".join(others)
    _, facts = bench.build(lang, 240, test_half)
    assert not [f.key for f in facts if f.key in other_text]  # no planted value met during tuning


@pytest.mark.parametrize("half", ["test", "fresh", "test2"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_test_and_fresh_halves_plant_their_facts_early_and_say_them_only_there(bench, lang, half):
    conv, facts = bench.build(lang, 240, half)
    texts = [m.parts[0].text for m in conv.messages]
    first = {f.key: next(i for i, t in enumerate(texts) if f.key in t) for f in facts}
    assert len(facts) >= 15 and len({f.kind for f in facts}) >= 8
    assert max(first.values()) < len(texts) / 4  # all in the first quarter of the messages
    early = {t for _, t, _ in bench.HALVES[half][lang][0]}
    for fact in facts:  # said in the set-up only, never by the filler, the callbacks or the last question
        assert all(t in early for t in texts if fact.key in t), fact.key
        if fact.stale:  # a correction comes after the value it corrects
            assert next(i for i, t in enumerate(texts) if fact.stale in t) < first[fact.key]


def planted(bench, half: str, lang: str) -> str:
    conv, facts = bench.build(lang, 240, half)
    blob = repr([(m.id, m.parent, m.role, m.parts[0].text) for m in conv.messages]) + repr(facts)
    return hashlib.sha256(blob.encode()).hexdigest()


def test_planting_is_deterministic(bench):
    """The same conversations and facts in this process, again, and in processes with other hash seeds."""
    here = {
        (h, lang): planted(bench, h, lang)
        for h in ("test2", "test", "fresh", "dev", "tuning")
        for lang in ("en", "zh")
    }
    assert here == {(h, lang): planted(bench, h, lang) for h, lang in here}
    script = (
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_planted_test_half import planted\n"
        f"spec = importlib.util.spec_from_file_location('cq', {str(BENCH)!r})\n"
        "m = importlib.util.module_from_spec(spec); sys.modules['cq'] = m; spec.loader.exec_module(m)\n"
        "for h in ('test2', 'test', 'fresh', 'dev', 'tuning'):\n"
        "    for lang in ('en', 'zh'):\n"
        "        print(h, lang, planted(m, h, lang))\n"
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        assert {tuple(line.split()[:2]): line.split()[2] for line in out.stdout.splitlines()} == here
