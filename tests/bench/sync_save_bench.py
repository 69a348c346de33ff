"""A backup run's host side: 1,000 ChatGPT conversations saved as a backup saves them, one `save` each (with the
list's marker and `origin: "backup"`), in a warm host over its real frames, on a new archive; then the same
1,000 again (a re-run over an unchanged account that did not skip: every save `unchanged`).

Figures: conversations/s of one save (median and p95 of the saves; each save paired with its floor, measured
right after it in this process on the same payload: json.loads of the bytes plus one o200k_base pass over the
text), the whole run end to end (including the search index the host writes after its replies, flushed by a
final `search`), and the host's peak memory (VmHWM). Message counts follow a spread of real chat lengths
(4 to 80 messages, most under 30). A backup fetches one conversation at least every 1.5 s (ChatGPT's spacing,
extension/background/rate_policy.js): a save is measured against that gap.
"""

from __future__ import annotations

import json
import os
import random

import corpus
from benchlib import BenchHost, Figure, emit, median, p95, run_in_fresh_host, timed

CONVERSATIONS = 1000
WARM = 50
SEED_BASE = 700_000  # other benches use other seeds: no id collides
LENGTHS = (4, 6, 8, 12, 16, 20, 30, 50, 80)
WEIGHTS = (12, 14, 16, 16, 12, 10, 10, 6, 4)
SITE_SPACING_S = 1.5  # the least time between two conversation fetches of a ChatGPT backup


def payloads(count: int, offset: int = 0) -> list[dict]:
    rng = random.Random(SEED_BASE + offset)
    return [
        corpus.chatgpt_conversation(SEED_BASE + offset + i, messages=rng.choices(LENGTHS, WEIGHTS)[0])
        for i in range(count)
    ]


def request(payload: dict) -> dict:
    return {
        "action": "save",
        "payload": payload,
        "kind": "chatgpt_api",
        "source_url": f"https://chatgpt.com/c/{payload['conversation_id']}",
        "list_updated": str(payload["update_time"]),
        "origin": "backup",
    }


def floor_seconds(payload: dict) -> float:
    """json.loads of the payload's bytes plus one tiktoken pass over its text."""
    from mnemosyne.tokens import encoding

    enc = encoding("o200k_base")
    raw = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    out: list[str] = []
    corpus._strings(payload, out)
    text = "\n".join(out)
    return timed(lambda: json.loads(raw)) + timed(lambda: enc.encode_ordinary(text))


def backup_run(host: BenchHost, convs: list[dict], expect: str) -> tuple[list[float], list[float], float]:
    """(host seconds per save, floor seconds per save, end-to-end seconds including the index flush)."""
    host_s, floor_s = [], []
    for payload in convs:
        elapsed, data = host.timed_call(request(payload))
        if data["status"] != expect:
            raise RuntimeError(f"save gave {data['status']}, expected {expect}")
        host_s.append(elapsed)
        floor_s.append(floor_seconds(payload))
    flush, _ = host.timed_call({"action": "search", "query": "the"})  # writes what is left of the index
    return host_s, floor_s, sum(host_s) + flush


def rates(seconds: list[float]) -> list[float]:
    return [1 / s for s in seconds]


def run_with(host: BenchHost) -> tuple[list[Figure], list[str]]:
    host.timed_call({"action": "hello"})
    convs = payloads(CONVERSATIONS)
    backup_run(host, payloads(WARM, offset=90_000), "created")  # warm: readers and archive loaded
    new_s, new_floor, new_total = backup_run(host, convs, "created")
    same_s, same_floor, same_total = backup_run(host, convs, "unchanged")
    label = "json.loads + o200k pass"
    figures = [
        Figure(
            "`save` of a new conversation (median)",
            median(rates(new_s)),
            "conv/s",
            None,
            median(rates(new_floor)),
            label,
        ),
        Figure(
            "`save` of a new conversation (p95)", 1 / p95(new_s), "conv/s", None, 1 / p95(new_floor), label
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
            "`save` of an unchanged conversation (median)",
            median(rates(same_s)),
            "conv/s",
            None,
            median(rates(same_floor)),
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
        Figure(
            f"host time a conversation against the site's {SITE_SPACING_S} s spacing (new, end to end)",
            100 * new_total / CONVERSATIONS / SITE_SPACING_S,
            "%",
        ),
    ]
    sizes = [corpus.json_size(p) for p in convs]
    messages = [len(p["mapping"]) - 1 for p in convs]
    notes = [
        f"{CONVERSATIONS} ChatGPT conversations, {min(messages)}-{max(messages)} messages (median "
        f"{median(messages):.0f}), {sum(sizes) / 1e6:.1f} MB of JSON in all, 20% Chinese; one save each",
        f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
    ]
    return figures, notes


def run() -> tuple[list[Figure], list[str]]:
    return run_in_fresh_host("sync-save", run_with, "sync save")


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
