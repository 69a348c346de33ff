"""How long does a context take to build for 1 MB and 5 MB of chat text?

Conversations of about 1 MB and 5 MB, English and Chinese, every message its own text: runs of real
sentences from the fixtures' ChatGPT conversations (the bench corpus, as continue_bench uses), read by the
ChatGPT reader like a saved page. For each, build_context runs with the per-message token counts the archive
stores, for several targets and budgets, as a first build (nothing of it in memory nor stored, the caches
as a fresh process has them: `mnemo context FILE`), from the archive (nothing of it in memory, its units
and its corpus stored in a real archive: a restarted host, `mnemo context ID`), after a save (what a host makes after a
save's reply: the units and the corpus, engine.prepare) and again (the same conversation built again); the
last three read units back from the archive where memory does not hold them, as a host does. Every run is
paired with its floor, one tiktoken o200k_base pass over the output it produced. A build is timed with
Python's cycle collector held off, as `mnemo context` holds it for the whole command and a host for the
whole request (cycles.py): the collection of what a build made runs after the output is written (20-25 ms
for 5 MB of Chinese, once the collector is on again). Targets: 1 MB under 0.3 s, 5 MB under 1 s.

Run: python tests/bench/context_speed.py [--runs N] [--sizes 1,5] [--languages en,zh]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus as bench_corpus  # noqa: E402
from benchlib import fresh_home, use_home  # noqa: E402

from mnemosyne import tokens  # noqa: E402
from mnemosyne.context import build_context, count_messages  # noqa: E402
from mnemosyne.context.engine import prepare  # noqa: E402
from mnemosyne.context.turns import render_message  # noqa: E402
from mnemosyne.model import Conversation  # noqa: E402
from mnemosyne.prepare.caches import Caches  # noqa: E402
from mnemosyne.readers import RawInput, ReadContext, read_raw  # noqa: E402
from mnemosyne.runtime.cycles import collector_held  # noqa: E402
from mnemosyne.service.context import store_corpora, store_units, stored_units  # noqa: E402

SIZES = {1: 0.3, 5: 1.0}  # MB of message text -> target seconds
LANGUAGES = ("en", "zh")
MODES = ("first", "archived", "after save", "again")
CASES = [("chatgpt", 2_000), ("chatgpt", 16_000), ("claude", 32_000), ("gpt-4o", 96_000)]


SEED = 20_261_203
SAMPLE_MESSAGES = 201


def _read(payload: dict) -> Conversation:
    raw = RawInput("bench", payload, json.dumps(payload, ensure_ascii=False).encode())
    return next(iter(read_raw(raw, ReadContext(), "chatgpt")))  # type: ignore[arg-type]


def conversation_of(size: int, language: str = "en") -> Conversation:
    """About `size` bytes of message text in `language` ("en" or "zh"), every message its own (a text that
    repeats is split once per build and would flatter it), ending on a user message."""
    chinese = language == "zh"
    count = SAMPLE_MESSAGES
    for _ in range(2):  # a sample's size per message, then the first try's (a longer run of the same text)
        conv = _read(bench_corpus.chatgpt_conversation(SEED, messages=count, chinese=chinese))
        per_message = sum(len(render_message(m).encode()) + 2 for m in conv.messages) / count
        count = int(size / per_message) // 2 * 2 + 1  # odd: user, assistant, ..., user
    return _read(bench_corpus.chatgpt_conversation(SEED, messages=count, chinese=chinese))


CACHES = Caches()  # what a process keeps between builds (a host's, here without its split worker)


def forget() -> None:
    """Nothing of any conversation in memory: the units, the corpora, the token counts (as a fresh process)."""
    CACHES.clear()


def cpu_time() -> float:
    """CPU seconds of this process and of its helpers reaped so far (a first build shares its split with a
    forked helper: prepare/shared_work.py)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(round(0.95 * len(values))) - 1)]


