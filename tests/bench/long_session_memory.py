"""A host that lives all day: Continue in on one distinct conversation after another.

The extension keeps one host for as long as the browser keeps its port open, so what a host keeps after a
conversation it has moved on from must not add up. One host serves Continue in on CONVERSATIONS distinct
conversations of 1 MB of text in turn, as a user moving between long chats: the save, the redacted ChatGPT
context asked for at once, the host's idle time after it (it prepares, indexes and stores what the context
engine made), the same context again. Its resident memory (VmRSS) is read after each, once idle.

Printed: the memory after the first few and after the last, and its growth per conversation over the last
half (a least-squares slope): what stays behind for each conversation once the caches are at their bounds.
A statement per row count would leave about 2 MB behind per conversation in SQLite's statement cache (a statement of as many
rows as the conversation had texts, prepared and kept per count): 200 MB after 18 conversations and growing.

Run: python tests/bench/long_session_memory.py [--json PATH]
"""

from __future__ import annotations

import time

import corpus
from benchlib import BenchHost, Figure, emit, fresh_home, rss_kib, use_home
from save_bench import save_request

CONVERSATIONS = 20
MESSAGES = 2_000  # about 1 MB of distinct English text each
IDLE_S = 1.5  # the host's idle time after the context: its deferred work done
GROWTH_TARGET_MB = 1.0  # per conversation, over the last half
TARGET_MB = 200.0


def slope(values: list[float]) -> float:
    """The least-squares growth per step of `values`."""
    n = len(values)
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / sum(
        (x - mean_x) ** 2 for x in range(n)
    )


def run() -> tuple[list[Figure], list[str]]:
    host = BenchHost(use_home(fresh_home("session")))
    after: list[float] = []
    try:
        host.timed_call({"action": "hello"})
        for n in range(CONVERSATIONS):
            payload = corpus.chatgpt_conversation(400_000 + n, messages=MESSAGES, chinese=False)
            conv_id = host.timed_call(save_request(payload))[1]["conversation_id"]
            del payload
            request = {"action": "context", "conversation_id": conv_id, "target": "chatgpt", "redact": True}
            host.timed_paged(request)
            time.sleep(IDLE_S)
            host.timed_paged(request)
            time.sleep(IDLE_S)
            after.append(rss_kib(host.proc.pid) / 1024)
        peak = host.finish()
    finally:
        host.kill()
    half = after[CONVERSATIONS // 2 :]
    figures = [
        Figure("host memory after 4 distinct 1 MB conversations (VmRSS, idle)", after[3], "MB"),
        Figure(
            f"host memory after {CONVERSATIONS} distinct 1 MB conversations (VmRSS, idle)",
            after[-1],
            "MB",
            TARGET_MB,
        ),
        Figure(
            f"its growth per conversation over the last {len(half)} (least squares)",
            slope(half),
            "MB",
            GROWTH_TARGET_MB,
        ),
        Figure(f"host peak memory over the {CONVERSATIONS} (its whole life)", peak, "MB", TARGET_MB),
    ]
    notes = ["VmRSS after each conversation, idle: " + ", ".join(f"{mb:.0f}" for mb in after) + " MB"]
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
