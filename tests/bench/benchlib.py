"""Shared pieces of the benchmarks: figures, statistics, the machine, the host process.

Each bench script builds a list of Figure and calls emit(): it prints a table,
and with `--json PATH` also writes the figures for run_all.py to collect.
"""

from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
TESTS_DIR = BENCH_DIR.parent
REPO = TESTS_DIR.parent
ARTIFACTS = TESTS_DIR / "artifacts"
sys.path.insert(0, str(TESTS_DIR))  # support.hostproc

from support.hostproc import HostProcess, frame, host_env  # noqa: E402


@dataclass
class Figure:
    name: str
    value: float
    unit: str  # "ms", "s", "MB", "conv/s"
    target: float | None = None  # pass when value < target ("ms", "s", "MB") or > target ("conv/s")
    floor: float | None = None  # the same quantity for the floor, same unit
    floor_label: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)
    peer: float | None = None  # the same quantity for the best peer tool on the same input, same run
    peer_label: str = ""

    @property
    def higher_is_better(self) -> bool:
        return self.unit.endswith("/s")

    @property
    def ratio(self) -> float | None:
        """How many times the floor's cost (>= 1 means slower than the floor)."""
        if not self.floor or not self.value:
            return None
        return self.floor / self.value if self.higher_is_better else self.value / self.floor

    @property
    def verdict(self) -> str:
        if self.target is None:
            return "-"
        ok = self.value > self.target if self.higher_is_better else self.value < self.target
        return "pass" if ok else "MISS"

    def as_dict(self) -> dict:
        data = asdict(self)
        data.update(ratio=self.ratio, verdict=self.verdict)
        return data


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def option(name: str, default, kind=int):
    """The value after `name` on the command line, else `default`."""
    return kind(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def phases(load_procs: int) -> list[tuple[str, int]]:
    """What to measure, as (label, busy processes): quiet (the machine as it is) and loaded (`load_procs`
    busy processes started by the benchmark; `--load K` changes it); `--quiet` or `--loaded` for one."""
    load = option("--load", load_procs)
    quiet = ("quiet", 0)
    loaded = (f"loaded (+{load} busy process{'es' if load != 1 else ''})", load)
    if "--quiet" in sys.argv:
        return [quiet]
    if "--loaded" in sys.argv:
        return [loaded]
    return [quiet, loaded]


# each busy process stops when the benchmark does, even when the benchmark is killed (it then gets a new parent)
_BUSY = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    sum(range(10000))\n"


class Load:
    """`count` busy Python processes while a loaded phase runs, ended by their own pids."""

    def __init__(self, count: int):
        self.count, self.procs = count, []

    def __enter__(self) -> Load:
        import subprocess

        for _ in range(self.count):
            self.procs.append(subprocess.Popen([sys.executable, "-c", _BUSY], stdin=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call takes."""
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def fmt_value(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "ms":
        return f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms"
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "MB":
        return f"{value:.1f} MB"
    return f"{value:,.1f} {unit}"


def fmt_target(fig: Figure) -> str:
    if fig.target is None:
        return ""
    return (">" if fig.higher_is_better else "<") + " " + fmt_value(fig.target, fig.unit)


def table_rows(figures: list[Figure]) -> list[list[str]]:
    rows = []
    for f in figures:
        ratio = f"{f.ratio:.1f}x" if f.ratio is not None else ""
        floor = fmt_value(f.floor, f.unit) + (f" ({f.floor_label})" if f.floor_label and f.floor else "")
        peer = fmt_value(f.peer, f.unit) + (f" ({f.peer_label})" if f.peer_label and f.peer else "")
        rows.append([f.name, fmt_value(f.value, f.unit), fmt_target(f), floor, ratio, peer, f.verdict])
    return rows


HEADERS = ["figure", "measured", "target", "floor (same run)", "ratio", "peer (same run)", "result"]


def text_table(figures: list[Figure]) -> str:
    rows = [HEADERS] + table_rows(figures)
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(figures: list[Figure]) -> str:
    out = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in table_rows(figures)]
    return "\n".join(out)


def emit(figures: list[Figure], notes: list[str] | None = None) -> None:
    """Print the table (and notes); with `--json PATH` on the command line also write them."""
    print(text_table(figures))
    for note in notes or []:
        print(f"  note: {note}")
    if "--json" in sys.argv:
        path = Path(sys.argv[sys.argv.index("--json") + 1])
        path.write_text(
            json.dumps(
                {"figures": [f.as_dict() for f in figures], "notes": notes or []},
                ensure_ascii=False,
                indent=1,
            ),
            encoding="utf-8",
        )


# ---------------------------------------------------------------- the machine


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "ram": ram,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
    }


# ---------------------------------------------------------------- processes


def proc_status_kib(pid: int, key: str) -> int | None:
    """A `VmHWM` / `VmRSS` line of /proc/<pid>/status, in KiB (None when unavailable)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_kib(pid: int) -> int:
    """A process's resident memory (VmRSS), in KiB; 0 when it is gone."""
    return proc_status_kib(pid, "VmRSS") or 0


def pss_kib(pid: int) -> int:
    """A process's proportional share of its resident memory (Pss of /proc/<pid>/smaps_rollup: a page shared
    with a forked child counts half in each), in KiB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class TogetherPeak(threading.Thread):
    """The largest memory of a process and its children at one moment, as `read` gives each (KiB), sampled
    every `every` seconds (the sum of their own peaks, VmHWM, is an upper bound: they need not peak at once)."""

    def __init__(self, pid: int, read: Callable[[int], int] = rss_kib, every: float = 0.002) -> None:
        super().__init__(daemon=True)
        self.pid, self.read, self.every = pid, read, every
        self.peak_kib, self.done = 0, threading.Event()

    def run(self) -> None:
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        while not self.done.wait(self.every):
            try:
                pids = [self.pid, *map(int, children.read_text().split())]
            except OSError:
                continue
            self.peak_kib = max(self.peak_kib, sum(map(self.read, pids)))


def fresh_home(prefix: str) -> Path:
    """A throwaway data folder, removed when the bench process exits."""
    home = Path(tempfile.mkdtemp(prefix=f"mnemo-bench-{prefix}-"))
    atexit.register(shutil.rmtree, home, True)
    return home


PYCACHE = ARTIFACTS / "pycache"


def use_home(home: Path, bytecode: bool = True) -> dict[str, str]:
    """Point this process (and the hosts it starts) at `home`; returns the host environment.

    `bytecode`: let the host cache compiled modules, as an installed package does. This sandbox sets
    PYTHONDONTWRITEBYTECODE=1, which makes every start recompile mnemosyne from source; the cache goes
    to tests/artifacts/pycache so the source tree gets no __pycache__ folders."""
    env = host_env(home)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    os.environ["MNEMOSYNE_HOME"] = env["MNEMOSYNE_HOME"]
    os.environ["MNEMOSYNE_KEY_FILE"] = env["MNEMOSYNE_KEY_FILE"]
    return env


class BenchHost(HostProcess):
    """A host with timed calls on pre-encoded frames."""

    def timed_call(self, request: dict, timeout: float = 120.0) -> tuple[float, dict]:
        self._next_id += 1
        data = frame({"id": self._next_id, **request})
        started = time.perf_counter()
        self.send_raw(data)
        reply = self.recv(timeout)
        elapsed = time.perf_counter() - started
        if not reply.get("ok"):
            raise RuntimeError(f"{request.get('action')} failed: {reply.get('error')}")
        return elapsed, reply["data"]

    def timed_paged(self, request: dict) -> tuple[float, str]:
        """Seconds to fetch every page of a get/context, and the whole text."""
        chunks, cursor, total = [], None, 0.0
        while True:
            elapsed, data = self.timed_call({**request, **({"cursor": cursor} if cursor else {})})
            total += elapsed
            chunks.append(data["chunk"])
            cursor = data.get("next_cursor")
            if not cursor:
                return total, "".join(chunks)

    def peak_mib(self) -> float | None:
        kib = proc_status_kib(self.proc.pid, "VmHWM")
        return kib / 1024 if kib is not None else None

    def worker_peak_mib(self) -> float:
        """Peak memory of the host's split worker (its child process; 0 when it has none), since it last started
        afresh (a long job makes it exec itself: split_worker._start_afresh); TogetherPeak samples it throughout."""
        try:
            pids = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        except OSError:
            return 0.0
        return sum((proc_status_kib(int(pid), "VmHWM") or 0) for pid in pids) / 1024

    def finish(self) -> float:
        """Close the host's input, as a browser closing the port, and its peak memory over its whole life
        (ru_maxrss of wait4), in MiB: the work it defers to after its replies included (the units and
        corpora it stores, the search index), which it finishes before leaving as it would while idle. A
        VmHWM read after the last reply misses that work (a 5 MB Chinese conversation: 20 MB)."""
        self.proc.stdin.close()
        self.proc.stdout.read()  # (to the end: the host has left, its worker ended)
        self.proc.stderr.read()
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_maxrss / 1024  # (KiB on Linux)


def run_in_fresh_host(
    name: str, run_with: Callable[[BenchHost], tuple[list[Figure], list[str]]], phase: str
) -> tuple[list[Figure], list[str]]:
    """Run `run_with(host)` against one warm host on a new archive, then add the host's peak memory."""
    host = BenchHost(use_home(fresh_home(name)))
    try:
        figures, notes = run_with(host)
        peak = host.finish()
    finally:
        host.kill()
    figures.append(Figure(f"host peak memory after the {phase} runs (its whole life)", peak, "MB"))
    return figures, notes
