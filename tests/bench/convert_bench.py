"""Convert an official ChatGPT export to Markdown: mnemo and its peers, on the same files in the same run.

Exports (corpus.py): "mixed", one conversations.json of 300 conversations, 74 MB, mostly 50-message chats
with a tail of 1.1 MB ones; "split", an unzipped export of small conversations (import_bench's fixture
variants) in conversations-000.json, -001 ... of 24 MB each, 234 MB in all. Each tool runs in a fresh
process, round by round in turn (a paired run: the same minute of the machine for every tool); figures are
the CPU time (user + system) and peak memory (ru_maxrss) of the process, median and p95 of ROUNDS rounds.
Floor: `json.load` of the file(s) in a fresh Python. Peers (a column of their own): obsivault and convoviz
from PyPI, each in its own venv outside the repo, under PEER_VENVS (`--install-peers` makes them).
obsivault reads only a file named conversations.json: on the split export it runs once per file (each
linked as conversations.json in a folder of its own), its CPU summed and its peak the largest. convoviz
runs on the mixed export only (on the split one it takes minutes and gigabytes).

Measured quiet (as the machine is) and loaded (LOAD_PROCS busy processes started by this script, one per
other core), each phase alone with `--quiet` or `--loaded`; `--rounds N`, `--exports mixed,split`,
`--peers obsivault,convoviz`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import corpus
from benchlib import Figure, Load, emit, fresh_home, median, option, p95, phases, use_home

ROUNDS = 5
LOAD_PROCS = max(1, (os.cpu_count() or 2) - 1)  # a busy process on every other core
PEAK_TARGET_MB = 100.0
PEER_VENVS = Path(os.environ.get("MNEMO_PEER_VENVS", "/tmp/mnemo-bench-peers"))
PEERS = {  # name -> (python for its venv, pip requirement)
    "obsivault": ("python3.11", "obsivault"),  # (a bare "python3" matched the oldest pyenv build)
    "convoviz": ("python3.12", "convoviz"),  # its current releases need Python 3.12
}
EXPORTS = ("mixed", "split")


def find_python(name: str) -> str:
    """A pyenv build of that version (pyenv's shim on PATH may point at another), else `name` on PATH."""
    builds = sorted(Path.home().glob(f".pyenv/versions/{name[6:]}*/bin/{name}"))
    found = str(builds[-1]) if builds else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: needed for a peer's venv")
    return found


def install_peers() -> None:
    for name, (python, requirement) in PEERS.items():
        venv = PEER_VENVS / name
        if (venv / "bin" / name).exists():
            continue
        subprocess.run([find_python(python), "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", requirement], check=True)


def write_exports(home: Path, which: list[str]) -> None:
    """Each export in `which` under `home`, and home/exports.json: kind -> (what the tools are given, its
    conversation files, a description)."""
    made = {}
    if "mixed" in which:
        path = home / "mixed" / "conversations.json"
        path.parent.mkdir()
        count, largest = corpus.write_export_array(path, corpus.mixed_conversations())
        described = (
            f"{path.stat().st_size / 1e6:.0f} MB, {count} conversations, largest {largest / 1e6:.1f} MB"
        )
        made["mixed"] = (path, [path], described)
    if "split" in which:
        folder = home / "split"
        count, largest = corpus.write_split_export(folder, corpus.template_conversations())
        files = sorted(folder.glob("conversations-*.json"))
        size = sum(f.stat().st_size for f in files)
        described = f"{size / 1e6:.0f} MB in {len(files)} files, {count:,} conversations, largest {largest / 1e3:.0f} KB"
        made["split"] = (folder, files, described)
    about = {kind: [str(given), [str(f) for f in files], text] for kind, (given, files, text) in made.items()}
    (home / "exports.json").write_text(json.dumps(about), encoding="utf-8")


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MB of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{argv[0]} failed: {err[-500:]}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_all(commands: list[list[str]], env: dict[str, str]) -> tuple[float, float, float]:
    """Several processes one after the other: wall and CPU summed, the largest peak."""
    results = [run(argv, env) for argv in commands]
    return sum(r[0] for r in results), sum(r[1] for r in results), max(r[2] for r in results)


def tool_commands(
    kind: str, given: Path, files: list[Path], out: Path, links: Path
) -> dict[str, list[list[str]]]:
    floor = "import json, sys\nfor name in sys.argv[1:]:\n    json.load(open(name, 'rb'))"
    commands = {
        "floor": [[sys.executable, "-c", floor, *map(str, files)]],
        "mnemo": [
            [
                sys.executable,
                "-m",
                "mnemosyne.cli.main",
                "convert",
                str(given),
                "--to",
                "markdown",
                "-o",
                str(out),
            ]
        ],
    }
    chosen = option("--peers", ",".join(PEERS), str).split(",")
    obsivault = PEER_VENVS / "obsivault" / "bin" / "obsivault"
    if obsivault.exists() and "obsivault" in chosen:
        sources = [given] if kind == "mixed" else [_linked(f, links) for f in files]
        commands["obsivault"] = [
            [str(obsivault), "convert", str(src), str(out), "--provider", "chatgpt", "--force"]
            for src in sources
        ]
    convoviz = PEER_VENVS / "convoviz" / "bin" / "convoviz"
    if convoviz.exists() and kind == "mixed" and "convoviz" in chosen:
        commands["convoviz"] = [
            [str(convoviz), "--input", str(given), "--output", str(out), "--outputs", "markdown", "-I"]
        ]
    return commands


def _linked(file: Path, links: Path) -> Path:
    """`file` as conversations.json in a folder of its own (the only name obsivault reads)."""
    folder = links / file.stem
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "conversations.json"
    if not link.exists():
        link.symlink_to(file)
    return link


def measure(
    kind: str, export: tuple[Path, list[Path], str], rounds: int, label: str, env: dict[str, str], home: Path
) -> tuple[list[Figure], str]:
    given, files, described = export
    outs = Path(tempfile.mkdtemp(prefix="mnemo-convert-", dir=home))
    commands = tool_commands(kind, given, files, outs / "out", home / "links")
    results: dict[str, list[tuple[float, float, float]]] = {k: [] for k in commands}
    load_before = os.getloadavg()[0]
    for n in range(rounds):
        names = list(commands)
        names = names[n % len(names) :] + names[: n % len(names)]  # each tool first in turn
        for name in names:
            shutil.rmtree(outs, ignore_errors=True)
            outs.mkdir()
            results[name].append(run_all(commands[name], env))
    shutil.rmtree(outs, ignore_errors=True)
    cpu = {k: [r[1] for r in v] for k, v in results.items()}
    peak = {k: max(r[2] for r in v) for k, v in results.items()}
    peers = [k for k in PEERS if k in commands]
    fastest = min(peers, key=lambda k: median(cpu[k])) if peers else None
    leanest = min(peers, key=lambda k: peak[k]) if peers else None
    name = f"convert the {kind} export ({described.split(',')[0]}) to Markdown, {label}"
    floor_label = "json.load of the file" + ("s" if len(files) > 1 else "")
    figures = [
        Figure(
            f"{name}: CPU median",
            median(cpu["mnemo"]),
            "s",
            target=median(cpu[fastest]) if fastest else None,
            floor=median(cpu["floor"]),
            floor_label=floor_label,
            note=f"target: the fastest peer ({fastest})" if fastest else "",
            peer=median(cpu[fastest]) if fastest else None,
            peer_label=fastest or "",
            extra={"cpu": cpu},
        ),
        Figure(
            f"{name}: CPU p95",
            p95(cpu["mnemo"]),
            "s",
            floor=p95(cpu["floor"]),
            floor_label=floor_label,
            peer=p95(cpu[fastest]) if fastest else None,
            peer_label=fastest or "",
        ),
        Figure(
            f"{name}: peak memory",
            peak["mnemo"],
            "MB",
            target=PEAK_TARGET_MB,
            floor=peak["floor"],
            floor_label=floor_label,
            peer=peak[leanest] if leanest else None,
            peer_label=leanest or "",
        ),
    ]
    each = "; ".join(
        f"{k} CPU {', '.join(f'{c:.2f}' for c in cpu[k])} s (wall median {median([r[0] for r in results[k]]):.2f} s),"
        f" peak {peak[k]:.0f} MB"
        for k in commands
    )
    note = (
        f"{kind} export, {label}: {described}; {rounds} paired rounds; {each}; "
        f"1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    return figures, note


def main() -> int:
    if "--install-peers" in sys.argv:
        install_peers()
    rounds = option("--rounds", ROUNDS)
    which = option("--exports", ",".join(EXPORTS), str).split(",")
    home = fresh_home("convert")
    env = use_home(home)
    # written in a child process: a child forked from a big parent starts its peak memory (ru_maxrss) at
    # the parent's size, and this one stays small
    code = (
        f"import convert_bench, pathlib; convert_bench.write_exports(pathlib.Path({str(home)!r}), {which!r})"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)
    about = json.loads((home / "exports.json").read_text(encoding="utf-8"))
    exports = {
        kind: (Path(given), [Path(f) for f in files], text) for kind, (given, files, text) in about.items()
    }
    figures, notes = [], []
    for label, load in phases(LOAD_PROCS):
        with Load(load):
            for kind, export in exports.items():
                figs, note = measure(kind, export, rounds, label, env, home)
                figures += figs
                notes.append(note)
    emit(figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
