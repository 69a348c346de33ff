"""Peak memory of a host serving Continue in on one 5 MB conversation.

The extension keeps one host for the browser session (a long-lived port), so the host here is warm: it has
saved a short chat and built its context (the engine and the o200k tokenizer loaded, the split worker
started). Then, as Continue in on a long chat does: the save of a conversation of about 5 MB of distinct
message text (10,000 messages of English, or 11,300 of Chinese; bench corpus), and at once its redacted
contexts for ChatGPT 16k, Claude 32k and GPT-4o 96k, each request sent as the previous reply arrives. A
fresh host per language. Printed: the host's peak over its whole life (ru_maxrss once it has left: the
units and corpora it stores after its last reply, as it would while idle, included), its VmHWM after each
reply, its split worker's, and the host with its worker at one moment (the sum of their PSS, sampled every 20 ms: a forked helper shares the host's
pages, which a sum of RSS would count twice). With --cold, the host has built no context before the long
save (its first context loads the tokenizer). host_memory.py measures conversations of up to 1.2 MB.

Run: python tests/bench/long_chat_memory.py [--languages en,zh] [--cold]
"""

from __future__ import annotations

import argparse

import corpus
from benchlib import BenchHost, Figure, TogetherPeak, emit, fresh_home, pss_kib, use_home
from save_bench import save_request

TARGET_MB = 200.0
MESSAGES = {"en": 10_000, "zh": 11_300}  # about 5 MB of message text each
SEED = 20_261_203
CASES = [("chatgpt", 16_000), ("claude", 32_000), ("gpt-4o", 96_000)]


def run_language(language: str, warm: bool = True) -> tuple[list[Figure], str]:
    payload = corpus.chatgpt_conversation(SEED, messages=MESSAGES[language], chinese=language == "zh")
    host = BenchHost(use_home(fresh_home(f"long-chat-memory-{language}")))
    together = TogetherPeak(host.proc.pid, pss_kib, 0.02)  # (PSS: smaps_rollup costs more to read)
    marks = []
    try:
        host.timed_call({"action": "hello"})
        if warm:
            short = host.timed_call(save_request(corpus.chatgpt_conversation(5, messages=21)))[1]
            request = {"action": "context", "conversation_id": short["conversation_id"], "target": "chatgpt"}
            host.timed_paged({**request, "redact": True})
        marks.append(("warm" if warm else "started", host.peak_mib() or 0.0))
        together.start()
        seconds, saved = host.timed_call(save_request(payload))
        marks.append((f"5 MB save ({seconds:.2f} s)", host.peak_mib() or 0.0))
        for target, budget in CASES:
            request = {
                "action": "context",
                "conversation_id": saved["conversation_id"],
                "target": target,
                "budget": budget,
                "redact": True,
            }
            seconds, _ = host.timed_paged(request)
            marks.append((f"{target} {budget // 1000}k ({seconds:.2f} s)", host.peak_mib() or 0.0))
        worker = host.worker_peak_mib()
        lifetime = host.finish()  # (the units and corpora it stores after its last reply included)
    finally:
        together.done.set()
        host.kill()
    label = ("English" if language == "en" else "Chinese") + (
        "" if warm else ", a host that built no context before"
    )
    figures = [
        Figure(
            f"{label}: host peak memory (its whole life, what it stores after replying included)",
            lifetime,
            "MB",
            TARGET_MB,
        ),
        Figure(f"{label}: its split worker's peak memory (VmHWM)", worker, "MB"),
        Figure(
            f"{label}: the host and its worker at one moment, at most (PSS, sampled every 20 ms)",
            together.peak_kib / 1024,
            "MB",
            TARGET_MB,
        ),
    ]
    note = f"{label}, VmHWM after each phase: " + ", ".join(f"{name} {mb:.1f} MB" for name, mb in marks)
    return figures, note


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--languages", default="en,zh")
    parser.add_argument("--cold", action="store_true", help="no short save and context before the long save")
    args, _ = parser.parse_known_args()
    figures, notes = [], []
    for language in args.languages.split(","):
        got, note = run_language(language, warm=not args.cold)
        figures += got
        notes.append(note)
    emit(figures, notes)


if __name__ == "__main__":
    main()
