"""`mnemo import` of an official ChatGPT export of 2,000 conversations.

The export is generated from the real export and API conversations in
tests/fixtures (chatgpt_export, chatgpt_api): each copy gets new conversation
and message ids, shifted times and new user/assistant text, and keeps the
template's structure (branches, tool calls, browsing quotes, canvas, images).
Figures: conversations per second (median and p95 of RUNS paired runs, each
import paired with a floor measured just before it) and the peak memory
(VmHWM of the `mnemo import` process). Floor, in a fresh process as the import: loading the o200k
tokenizer, json.loads of the file and one o200k_base pass over its text (the import counts tokens); json.loads alone and
the import's CPU time (user + sys, all its threads) are in the notes. Each
import gets a fresh archive with the tokenizer cache already unpacked (as after
a first use: unpacking it is a once-per-install cost, not import work). Measured twice: as the machine is ("quiet"), and with LOAD_PROCS
busy processes started by this script ("loaded"), since imports run on busy
laptops too. `--runs N` and `--load K` change the defaults.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import corpus
from benchlib import Figure, emit, fresh_home, median, p95, use_home

CONVERSATIONS = 2000
# the 2026 marker shapes (entity, url, products ...) ride along with the real exports
TEMPLATE_GLOBS = ("chatgpt_export/*.json", "chatgpt_api/**/*.json", "chatgpt_synthetic/markers_2026.json")
RUNS = 5  # the floor moves with the machine from minute to minute: five pairs steady the median
LOAD_PROCS = os.cpu_count() or 2
# each load process stops when the benchmark does, even when the benchmark is killed (it then gets a new parent)
WITHIN_FLOOR = 2.0  # an import within 2x of its floor (the median of the paired runs)
_BUSY = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    sum(range(10000))\n"


def templates() -> list[dict]:
    """Every fixture conversation object with a mapping and a current_node."""
    found = []
    for pattern in TEMPLATE_GLOBS:
        for path in sorted(corpus.FIXTURES.glob(pattern)):
            data = json.loads(path.read_text(encoding="utf-8"))
            for item in data if isinstance(data, list) else [data]:
                if (
                    isinstance(item, dict)
                    and isinstance(item.get("mapping"), dict)
                    and item.get("current_node")
                ):
                    found.append(item)
    return found


def _new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def variant(template: dict, maker: corpus.TextMaker, rng: random.Random) -> dict:
    """A copy with new ids, shifted times and new text in its user/assistant text parts."""
    conv = copy.deepcopy(template)
    ids = {old: _new_id(rng) for old in conv["mapping"]}
    shift = rng.randrange(-30_000_000, 30_000_000)
    chinese = rng.random() < 0.2
    mapping = {}
    for old, node in conv["mapping"].items():
        node["id"] = ids[old]
        node["parent"] = ids.get(node.get("parent"), node.get("parent"))
        node["children"] = [ids.get(c, c) for c in node.get("children") or []]
        msg = node.get("message")
        if isinstance(msg, dict):
            msg["id"] = ids.get(msg.get("id"), _new_id(rng))
            for key in ("create_time", "update_time"):
                if isinstance(msg.get(key), (int, float)):
                    msg[key] += shift
            role = (msg.get("author") or {}).get("role")
            content = msg.get("content") or {}
            if role in ("user", "assistant") and content.get("content_type") == "text":
                content["parts"] = [
                    maker.message(role, chinese) if isinstance(p, str) and p.strip() else p
                    for p in content.get("parts") or []
                ]
        mapping[ids[old]] = node
    conv["mapping"] = mapping
    conv["current_node"] = ids.get(conv["current_node"], conv["current_node"])
    conv["id"] = conv["conversation_id"] = _new_id(rng)
    for key in ("create_time", "update_time"):
        if isinstance(conv.get(key), (int, float)):
            conv[key] += shift
    first = next(
        (
            p
            for n in mapping.values()
            for p in ((n.get("message") or {}).get("content") or {}).get("parts") or []
            if isinstance(p, str) and (n["message"].get("author") or {}).get("role") == "user" and p.strip()
        ),
        "",
    )
    conv["title"] = re.sub(r"\s+", " ", first)[:60].strip() or conv.get("title") or "Untitled"
    return conv


def build_export(path: Path, count: int = CONVERSATIONS, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    maker = corpus.TextMaker(seed)
    pool = templates()
    conversations = [variant(pool[i % len(pool)], maker, rng) for i in range(count)]
    path.write_text(json.dumps(conversations, ensure_ascii=False), encoding="utf-8")
    return conversations


LARGE_BYTES = 234_000_000  # the size of a large real export


def write_large_export(path: Path, size: int = LARGE_BYTES, seed: int = 5) -> int:
    """An export of about `size` bytes, written one conversation at a time; returns how many."""
    rng = random.Random(seed)
    maker = corpus.TextMaker(seed)
    pool = templates()
    count, written = 0, 1
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[")
        while written < size:
            item = json.dumps(variant(pool[count % len(pool)], maker, rng), ensure_ascii=False)
            fh.write(("," if count else "") + item)
            written += len(item.encode("utf-8")) + 1
            count += 1
        fh.write("]")
    return count


def _vm_hwm_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_import(path: Path, env: dict[str, str], *flags: str) -> tuple[float, float, str]:
    """(seconds, peak MiB, last stdout line) of one `mnemo import` process; its CPU seconds in `last_cpu`.

    Peak memory is the process's own VmHWM, polled until it exits: ru_maxrss would also count
    this benchmark's memory, which Linux hands to a child at fork and keeps across exec."""
    argv = [sys.executable, "-m", "mnemosyne.cli.main", "import", str(path), *flags]
    out_path, err_path = path.with_suffix(".out"), path.with_suffix(".err")
    peak = 0.0
    cpu_before = _children_cpu()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        while proc.poll() is None:
            peak = max(peak, _vm_hwm_mib(proc.pid))
            time.sleep(0.02)
        elapsed = time.perf_counter() - started
    last_cpu[0] = _children_cpu() - cpu_before
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mnemo import failed ({proc.returncode}): {err_path.read_text()[-2000:]}")
    return elapsed, peak, out_path.read_text().strip().splitlines()[-1]


