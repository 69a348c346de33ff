"""Peak memory of one host process serving all of the benchmarked work.

One host, on a copy of the 500,000-message search archive, serves in turn:
hello, saves of 50-message and 1.2 MB conversations, contexts of both for
several targets (the 1.2 MB ones repeat one fixture's turns), Continue in on
four conversations of 1 MB of distinct text (a save, then its redacted
ChatGPT context: a user moving between long chats), a markdown `get` of a
large one, list, and every kind of search query; then a context for a
cl100k_base target (a second tokenizer). VmHWM (/proc/<pid>/status) is read
after each phase; and the split worker's (the host's child process, which
splits long histories beside it: prepare/split_worker.py) at the end.
"""

from __future__ import annotations

import shutil

import corpus
import search_archive
from benchlib import BenchHost, Figure, TogetherPeak, emit, fresh_home, use_home
from context_bench import CASES
from save_bench import fifty, large, save_request
from search_bench import pick_queries

TARGET_MB = 200.0
DISTINCT = 4  # conversations of 1 MB of distinct text (2,000 messages), each saved and continued


def copy_archive() -> tuple[object, dict]:
    folder, info = search_archive.ensure()
    home = fresh_home("memory")
    for name in ("archive.db", "archive.key"):
        shutil.copyfile(folder / name, home / name)
    (home / "archive.key").chmod(0o600)
    return home, info


def phases(host: BenchHost, queries: dict[str, list[str]], together: TogetherPeak) -> list[tuple[str, float]]:
    peaks = []

    def mark(label: str) -> None:
        peaks.append((label, host.peak_mib() or 0.0))
        peaks.append((f"{label}: worker", host.worker_peak_mib()))
        peaks.append((f"{label}: together", together.peak_kib / 1024))

    host.timed_call({"action": "hello"})
    mark("hello")
    small_ids = [host.timed_call(save_request(p))[1]["conversation_id"] for p in fifty(20, offset=300_000)]
    mark("50-message saves")
    large_ids = [host.timed_call(save_request(p))[1]["conversation_id"] for p in large(3, offset=300_000)]
    mark("1.2 MB saves")
    for _, target, extra, _ in CASES:
        for conv_id in small_ids[:5] + large_ids:
            host.timed_paged({"action": "context", "conversation_id": conv_id, "target": target, **extra})
    mark("contexts")
    for n in range(DISTINCT):
        payload = corpus.chatgpt_conversation(300_000 + n, messages=2_000, chinese=False)
        conv_id = host.timed_call(save_request(payload))[1]["conversation_id"]
        host.timed_paged(
            {"action": "context", "conversation_id": conv_id, "target": "chatgpt", "redact": True}
        )
    mark(f"Continue in on {DISTINCT} distinct 1 MB conversations")
    host.timed_paged({"action": "get", "conversation_id": large_ids[0], "format": "markdown"})
    host.timed_call({"action": "list", "limit": 100})
    mark("get + list")
    for _kind, words in queries.items():
        for query in words:
            host.timed_call({"action": "search", "query": query})
    mark("searches")
    for conv_id in small_ids[:5] + large_ids:  # a cl100k target loads a second tokenizer
        host.timed_paged({"action": "context", "conversation_id": conv_id, "target": "gpt-4-turbo"})
    mark("then a cl100k target (gpt-4-turbo)")
    return peaks


def run() -> tuple[list[Figure], list[str]]:
    from mnemosyne.archive import open_archive

    home, info = copy_archive()
    env = use_home(home)
    with open_archive(home / "archive.db", create=False) as arc:
        queries = pick_queries(arc.conn, info["messages"])
    host = BenchHost(env)
    together = TogetherPeak(host.proc.pid)
    try:
        together.start()
        marks = phases(host, queries, together)
        together.done.set()
        host.finish()
    finally:
        host.kill()
        shutil.rmtree(home, ignore_errors=True)
    hosts = [(label, mb) for label, mb in marks if not label.endswith((": worker", ": together"))]
    # (before the cl100k phase, which the worker takes no part in)
    worker = max(mb for label, mb in marks[:-3] if label.endswith(": worker"))
    at_once = max(mb for label, mb in marks[:-3] if label.endswith(": together"))
    before_cl100k = hosts[-2][1]
    figures = [
        Figure("host peak memory serving all of the above (VmHWM)", before_cl100k, "MB", TARGET_MB),
        Figure("its split worker's peak memory (VmHWM; a process of its own)", worker, "MB"),
        Figure("the host and its worker, their peaks added (an upper bound)", before_cl100k + worker, "MB"),
        Figure(
            "the host and its worker at one moment, at most (sampled every 2 ms)",
            at_once,
            "MB",
            TARGET_MB,  # the host is both processes: the worker is there to serve its contexts
        ),
        Figure("host peak memory, plus a context for a cl100k target", hosts[-1][1], "MB"),
    ]
    notes = ["VmHWM after each phase: " + ", ".join(f"{label} {mb:.1f} MB" for label, mb in hosts)]
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
