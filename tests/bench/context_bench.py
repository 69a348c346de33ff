"""`context` in a warm host for the same two conversations as save_bench.

The conversations are saved first, then one plain context per conversation stores its
token counts (the token policy: counted on first use), as after a user's first context.
Every page is fetched.
Floor: one o200k_base pass over the text the context chose.
"""

from __future__ import annotations

from benchlib import BenchHost, Figure, emit, median, p95, run_in_fresh_host, timed
from save_bench import fifty, large, save_request

TARGET_LARGE_S = 0.5
SMALL_CONVS = 10
LARGE_CONVS = 3
REPEATS = 3
# (label, target, extra parameters, has a target figure for the large conversation)
CASES = [
    ("chatgpt (16k budget)", "chatgpt", {}, True),
    ("claude (32k, estimate)", "claude", {}, False),
    ("gpt-5 (240k budget)", "gpt-5", {}, False),
    ("claude, redact=true", "claude", {"redact": True}, False),
]


def save_all(host: BenchHost, payloads: list[dict]) -> list[str]:
    ids = []
    for payload in payloads:
        _, data = host.timed_call(save_request(payload))
        ids.append(data["conversation_id"])
    return ids


def measure(host: BenchHost, ids: list[str], target: str, extra: dict) -> tuple[list[float], list[float]]:
    """(seconds per context, floor seconds per context)."""
    from mnemosyne.tokens import encoding

    enc = encoding("o200k_base")
    seconds, floors = [], []
    for _ in range(REPEATS):
        for conv_id in ids:
            elapsed, text = host.timed_paged(
                {"action": "context", "conversation_id": conv_id, "target": target, **extra}
            )
            seconds.append(elapsed)
            floors.append(timed(lambda: enc.encode_ordinary(text)))
    return seconds, floors


def run_with(host: BenchHost) -> tuple[list[Figure], list[str]]:
    host.timed_call({"action": "hello"})
    small_ids = save_all(host, fifty(SMALL_CONVS, offset=200_000))
    large_ids = save_all(host, large(LARGE_CONVS, offset=200_000))
    for conv_id in small_ids + large_ids:  # warm-up; stores each conversation's token counts
        host.timed_paged({"action": "context", "conversation_id": conv_id, "target": "chatgpt"})
    figures: list[Figure] = []
    label = "o200k pass over the output"
    for name, target, extra, has_target in CASES:
        small_s, small_floor = measure(host, small_ids, target, extra)
        large_s, large_floor = measure(host, large_ids, target, extra)
        figures.append(
            Figure(
                f"context 50-message conversation, {name} (median)",
                median(small_s) * 1000,
                "ms",
                None,
                median(small_floor) * 1000,
                label,
            )
        )
        figures.append(
            Figure(
                f"context 1.2 MB conversation, {name} (median)",
                median(large_s),
                "s",
                TARGET_LARGE_S if has_target else None,
                median(large_floor),
                label,
                extra={"p95_s": p95(large_s)},
            )
        )
    notes = [f"{SMALL_CONVS} + {LARGE_CONVS} conversations, each context asked {REPEATS} times"]
    return figures, notes


def run() -> tuple[list[Figure], list[str]]:
    return run_in_fresh_host("context", run_with, "context")


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