def measure(arc: Any, enc: Any, conv: Conversation, language: str, target_s: float, runs: int) -> int:
    """Print the build times of `conv` (in `language`) in every mode and case; returns the misses."""
    forget()
    arc.save_many([conv])
    # what a host stores after the save's reply, or `mnemo context ID` after its first output: the units, and
    # the corpus of the version built (here the plain one)
    with stored_units(arc, conv.id, CACHES):
        prepare(conv, lambda: True, CACHES, redacted=False)
    store_units(arc, conv, CACHES)
    store_corpora(arc, conv, CACHES)
    text = "\n\n".join(render_message(m) for m in conv.messages)
    counts = count_messages(conv, "o200k_base")
    start = time.perf_counter()
    enc.encode_ordinary(text)
    whole_pass = time.perf_counter() - start
    print(
        f"\nconversation: {len(conv.messages)} messages in {language}, "
        f"{len(text.encode()) / 1e6:.2f} MB, one o200k pass over all of it {whole_pass * 1000:.0f} ms; "
        f"target < {target_s} s"
    )
    print(
        f"{'target':8} {'budget':>7} {'build':10} {'median':>9} {'p95':>9} {'cpu med':>9} "
        f"{'floor':>9} {'ratio':>7}  result"
    )
    misses = 0
    for target, budget in CASES:
        for mode in MODES:
            archive = None if mode == "first" else arc  # a host reads back what memory does not hold
            with stored_units(archive, conv.id, CACHES):
                build_context(
                    conv, target, budget=budget, token_counts=counts, memory=CACHES
                )  # warm the code paths
            seconds, cpu, floors = [], [], []
            for _ in range(runs):
                if mode != "again":
                    forget()
                if mode == "after save":  # what a host makes after a save's reply is in memory
                    with stored_units(arc, conv.id, CACHES):
                        prepare(conv, lambda: True, CACHES, redacted=False)  # (these builds are plain)
                # (with the cycle collector held off, as `mnemo context` and a host hold it for the whole
                # command or request: it runs after the output is written, not inside the build's end)
                with collector_held():
                    start, start_cpu = time.perf_counter(), cpu_time()
                    with stored_units(archive, conv.id, CACHES):
                        out = build_context(
                            conv, target, budget=budget, token_counts=counts, memory=CACHES
                        ).text
                    seconds.append(time.perf_counter() - start)
                    cpu.append(cpu_time() - start_cpu)
                start = time.perf_counter()
                enc.encode_ordinary(out)
                floors.append(time.perf_counter() - start)
            med, floor = statistics.median(seconds), statistics.median(floors)
            ok = med < target_s
            misses += not ok
            print(
                f"{target:8} {budget:>7} {mode:10} {med * 1000:>7.0f}ms {p95(seconds) * 1000:>7.0f}ms "
                f"{statistics.median(cpu) * 1000:>7.0f}ms {floor * 1000:>7.1f}ms {med / floor:>6.0f}x  "
                f"{'pass' if ok else 'MISS'}",
                flush=True,
            )
    return misses


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="MB, of 1,5")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    args = parser.parse_args()
    enc = tokens.encoding("o200k_base")
    enc.encode_ordinary("warm up")
    use_home(fresh_home("context-speed"))
    from mnemosyne.archive import open_archive

    arc = open_archive()
    misses = 0
    for mb in map(int, args.sizes.split(",")):
        for language in args.languages.split(","):
            conv = conversation_of(mb * 1_000_000, language)
            misses += measure(arc, enc, conv, language, SIZES[mb], args.runs)
    print(
        "\nfirst: a build with nothing of the conversation in memory nor stored, the caches empty as in a"
        " fresh process (`mnemo context FILE`);"
        " archived: nothing of it in memory, its corpus and the units a build looks at read back from the"
        " archive (a restarted host, `mnemo context ID`: the archive stores them after a save's reply or a"
        " first context);"
        " after save: what a host makes after a save's reply (or a `get`'s) is in memory: the turns split"
        " into units, the corpus's statistics and relevance (engine.prepare, test_host_context_prepare.py),"
        " as for the first Continue in after an Export; again: the same conversation built again (the"
        " preview, then the paste, or another budget). The last three read back from the archive the units"
        " memory does not hold (a conversation of more than about 1.5 MB of distinct text), as a host does."
        f"\nmisses: {misses}.\nmedian and p95 are wall time; cpu med is the CPU time"
        " of the process and of the helper it forked to share a first split;"
        " floor: one o200k_base pass over the context built in the same run (ratio = median / floor)."
        f"\nload average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