last_cpu = [0.0]  # CPU seconds of the last run_import (children's rusage: every thread, once reaped)
_TOKENIZER_HOME: dict[str, Path] = {}


def warm_home(prefix: str) -> Path:
    """A fresh data folder whose tokenizer cache is unpacked (copied from one made once per benchmark)."""
    template = _TOKENIZER_HOME.get("home")
    if template is None:
        template = fresh_home("import-tokenizer")
        code = "from mnemosyne.tokens import encoding; encoding('o200k_base')"
        subprocess.run([sys.executable, "-c", code], env=use_home(template), check=True)
        _TOKENIZER_HOME["home"] = template
    home = fresh_home(prefix)
    shutil.copytree(template / "cache", home / "cache")
    return home


# The floor runs in a fresh process, as the import does: measured in this one, json.loads ran beside the
# parsed export and everything the benchmarks before it left (the cycle collector walks it all while
# the parse makes millions of objects), and took 0.84-1.41 s for the same file from run to run (0.55-0.65 s
# in a fresh process). It is what any tool that reads the export and counts its tokens must do: load the
# o200k tokenizer (from the same cache as the import), json.loads the file, one pass over its text.
_FLOOR = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
import corpus
started = time.perf_counter()
from mnemosyne.tokens import encoding
enc = encoding("o200k_base")
load = time.perf_counter() - started
raw = open(sys.argv[1], "rb").read()
started = time.perf_counter()
data = json.loads(raw)
loads = time.perf_counter() - started
out = []
corpus._strings(data, out)
text = "\\n".join(out)
started = time.perf_counter()
enc.encode_ordinary(text)
print(json.dumps([load, loads, time.perf_counter() - started]))
"""


def floor_seconds(path: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(tokenizer load + json.loads + o200k pass, json.loads alone, tokenizer load) over the export, in a
    fresh process (`env`: the import's, so the tokenizer comes from the same cache)."""
    done = subprocess.run(
        [sys.executable, "-c", _FLOOR, str(path), str(Path(__file__).parent)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    load, loads, encode = json.loads(done.stdout)
    return load + loads + encode, loads, load


class Load:
    """LOAD_PROCS busy Python processes for the loaded runs, ended by their own pids."""

    def __init__(self, count: int):
        self.count, self.procs = count, []

    def __enter__(self) -> Load:
        for _ in range(self.count):
            self.procs.append(subprocess.Popen([sys.executable, "-c", _BUSY], stdin=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


def measure(export: Path, expected: int, runs: int, label: str) -> tuple[list[Figure], str]:
    """`runs` paired runs (floor, then a fresh-archive import) and their figures."""
    pairs = []
    load_before = os.getloadavg()[0]
    for n in range(runs):
        env = use_home(warm_home(f"import-{label}-{n}"))
        floor, loads, load = floor_seconds(export, env)
        seconds, peak, summary = run_import(export, env)
        created = int(re.search(r"imported (\d+)", summary).group(1))
        if created != expected:
            raise RuntimeError(f"import created {created} of {expected}: {summary}")
        pairs.append((seconds, floor, loads, peak, last_cpu[0], load))
    secs = [p[0] for p in pairs]
    floors = [p[1] for p in pairs]
    ratios = [p[0] / p[1] for p in pairs]
    name = f"import {expected:,}-conversation export, {label} (with token counts)"
    figures = [
        Figure(
            f"{name}: median",
            expected / median(secs),
            "conv/s",
            expected / median(floors) / WITHIN_FLOOR if label == "quiet" else None,
            expected / median(floors),
            "o200k load + json.loads + o200k pass, fresh process",
            extra={"seconds": secs, "floor_seconds": floors},
        ),
        Figure(
            f"{name}: p95",
            expected / p95(secs),
            "conv/s",
            None,
            expected / p95(floors),
            "o200k load + json.loads + o200k pass, fresh process",
        ),
        Figure(f"import peak memory, {label} (VmHWM of mnemo import)", max(p[3] for p in pairs), "MB"),
    ]
    note = (
        f"{label}: {runs} paired runs, import {', '.join(f'{s:.1f}' for s in secs)} s "
        f"(CPU {', '.join(f'{p[4]:.1f}' for p in pairs)} s); floor "
        f"{', '.join(f'{f:.2f}' for f in floors)} s (of which json.loads median {median([p[2] for p in pairs]):.2f} s, "
        f"tokenizer load {median([p[5] for p in pairs]):.2f} s); "
        f"import/floor median {median(ratios):.1f}x, p95 {p95(ratios):.1f}x; "
        f"1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    return figures, note


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def run() -> tuple[list[Figure], list[str]]:
    runs, load = _option("--runs", RUNS), _option("--load", LOAD_PROCS)
    export = fresh_home("import-export") / "conversations.json"
    conversations = build_export(export)
    figures, notes = [], []
    quiet, note = measure(export, len(conversations), runs, "quiet")
    figures += quiet
    notes.append(note)
    with Load(load):
        loaded, note = measure(export, len(conversations), runs, f"loaded (+{load} busy processes)")
    figures += loaded
    notes.append(note)
    messages = sum(1 for c in conversations for n in c["mapping"].values() if n.get("message"))
    notes.insert(
        0,
        f"export {export.stat().st_size / 1e6:.1f} MB, {len(conversations)} conversations, {messages:,} nodes "
        f"with a message, from {len(templates())} fixture templates",
    )
    export.unlink()
    del conversations
    large = fresh_home("import-large") / "conversations.json"  # peak memory of a 234 MB export
    count = write_large_export(large)
    big_seconds, big_peak, big_summary = run_import(large, use_home(warm_home("import-large-home")))
    big_mb = large.stat().st_size / 1e6
    figures += [
        Figure(f"import {big_mb:.0f} MB export (with token counts)", count / big_seconds, "conv/s"),
        Figure(f"import peak memory, {big_mb:.0f} MB export (VmHWM of mnemo import)", big_peak, "MB", 300.0),
    ]
    notes.append(f"large export {big_mb:.0f} MB, {count:,} conversations: {big_seconds:.0f} s, {big_summary}")
    large.unlink()
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
