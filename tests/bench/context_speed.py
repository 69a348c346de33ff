"""How long does a context for a ~1 MB conversation take to build?

Builds a conversation of about 1 MB from real fixture dialogues (English and
Chinese), then times build_context for several targets and budgets, with and
without per-message token counts from the archive, next to one tiktoken
o200k_base pass over the same text.

Run: python tests/bench/context_speed.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_quality import build  # noqa: E402  (the same real-text conversations)

from mnemosyne import tokens  # noqa: E402
from mnemosyne.context import build_context, count_messages  # noqa: E402
from mnemosyne.context.turns import render_message  # noqa: E402
from mnemosyne.model import Conversation  # noqa: E402

TARGET_BYTES = 1_000_000


def megabyte_conversation() -> Conversation:
    en, _ = build("en", 10_000)
    zh, _ = build("zh", 10_000)
    messages = []
    for m in en.messages[:-1] * 2 + zh.messages:  # English then Chinese, ending on the Chinese last question
        messages.append(
            m.model_copy(
                update={
                    "id": f"x{len(messages):05d}",
                    "parent": f"x{len(messages) - 1:05d}" if messages else None,
                }
            )
        )
    conv = en.model_copy(update={"messages": messages, "active_leaf": messages[-1].id})
    size = sum(len(render_message(m).encode()) for m in conv.messages)
    while size > TARGET_BYTES and len(messages) > 10:  # trim the English head to about 1 MB
        size -= len(render_message(messages[0]).encode())
        messages = messages[1:]
        messages[0] = messages[0].model_copy(update={"parent": None})
    return conv.model_copy(update={"messages": messages})


def best_of(fn, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    conv = megabyte_conversation()
    text = "\n\n".join(render_message(m) for m in conv.messages)
    size = len(text.encode())
    enc = tokens.encoding("o200k_base")
    enc.encode_ordinary("warm up")
    one_pass = best_of(lambda: enc.encode_ordinary(text))
    print(
        f"conversation: {len(conv.messages)} messages, {size / 1e6:.2f} MB, {len(enc.encode_ordinary(text))} o200k tokens"
    )
    print(f"one tiktoken o200k pass: {one_pass * 1000:.0f} ms")
    counts = count_messages(conv, "o200k_base")
    rows = [
        ("chatgpt", 16_000, None),
        ("chatgpt", 16_000, counts),
        ("chatgpt", 2_000, counts),
        ("gpt-4o", 96_000, counts),
        ("claude", 32_000, counts),
        ("gpt-4.1", 500_000, counts),
    ]
    slowest = 0.0
    for target, budget, stored in rows:
        seconds = best_of(lambda: build_context(conv, target, budget=budget, token_counts=stored))
        slowest = max(slowest, seconds)
        label = "stored counts" if stored else "counted now"
        print(
            f"{target:8} budget {budget:>7} ({label:13}): {seconds * 1000:6.0f} ms = {seconds / one_pass:5.1f}x one pass"
        )
    print(f"slowest build: {slowest * 1000:.0f} ms ({slowest / one_pass:.1f}x one pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
