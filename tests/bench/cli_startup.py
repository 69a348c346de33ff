"""`mnemo context FILE --target chatgpt` as a user runs it: a fresh process per call.

Chats of about 10 KB, 100 KB and 1 MB (real fixture dialogues, portable JSON), each run in a new
process, paired round by round with the floors measured in the same run:
- `python -c pass` and `python -c "import pydantic"` (the 10 KB target: within 3x of the latter);
- loading the o200k tokenizer alone the stock way, `tiktoken.get_encoding("o200k_base")` from the
  bundled file (the 100 KB target: within 1.1x of it).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from benchlib import Figure, emit, fresh_home, median, p95, use_home

ROUNDS = 9
SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}
FLOORS = {
    "pass": "pass",
    "pydantic": "import pydantic",
    "tiktoken": "from mnemosyne import tokens; tokens.ensure_files(); import tiktoken; "
    "tiktoken.get_encoding('o200k_base')",
}


def chat_file(folder: Path, label: str, size: int) -> Path:
    """A portable JSON chat of about `size` bytes of message text."""
    from context_quality import build
    from context_speed import megabyte_conversation

    from mnemosyne.context.turns import render_message
    from mnemosyne.writers import portable

    conv = megabyte_conversation() if size >= 1_000_000 else build("en", 10_000)[0]
    messages = list(conv.messages)
    total = sum(len(render_message(m).encode()) for m in messages)
    while total > size and len(messages) > 4:  # drop the oldest filler, keep the last question
        total -= len(render_message(messages[0]).encode())
        messages = messages[1:]
    messages[0] = messages[0].model_copy(update={"parent": None})
    conv = conv.model_copy(update={"messages": messages, "active_leaf": messages[-1].id})
    path = folder / f"chat-{label.replace(' ', '')}.json"
    path.write_text(portable.write(conv), encoding="utf-8")
    return path


def run(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    home = fresh_home("cli")
    env = use_home(home)
    mnemo = [sys.executable, "-m", "mnemosyne.cli.main"]
    files = {label: chat_file(home, label, size) for label, size in SIZES.items()}
    commands = {f"floor {k}": [sys.executable, "-c", code] for k, code in FLOORS.items()}
    commands |= {label: [*mnemo, "context", str(p), "--target", "chatgpt"] for label, p in files.items()}
    for argv in commands.values():  # warm the bytecode and tokenizer caches
        run(argv, env)
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(ROUNDS):  # paired: every command once per round
        for name, argv in commands.items():
            times[name].append(run(argv, env) * 1000)
    floor = {k: median(times[f"floor {k}"]) for k in FLOORS}
    figures = []
    for label in SIZES:
        bound = ("tiktoken", 1.1) if label != "10 KB" else ("pydantic", 3.0)
        name, factor = bound
        figures.append(
            Figure(
                f"CLI context of a {label} chat, fresh process (median)",
                median(times[label]),
                "ms",
                target=floor[name] * factor if label != "1 MB" else None,
                floor=floor[name],
                floor_label=FLOORS[name] if name != "tiktoken" else "stock o200k load",
            )
        )
        figures.append(
            Figure(
                f"CLI context of a {label} chat, fresh process (p95)",
                p95(times[label]),
                "ms",
                floor=p95(times[f"floor {name}"]),
                floor_label=FLOORS[name] if name != "tiktoken" else "stock o200k load",
            )
        )
    figures.append(Figure("python -c pass (median)", floor["pass"], "ms"))
    sizes = ", ".join(f"{k} {p.stat().st_size / 1000:.0f} KB of JSON" for k, p in files.items())
    notes = [f"{ROUNDS} paired rounds; files: {sizes}; target chatgpt (16k budget, o200k_base)"]
    emit(figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
