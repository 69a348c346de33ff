"""`save` in a warm host: a 50-message ChatGPT conversation and a fixture-like one over 1 MB.

Round trip at the client (frame written -> reply read). A save stores no token counts (see
service/token_counts.py) and the host writes the search index after its reply (archive/indexing.py), so two
figures: saves on an idle host (two `hello`s before each, so the previous save's index is written: what a
user's save meets) and saves back to back (the next request waits for one conversation's indexing).
Floor: parsing the same JSON plus one o200k_base pass over its text.
"""

from __future__ import annotations

import json
import os

import corpus
from benchlib import BenchHost, Figure, emit, median, p95, run_in_fresh_host, timed

TARGET_50_MS = 15.0
DISTINCT_50 = 60
RESAVES_50 = 30
DISTINCT_LARGE = 5
SEED_BASE = 500_000  # other benches use other seeds: no id collides


def payload_text(payload: dict) -> str:
    out: list[str] = []
    corpus._strings(payload, out)
    return "\n".join(out)


def save_request(payload: dict) -> dict:
    conv_id = payload["conversation_id"]
    return {
        "action": "save",
        "kind": "chatgpt_api",
        "source_url": f"https://chatgpt.com/c/{conv_id}",
        "payload": payload,
    }


def floor_seconds(payloads: list[dict]) -> list[float]:
    """json.loads of each payload's bytes plus one tiktoken pass over its text."""
    from mnemosyne.tokens import encoding

    enc = encoding("o200k_base")
    out = []
    for payload in payloads:
        raw = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        text = payload_text(payload)
        out.append(timed(lambda: json.loads(raw)) + timed(lambda: enc.encode_ordinary(text)))
    return out


def fsync_seconds(folder: str, size: int, rounds: int = 20) -> list[float]:
    """One write of `size` bytes and its fsync on the archive's disk: the part of a durable save
    (synchronous=FULL, archive/db.py) that no code change removes."""
    import os
    import tempfile

    fd, name = tempfile.mkstemp(dir=folder)
    try:
        block = os.urandom(size)
        return [timed(lambda: (os.write(fd, block), os.fsync(fd))) for _ in range(rounds)]
    finally:
        os.close(fd)
        os.unlink(name)


def timed_saves(host: BenchHost, payloads: list[dict], expect: str) -> list[float]:
    seconds = []
    for payload in payloads:
        elapsed, data = host.timed_call(save_request(payload))
        if data["status"] != expect:
            raise RuntimeError(f"save returned {data['status']}, expected {expect}")
        seconds.append(elapsed)
    return seconds


def fifty(count: int, offset: int = 0) -> list[dict]:
    return [corpus.chatgpt_conversation(SEED_BASE + offset + i, messages=50) for i in range(count)]


def large(count: int, offset: int = 0) -> list[dict]:
    return [corpus.large_fixture_conversation(seed=SEED_BASE + offset + i) for i in range(count)]


def warm_up(host: BenchHost) -> None:
    """hello and a few saves, so the readers and the archive are loaded."""
    host.timed_call({"action": "hello"})
    timed_saves(host, fifty(3, offset=90_000), "created")


def idle_saves(host: BenchHost, payloads: list[dict]) -> list[float]:
    seconds = []
    for payload in payloads:
        # The host answers the first hello at once (deferred work yields to a waiting request) and writes
        # the previous save's index after that reply; the second hello is answered once that is written.
        host.timed_call({"action": "hello"})
        host.timed_call({"action": "hello"})
        seconds += timed_saves(host, [payload], "created")
    return seconds


def run_with(host: BenchHost) -> tuple[list[Figure], list[str]]:
    warm_up(host)
    small = fifty(DISTINCT_50)
    idle = fifty(DISTINCT_50, offset=20_000)
    big = large(DISTINCT_LARGE)
    idle_s = idle_saves(host, idle)
    small_s = timed_saves(host, small, "created")
    catch_up_s, _ = host.timed_call({"action": "search", "query": "the"})  # indexes what is left first
    resave_s = timed_saves(host, small[:RESAVES_50], "unchanged")
    big_s = timed_saves(host, big, "created")
    big_resave_s = timed_saves(host, big, "unchanged")
    sync_s = fsync_seconds(os.environ["MNEMOSYNE_HOME"], corpus.json_size(small[0]))
    small_floor = median(floor_seconds(small))
    big_floor = median(floor_seconds(big))
    big_mb = corpus.json_size(big[0]) / 1e6
    floor_label = "json.loads + o200k pass"
    figures = [
        Figure(
            "save 50-message conversation, new, idle host (median)",
            median(idle_s) * 1000,
            "ms",
            TARGET_50_MS,
            small_floor * 1000,
            floor_label,
        ),
        Figure(
            "save 50-message conversation, new, idle host (p95)",
            p95(idle_s) * 1000,
            "ms",
            None,
            small_floor * 1000,
            floor_label,
        ),
        Figure(
            "save 50-message conversation, new, back to back (median)",
            median(small_s) * 1000,
            "ms",
            None,
            small_floor * 1000,
            floor_label,
        ),
        Figure(
            "fsync of a 50-message payload's size on the archive's disk (median)",
            median(sync_s) * 1000,
            "ms",
        ),
        Figure("search right after the back-to-back saves (indexes what is left)", catch_up_s * 1000, "ms"),
        Figure(
            "save 50-message conversation, new, back to back (p95)",
            p95(small_s) * 1000,
            "ms",
            None,
            small_floor * 1000,
            floor_label,
        ),
        Figure(
            "re-save 50-message conversation, unchanged (median)",
            median(resave_s) * 1000,
            "ms",
            None,
            small_floor * 1000,
            floor_label,
        ),
        Figure(
            f"save {big_mb:.1f} MB conversation, new (median)",
            median(big_s) * 1000,
            "ms",
            None,
            big_floor * 1000,
            floor_label,
        ),
        Figure(
            f"re-save {big_mb:.1f} MB conversation, unchanged (median)",
            median(big_resave_s) * 1000,
            "ms",
            None,
            big_floor * 1000,
            floor_label,
        ),
    ]
    sizes = [corpus.json_size(p) for p in small]
    notes = [
        f"50-message payloads {min(sizes) / 1024:.0f}-{max(sizes) / 1024:.0f} KiB of JSON, {DISTINCT_50} distinct "
        f"conversations (20% Chinese), {RESAVES_50} re-saves; large: {DISTINCT_LARGE} copies of the largest "
        f"fixture conversation's path repeated to {big_mb:.2f} MB, {len(big[0]['mapping']) - 1} messages",
    ]
    return figures, notes


def run() -> tuple[list[Figure], list[str]]:
    return run_in_fresh_host("save", run_with, "save")


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
