"""The 10,000-conversation / 500,000-message archive the search benchmark runs on.

Built through the archive API (reader -> Archive.save, one transaction per
conversation, exactly what the host does) with synchronous=OFF for speed, and
cached under tests/artifacts/ keyed by a version string: the schema's
migrations, corpus.py and FORMAT_VERSION. Run as a script to build it ahead.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

import corpus
from benchlib import ARTIFACTS, BENCH_DIR

CONVERSATIONS = 10_000
MESSAGES = 500_000
FORMAT_VERSION = "1"  # bump when _build() or message_counts() change (corpus.py is hashed in)


def message_counts(conversations: int, messages: int, seed: int = 11) -> list[int]:
    """Even counts from 2 to 98 (mean 50), nudged until they sum to `messages`."""
    rng = random.Random(seed)
    counts = [rng.randint(1, 49) * 2 for _ in range(conversations)]
    while (diff := messages - sum(counts)) != 0:
        i = rng.randrange(conversations)
        step = 2 if diff > 0 else -2
        if 2 <= counts[i] + step <= 150:
            counts[i] += step
    return counts


def version_key(conversations: int = CONVERSATIONS, messages: int = MESSAGES) -> str:
    from mnemosyne.archive.migrations import MIGRATIONS

    digest = hashlib.sha1()
    digest.update(",".join(m.__name__ for m in MIGRATIONS).encode())
    digest.update((BENCH_DIR / "corpus.py").read_bytes())
    return f"v{FORMAT_VERSION}-{conversations}x{messages}-{digest.hexdigest()[:10]}"


def archive_dir(conversations: int = CONVERSATIONS, messages: int = MESSAGES) -> Path:
    return ARTIFACTS / f"search-archive-{version_key(conversations, messages)}"


def _point_env(folder: Path) -> None:
    os.environ["MNEMOSYNE_HOME"] = str(folder)
    os.environ["MNEMOSYNE_KEY_FILE"] = str(folder / "archive.key")


def _build(folder: Path, conversations: int, messages: int, progress: bool) -> dict:
    from mnemosyne.archive import open_archive
    from mnemosyne.readers import RawInput, ReadContext, read_raw

    _point_env(folder)
    started = time.perf_counter()
    with open_archive(folder / "archive.db") as arc:
        arc.conn.execute("PRAGMA synchronous = OFF")  # a crash here only costs a rebuild
        for n, count in enumerate(message_counts(conversations, messages)):
            payload = corpus.chatgpt_conversation(n, messages=count)
            raw = RawInput(
                name="payload", data=payload, raw=json.dumps(payload, ensure_ascii=False).encode("utf-8")
            )
            read_ctx = ReadContext(source_url=f"https://chatgpt.com/c/{payload['id']}", method="site_api")
            conv = next(iter(read_raw(raw, read_ctx, "chatgpt")))
            arc.save(conv)
            if progress and n % 500 == 499:
                print(
                    f"  search archive: {n + 1:,}/{conversations:,} conversations, "
                    f"{time.perf_counter() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        arc.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        stats = arc.stats()
    stats.pop("path")
    stats.update(
        seconds=round(time.perf_counter() - started, 1), bytes=(folder / "archive.db").stat().st_size
    )
    return stats


def ensure(
    conversations: int = CONVERSATIONS, messages: int = MESSAGES, progress: bool = True, prune: bool = True
) -> tuple[Path, dict]:
    """The cached archive's folder (built when missing) and its build stats; points this process at it."""
    folder = archive_dir(conversations, messages)
    ready = folder / "READY.json"
    if not ready.exists():
        if prune:  # finished archives of earlier versions: gigabytes of stale data
            for old in ARTIFACTS.glob("search-archive-*"):
                if old != folder and not old.name.endswith(".building"):
                    shutil.rmtree(old, ignore_errors=True)
        building = folder.with_name(folder.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        stats = _build(building, conversations, messages, progress)
        (building / "READY.json").write_text(json.dumps(stats, indent=1), encoding="utf-8")
        building.rename(folder)
    _point_env(folder)
    return folder, json.loads(ready.read_text(encoding="utf-8"))


if __name__ == "__main__":
    path, info = ensure()
    print(path, info)
