"""How long does a context take to build for 1 MB and 5 MB of real chat text?

Conversations of about 1 MB and 5 MB are built from real fixture dialogues (English and
Chinese, the planted-fact bench's text). For each, build_context runs with the per-message token
counts the archive stores, for several targets and budgets, as a first build (nothing of it in memory nor
stored: `mnemo context FILE`), from the archive (nothing of it in memory, its units stored in a real
archive: a restarted host, `mnemo context ID`), after a save (what a host makes after a save's reply: the
units and the corpus, engine.prepare) and again (the same conversation built again); every run is paired
with its floor, one tiktoken o200k_base pass over the output it produced. Targets (issue 9): 1 MB under
0.3 s, 5 MB under 1 s.

Run: python tests/bench/context_speed.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import fresh_home, use_home  # noqa: E402
from context_quality import build  # noqa: E402  (the same real-text conversations)

from mnemosyne import tokens  # noqa: E402
from mnemosyne.context import build_context, corpus, count_messages, counting  # noqa: E402
from mnemosyne.context.engine import prepare  # noqa: E402
from mnemosyne.context.turns import render_message  # noqa: E402
from mnemosyne.model import Conversation  # noqa: E402
from mnemosyne.service.context import store_units, stored_units  # noqa: E402

CACHE_TERMS, MAX_COUNTS = corpus.CACHE_TERMS, counting.MAX_COUNTS
SIZES = {1_000_000: 0.3, 5_000_000: 1.0}  # bytes of text -> target seconds
MODES = ("first", "archived", "after save", "again")
CASES = [("chatgpt", 2_000), ("chatgpt", 16_000), ("claude", 32_000), ("gpt-4o", 96_000)]


def conversation_of(size: int) -> Conversation:
    """English then Chinese real dialogue text, repeated to about `size` bytes, ending on a user question."""
    en, _ = build("en", 10_000)
    zh, _ = build("zh", 10_000)
    body = en.messages[:-1] + zh.messages[:-1]
    chosen, total = [], 0
    while total < size:  # repeat the dialogue text until it reaches `size` bytes
        for m in body:
            chosen.append(m)
            total += len(render_message(m).encode())
            if total >= size:
                break
    messages = []
    for m in chosen + zh.messages[-1:]:
        n = len(messages)
        messages.append(m.model_copy(update={"id": f"x{n:06d}", "parent": f"x{n - 1:06d}" if n else None}))
    return en.model_copy(update={"messages": messages, "active_leaf": messages[-1].id})


def caching(on: bool) -> None:
    """Keep units and token counts between builds, or keep none at all: the text here repeats, so an
    emptied cache would still serve the repeats within one build and flatter a first build."""
    corpus.CACHE_TERMS = CACHE_TERMS if on else 0
    counting.MAX_COUNTS = MAX_COUNTS if on else 0
    corpus.clear_cache()
    counting._COUNTS.clear()


def cpu_time() -> float:
    """CPU seconds of this process and of its helpers reaped so far (a first build shares its split with a
    forked helper: context/shared_work.py)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(round(0.95 * len(values))) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    enc = tokens.encoding("o200k_base")
    enc.encode_ordinary("warm up")
    use_home(fresh_home("context-speed"))
    from mnemosyne.archive import open_archive

    arc = open_archive()
    misses = 0
    for size, target_s in SIZES.items():
        conv = conversation_of(size)
        arc.save_many([conv])
        store_units(arc, conv)  # what a host stores after the save's reply (or the first context of it)
        text = "\n\n".join(render_message(m) for m in conv.messages)
        counts = count_messages(conv, "o200k_base")
        start = time.perf_counter()
        enc.encode_ordinary(text)
        whole_pass = time.perf_counter() - start
        print(
            f"\nconversation: {len(conv.messages)} messages, {len(text.encode()) / 1e6:.2f} MB, "
            f"one o200k pass over all of it {whole_pass * 1000:.0f} ms; target < {target_s} s"
        )
        print(
            f"{'target':8} {'budget':>7} {'build':10} {'median':>9} {'p95':>9} {'cpu med':>9} "
            f"{'floor':>9} {'ratio':>7}  result"
        )
        for target, budget in CASES:
            for mode in MODES:
                caching(mode != "first")
                build_context(conv, target, budget=budget, token_counts=counts)  # warm the code paths
                seconds, cpu, floors = [], [], []
                for _ in range(args.runs):
                    if mode == "after save":  # only what a host makes after a save's reply is in memory
                        caching(True)
                        prepare(conv, lambda: True, redacted=False)  # (these builds are plain)
                    elif mode == "archived":  # nothing in memory; the units are in the archive
                        caching(True)
                    start, start_cpu = time.perf_counter(), cpu_time()
                    with stored_units(arc if mode == "archived" else None, conv.id):
                        out = build_context(conv, target, budget=budget, token_counts=counts).text
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
                    f"{'pass' if ok else 'MISS'}"
                )
    print(
        "\nfirst: a build with nothing of the conversation in memory nor stored (`mnemo context FILE`);"
        " archived: nothing of it in memory, its units read back from the archive (a restarted host,"
        " `mnemo context ID`: the archive stores them after a save's reply or a first context);"
        " after save: what a host makes after a save's reply (or a `get`'s) is in memory: the turns split"
        " into units, the corpus's statistics and relevance (engine.prepare, test_host_context_prepare.py),"
        " as for the first Continue in after an Export; again: the same conversation built again (the"
        " preview, then the paste, or another budget).\nmedian and p95 are wall time; cpu med is the CPU time"
        " of the process and of the helper it forked to share a first split;"
        " floor: one o200k_base pass over the context built in the same run (ratio = median / floor)."
        f"\nload average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
