"""Run every benchmark and print one table; also write it to tests/bench/RESULTS.md.

    python tests/bench/run_all.py            # all of them (first run also builds the search archive)
    python tests/bench/run_all.py save_bench search_bench   # some of them
    python tests/bench/run_all.py --run quiet   # which section of RESULTS.md it writes: quiet or loaded

RESULTS.md keeps one quiet run (nothing else running) and one loaded run (the machine busy with other
work); each run replaces its own section and leaves the other.

Each benchmark runs in its own process, so one's imports and memory do not
colour another's figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from benchlib import BENCH_DIR, Figure, machine, markdown_table, text_table

SCRIPTS = [
    "host_startup",
    "cli_startup",
    "save_bench",
    "sync_save_bench",
    "context_bench",
    "continue_bench",
    "import_bench",
    "convert_bench",
    "search_bench",
    "host_memory",
    "long_chat_memory",
    "long_session_memory",
    "frame_memory",
    "paging_bench",
    "library_bench",
    "preview_bench",
]
TIMEOUT_S = 1800
RESULTS = BENCH_DIR / "RESULTS.md"
RUNS = ("quiet", "loaded")


def run_script(name: str) -> tuple[list[Figure], list[str], float]:
    """Run one benchmark; a failure becomes a row that says so instead of stopping the others."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(BENCH_DIR / f"{name}.py"), "--json", str(out)],
            cwd=BENCH_DIR,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
        elapsed = time.perf_counter() - started
        sys.stderr.write(proc.stderr[-3000:] if proc.returncode else "")
        if proc.returncode or not out.exists():
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return [Figure(f"{name} FAILED: {last[:150]}", 0.0, "")], [], elapsed
        data = json.loads(out.read_text(encoding="utf-8"))
    figures = []
    for raw in data["figures"]:
        fields = {
            k: raw[k]
            for k in (
                "name",
                "value",
                "unit",
                "target",
                "floor",
                "floor_label",
                "note",
                "extra",
                "peer",
                "peer_label",
            )
        }
        figures.append(Figure(**fields))
    return figures, data["notes"], elapsed


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def write_markdown(
    run: str,
    figures: list[Figure],
    notes: dict[str, list[str]],
    info: dict[str, str],
    started: datetime,
    seconds: float,
    load_before: str,
    load_after: str,
) -> None:
    section = [
        f"<!-- run:{run} -->",
        f"## {run.capitalize()} run",
        "",
        f"- date: {started.strftime('%Y-%m-%d %H:%M UTC')}, run took {seconds / 60:.1f} min",
        f"- machine: {info['cpu']}, {info['cores']} cores, {info['ram']} RAM, {info['os']}",
        f"- Python {info['python']}",
        f"- load average (1/5/15 min) before: {load_before}; after: {load_after} "
        "(other work on the machine slows the timings)",
        "",
        markdown_table(figures),
        "",
        "### Notes",
        "",
    ]
    for name, items in notes.items():
        section += [f"- **{name}**: {item}" for item in items]
    section.append(f"<!-- /run:{run} -->")
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    kept = {}
    for other in RUNS:
        start, end = f"<!-- run:{other} -->", f"<!-- /run:{other} -->"
        if other != run and start in old and end in old:
            kept[other] = old[old.index(start) : old.index(end) + len(end)]
    kept[run] = "\n".join(section)
    head = [
        "# Benchmark results",
        "",
        "Written by `python tests/bench/run_all.py --run quiet|loaded`; every ratio is to a floor measured in "
        "the same run, and a peer column shows another tool on the same input in the same run.",
        "",
    ]
    body = "\n\n".join(kept[r] for r in RUNS if r in kept)
    RESULTS.write_text("\n".join(head) + body + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    chosen = [a for a in argv if a in SCRIPTS] or SCRIPTS
    run = argv[argv.index("--run") + 1] if "--run" in argv else "loaded"
    if run not in RUNS:
        raise SystemExit(f"--run takes {' or '.join(RUNS)}")
    started, t0 = datetime.now(timezone.utc), time.perf_counter()
    load_before = load_average()
    figures: list[Figure] = []
    notes: dict[str, list[str]] = {}
    for name in chosen:
        print(f"running {name} ...", flush=True)
        figs, script_notes, elapsed = run_script(name)
        print(f"  {name}: {elapsed:.0f} s", flush=True)
        figures += figs
        notes[name] = script_notes
    seconds = time.perf_counter() - t0
    info = machine()
    print()
    print(
        f"{started:%Y-%m-%d %H:%M} UTC, {info['cpu']}, {info['cores']} cores, {info['ram']}, Python {info['python']}"
    )
    print(text_table(figures))
    for name, items in notes.items():
        for item in items:
            print(f"  {name}: {item}")
    write_markdown(run, figures, notes, info, started, seconds, load_before, load_average())
    print(f"\nwritten to {RESULTS} ({seconds / 60:.1f} min)")
    return 1 if any(f.name.endswith("FAILED") or "FAILED:" in f.name for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
