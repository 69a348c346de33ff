"""A backup run's host side: 1,000 ChatGPT conversations saved through `save-batch` (50 per request) in a warm
host over its real frames, on a new archive, then the same 1,000 again (a re-run over an unchanged account
that did not skip: every item `unchanged`).

Figures: conversations/s per batch (median and p95 of the batches; each batch paired with its floor, measured
right after it in this process on the same 50 payloads: json.loads of the bytes plus one o200k_base pass over
the text), the whole run end to end (including the search index the host writes after its replies, flushed by
a final `search`), a one-at-a-time `save` run over 100 of them for comparison, and the host's peak memory
(VmHWM). Message counts follow a spread of real chat lengths (4 to 80 messages, most under 30).
"""

from __future__ import annotations

import json
import os
import random

import corpus
from benchlib import BenchHost, Figure, emit, median, p95, run_in_fresh_host, timed

CONVERSATIONS = 1000
BATCH = 50
SINGLE = 100  # saved one request each, for comparison
SEED_BASE = 700_000  # other benches use other seeds: no id collides
LENGTHS = (4, 6, 8, 12, 16, 20, 30, 50, 80)
WEIGHTS = (12, 14, 16, 16, 12, 10, 10, 6, 4)


def payloads(count: int, offset: int = 0) -> list[dict]:
    rng = random.Random(SEED_BASE + offset)
    return [
        corpus.chatgpt_conversation(SEED_BASE + offset + i, messages=rng.choices(LENGTHS, WEIGHTS)[0])
        for i in range(count)
    ]


def item(payload: dict, n: int) -> dict:
    return {
        "payload": payload,
        "kind": "chatgpt_api",
        "source_url": f"https://chatgpt.com/c/{payload['conversation_id']}",
        "list_updated": str(payload["update_time"]),
        "origin": "backup",
    }


def floor_seconds(batch: list[dict]) -> float:
    """json.loads of each payload's bytes plus one tiktoken pass over its text, for the whole batch."""
    from mnemosyne.tokens import encoding

    enc = encoding("o200k_base")
    total = 0.0
    for payload in batch:
        raw = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        out: list[str] = []
        corpus._strings(payload, out)
        text = "\n".join(out)
        total += timed(lambda: json.loads(raw)) + timed(lambda: enc.encode_ordinary(text))
    return total


def batched_run(host: BenchHost, convs: list[dict], expect: str) -> tuple[list[float], list[float], float]:
    """(host seconds per batch, floor seconds per batch, end-to-end seconds including the index flush)."""
    host_s, floor_s, total = [], [], 0.0
    for start in range(0, len(convs), BATCH):
        batch = convs[start : start + BATCH]
        elapsed, data = host.timed_call(
            {"action": "save-batch", "items": [item(p, start + i) for i, p in enumerate(batch)]}
        )
        statuses = {r.get("status") for r in data["results"]}
        if statuses != {expect}:
            raise RuntimeError(f"save-batch gave {statuses}, expected {expect}")
        host_s.append(elapsed)
        total += elapsed
        floor_s.append(floor_seconds(batch))
    flush, _ = host.timed_call({"action": "search", "query": "the"})  # writes what is left of the index
    return host_s, floor_s, total + flush


def single_run(host: BenchHost, convs: list[dict]) -> float:
    total = 0.0
    for n, payload in enumerate(convs):
        request = {"action": "save", **item(payload, n)}
        elapsed, data = host.timed_call(request)
        if data["status"] != "created":
            raise RuntimeError(f"save gave {data['status']}")
        total += elapsed
    flush, _ = host.timed_call({"action": "search", "query": "the"})
    return total + flush


def rate(count: int, seconds: list[float]) -> list[float]:
    return [count / s for s in seconds]


def run_with(host: BenchHost) -> tuple[list[Figure], list[str]]:
    host.timed_call({"action": "hello"})
    convs = payloads(CONVERSATIONS)
    singles = payloads(SINGLE, offset=50_000)
    batched_run(host, payloads(BATCH, offset=90_000), "created")  # warm: readers and archive loaded
    new_s, new_floor, new_total = batched_run(host, convs, "created")
    same_s, same_floor, same_total = batched_run(host, convs, "unchanged")
    single_total = single_run(host, singles)
    label = "json.loads + o200k pass"
    new_rates, new_floor_rates = rate(BATCH, new_s), rate(BATCH, new_floor)
    same_rates, same_floor_rates = rate(BATCH, same_s), rate(BATCH, same_floor)
    figures = [
        Figure(
            "save-batch of 50 new conversations (median)",
            median(new_rates),
            "conv/s",
            None,
            median(new_floor_rates),
            label,
        ),
        Figure(
            "save-batch of 50 new conversations (p95 batch)",
            min(rate(BATCH, [p95(new_s)])),
            "conv/s",
            None,
            min(rate(BATCH, [p95(new_floor)])),
            label,
        ),
        Figure(
            f"{CONVERSATIONS:,} new conversations end to end, index included",
            CONVERSATIONS / new_total,
            "conv/s",
            None,
            CONVERSATIONS / sum(new_floor),
            label,
        ),
        Figure(
            "save-batch of 50 unchanged conversations (median)",
            median(same_rates),
            "conv/s",
            None,
            median(same_floor_rates),
            label,
        ),
        Figure(
            f"{CONVERSATIONS:,} unchanged conversations end to end",
            CONVERSATIONS / same_total,
            "conv/s",
            None,
            CONVERSATIONS / sum(same_floor),
            label,
        ),
        Figure(f"one `save` per conversation, {SINGLE} new, end to end", SINGLE / single_total, "conv/s"),
    ]
    sizes = [corpus.json_size(p) for p in convs]
    messages = [len(p["mapping"]) - 1 for p in convs]
    notes = [
        f"{CONVERSATIONS} ChatGPT conversations, {min(messages)}-{max(messages)} messages (median "
        f"{median(messages):.0f}), {sum(sizes) / 1e6:.1f} MB of JSON in all, 20% Chinese; {BATCH} per save-batch",
        f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
    ]
    return figures, notes


def run() -> tuple[list[Figure], list[str]]:
    return run_in_fresh_host("sync-save", run_with, "sync save")


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
