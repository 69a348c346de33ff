"""`mnemo context FILE --target chatgpt` as a user runs it: a fresh process per call.

Chats of about 10 KB, 100 KB and 1 MB (real fixture dialogues, portable JSON), each run in a new
process, paired round by round with the floors measured in the same run:
- `python -c pass` and `python -c "import pydantic"` (the 10 KB target: within 3x of the latter);
- loading the o200k tokenizer alone the stock way, `tiktoken.get_encoding("o200k_base")` from the
  bundled file (unpacked and verified once, before the runs) (the 100 KB target: within 1.1x of it).

Wall time and CPU time (user + system of the process) are both reported: on a loaded machine the wall
time mostly measures waiting for a core, CPU time the work done.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from benchlib import Figure, emit, fresh_home, median, p95, use_home

ROUNDS = int(os.environ.get("CLI_ROUNDS", "9"))
SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}
FLOORS = {
    "pass": "pass",
    "pydantic": "import pydantic",
    # tiktoken alone, from the verified file Mnemosyne unpacks (TIKTOKEN_CACHE_DIR points there): nothing of
    # Mnemosyne's in the floor, not even the unpacking check
    "tiktoken": "import tiktoken; tiktoken.get_encoding('o200k_base')",
}


def chat_file(folder: Path, label: str, size: int) -> Path:
    """A portable JSON chat of about `size` bytes of message text."""
    from context_quality import build
    from context_speed import conversation_of

    from mnemosyne.context.turns import render_message
    from mnemosyne.writers import portable

    conv = conversation_of(size) if size >= 1_000_000 else build("en", 10_000)[0]
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


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> int:
    home = fresh_home("cli")
    env = use_home(home)
    from mnemosyne import tokens

    env["TIKTOKEN_CACHE_DIR"] = str(tokens.ensure_files())
    mnemo = [sys.executable, "-m", "mnemosyne.cli.main"]
    files = {label: chat_file(home, label, size) for label, size in SIZES.items()}
    commands = {f"floor {k}": [sys.executable, "-c", code] for k, code in FLOORS.items()}
    commands |= {label: [*mnemo, "context", str(p), "--target", "chatgpt"] for label, p in files.items()}
    for argv in commands.values():  # warm the bytecode and tokenizer caches
        run(argv, env)
    wall: dict[str, list[float]] = {k: [] for k in commands}
    cpu: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(ROUNDS):  # paired: every command once per round
        for name, argv in commands.items():
            w, c = run(argv, env)
            wall[name].append(w * 1000)
            cpu[name].append(c * 1000)
    figures = []
    for label in SIZES:
        name, factor = ("tiktoken", 1.1) if label != "10 KB" else ("pydantic", 3.0)
        floor_label = FLOORS[name] if name != "tiktoken" else "stock o200k load"
        for kind, times in (("wall", wall), ("CPU", cpu)):
            floor, mine = times[f"floor {name}"], times[label]
            figures.append(
                Figure(
                    f"CLI context of a {label} chat, {kind} (median)",
                    median(mine),
                    "ms",
                    target=median(floor) * factor if label != "1 MB" else None,
                    floor=median(floor),
                    floor_label=floor_label,
                )
            )
            figures.append(
                Figure(
                    f"CLI context of a {label} chat, {kind} (p95)",
                    p95(mine),
                    "ms",
                    floor=p95(floor),
                    floor_label=floor_label,
                )
            )
    figures.append(Figure("python -c pass, wall (median)", median(wall["floor pass"]), "ms"))
    sizes = ", ".join(f"{k} {p.stat().st_size / 1000:.0f} KB of JSON" for k, p in files.items())
    notes = [f"{ROUNDS} paired rounds; files: {sizes}; target chatgpt (16k budget, o200k_base)"]
    emit(figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
