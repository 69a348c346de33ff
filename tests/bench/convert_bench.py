"""Convert an official ChatGPT export of 1,000 conversations to Markdown: mnemo and its peers.

The export is import_bench's generator (fixture structure, new ids and text), one conversations.json.
Each tool runs in a fresh process on the same file, paired round by round; figures are the CPU time
(user + system) and peak memory (ru_maxrss) of the process. Floor: `json.load` of the file in a fresh
Python. Peers (a column of their own): obsivault and convoviz from PyPI, each in its own venv outside
the repo, named by PEER_VENVS (`python tests/bench/convert_bench.py --install-peers` makes them).
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

from benchlib import Figure, emit, fresh_home, median, p95, use_home
from import_bench import build_export

CONVERSATIONS = 1000
ROUNDS = 3
PEER_VENVS = Path(os.environ.get("MNEMO_PEER_VENVS", "/tmp/mnemo-bench-peers"))
PEERS = {  # name -> (python for its venv, pip requirement)
    "obsivault": ("python3.11", "obsivault"),  # (a bare "python3" matched the oldest pyenv build)
    "convoviz": ("python3.12", "convoviz"),  # its current releases need Python 3.12
}


def peer_command(name: str, export: Path, out: Path) -> list[str] | None:
    bin_dir = PEER_VENVS / name / "bin"
    if not (bin_dir / name).exists():
        return None
    if name == "obsivault":
        return [str(bin_dir / name), "convert", str(export), str(out), "--provider", "chatgpt", "--force"]
    return [str(bin_dir / name), "--input", str(export), "--output", str(out), "--outputs", "markdown", "-I"]


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


def write_export(path: Path) -> None:
    """import_bench's export, with the conversation times every official export has (templates taken
    from the site API lack them, and convoviz refuses a conversation without them)."""
    conversations = build_export(path, CONVERSATIONS)
    for n, conv in enumerate(conversations):
        if conv.get("create_time") is None:
            conv["create_time"] = 1_700_000_000.0 + n * 3600
        if conv.get("update_time") is None:
            conv["update_time"] = conv["create_time"] + 60
    path.write_text(json.dumps(conversations, ensure_ascii=False), encoding="utf-8")


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MB of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{argv[0]} failed: {err[-500:]}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    if "--install-peers" in sys.argv:
        install_peers()
    home = fresh_home("convert")
    env = use_home(home)
    export = home / "conversations.json"
    # in a child process: the export's objects would stay in this one, and a child forked from a big
    # parent starts its peak memory (ru_maxrss) at the parent's size
    code = f"import convert_bench, pathlib; convert_bench.write_export(pathlib.Path({str(export)!r}))"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)
    outs = Path(tempfile.mkdtemp(prefix="mnemo-convert-", dir=home))
    commands = {
        "floor": [sys.executable, "-c", f"import json; json.load(open({str(export)!r}, 'rb'))"],
        "mnemo": [sys.executable, "-m", "mnemosyne.cli.main", "convert", str(export), "--to", "markdown"],
    }
    for name in PEERS:
        cmd = peer_command(name, export, outs / name)
        if cmd is not None:
            commands[name] = cmd
    results: dict[str, list[tuple[float, float, float]]] = {k: [] for k in commands}
    for _ in range(ROUNDS):
        for name, argv in commands.items():
            shutil.rmtree(outs, ignore_errors=True)
            outs.mkdir()
            if name == "mnemo":
                argv = [*argv, "-o", str(outs / "mnemo")]
            results[name].append(run(argv, env))
    cpu = {k: [r[1] for r in v] for k, v in results.items()}
    peak = {k: max(r[2] for r in v) for k, v in results.items()}
    peers = [k for k in PEERS if k in commands]
    best_peer = min(peers, key=lambda k: median(cpu[k])) if peers else None
    leanest = min(peers, key=lambda k: peak[k]) if peers else None
    peer_note = (
        ", ".join(f"{k} {median(cpu[k]):.2f} s CPU / {peak[k]:.0f} MB" for k in peers) or "no peer venv"
    )
    figures = [
        Figure(
            f"convert {CONVERSATIONS:,} conversations to Markdown, CPU (median)",
            median(cpu["mnemo"]),
            "s",
            target=median(cpu[best_peer]) if best_peer else None,
            floor=median(cpu["floor"]),
            floor_label="json.load of the file",
            note=f"target: the fastest peer ({best_peer})" if best_peer else "",
            peer=median(cpu[best_peer]) if best_peer else None,
            peer_label=best_peer or "",
        ),
        Figure(
            f"convert {CONVERSATIONS:,} conversations to Markdown, CPU (p95)",
            p95(cpu["mnemo"]),
            "s",
            floor=p95(cpu["floor"]),
            floor_label="json.load of the file",
            peer=p95(cpu[best_peer]) if best_peer else None,
            peer_label=best_peer or "",
        ),
        Figure(
            f"convert {CONVERSATIONS:,} conversations to Markdown, peak memory",
            peak["mnemo"],
            "MB",
            target=100.0,
            floor=peak["floor"],
            floor_label="json.load of the file",
            peer=peak[leanest] if leanest else None,
            peer_label=leanest or "",
        ),
    ]
    notes = [
        f"export {export.stat().st_size / 1e6:.1f} MB, {CONVERSATIONS} conversations; {ROUNDS} paired rounds; "
        f"peers: {peer_note}"
    ]
    emit(figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
