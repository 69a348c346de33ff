"""`mnemo import` of official ChatGPT exports, each paired with its floor, quiet and loaded.

Exports (corpus.py, written one conversation at a time): "mixed", one conversations.json of 300
conversations, 74 MB, mostly 50-message chats with a tail of 1.1 MB ones; "split", an unzipped export of
small conversations in conversations-000.json, -001 ... of 24 MB each, 234 MB in all. Their conversations
are made from the real export and API conversations in tests/fixtures (chatgpt_export, chatgpt_api): new
conversation and message ids, shifted times and new user/assistant text on the template's structure
(branches, tool calls, browsing quotes, canvas, images). Figures: conversations per second (median and p95
of RUNS paired runs, each import paired with a floor measured just before it) and the peak memory (VmHWM of
the `mnemo import` process). Floor, in a fresh process as the import: loading the o200k tokenizer,
json.loads of the file(s) and one o200k_base pass over their text (the import counts tokens); json.loads
alone and the import's CPU time (user + sys, all its threads) are in the notes. Each import gets a fresh
archive with the tokenizer cache already unpacked (as after a first use: unpacking it is a once-per-install
cost, not import work). Measured as the machine is ("quiet"), and with LOAD_PROCS busy processes started by
this script ("loaded"), since imports run on busy laptops too; `--quiet` or `--loaded` for one phase,
`--runs N`, `--load K`, `--exports mixed,split`.
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
from benchlib import Figure, Load, emit, fresh_home, median, option, p95, phases, use_home

# the 2026 marker shapes (entity, url, products ...) ride along with the real exports
TEMPLATE_GLOBS = ("chatgpt_export/*.json", "chatgpt_api/**/*.json", "chatgpt_synthetic/markers_2026.json")
RUNS = 5  # the floor moves with the machine from minute to minute: five pairs steady the median
LOAD_PROCS = max(1, (os.cpu_count() or 2) - 1)  # a busy process on every other core
WITHIN_FLOOR = 2.0  # the target: an import within 2x of its floor (the median of the paired runs)
PEAK_TARGET_MB = 300.0


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
    home = Path(env["MNEMOSYNE_HOME"])
    out_path, err_path = home / "import.out", home / "import.err"
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
loads = encode = 0.0
for name in sys.argv[3:]:  # a file at a time (one pass over a split export's text would hold all of it)
    raw = open(name, "rb").read()
    started = time.perf_counter()
    data = json.loads(raw)
    loads += time.perf_counter() - started
    out = []
    corpus._strings(data, out)
    del raw, data
    text = "\\n".join(out)
    started = time.perf_counter()
    enc.encode_ordinary(text)
    encode += time.perf_counter() - started
print(json.dumps([load, loads, encode]))
"""


def floor_seconds(files: list[Path], env: dict[str, str]) -> tuple[float, float, float]:
    """(tokenizer load + json.loads + o200k pass, json.loads alone, tokenizer load) over the export's files,
    in a fresh process (`env`: the import's, so the tokenizer comes from the same cache)."""
    cpu_before = _children_cpu()
    done = subprocess.run(
        [sys.executable, "-c", _FLOOR, "", str(Path(__file__).parent), *map(str, files)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    last_floor_cpu[0] = _children_cpu() - cpu_before
    load, loads, encode = json.loads(done.stdout)
    return load + loads + encode, loads, load


last_floor_cpu = [0.0]  # CPU seconds of the last floor process (its whole life: reading the files too)


def measure(
    kind: str, export: Path, files: list[Path], expected: int, runs: int, label: str
) -> tuple[list[Figure], str]:
    """`runs` paired runs (floor, then a fresh-archive import) and their figures."""
    pairs = []
    load_before = os.getloadavg()[0]
    for n in range(runs):
        home = warm_home(f"import-{kind}-{n}")
        env = use_home(home)
        floor, loads, load = floor_seconds(files, env)
        seconds, peak, summary = run_import(export, env)
        created = int(re.search(r"imported (\d+)", summary).group(1))
        if created != expected:
            raise RuntimeError(f"import created {created} of {expected}: {summary}")
        pairs.append((seconds, floor, loads, peak, last_cpu[0], load, last_floor_cpu[0]))
        shutil.rmtree(home, ignore_errors=True)  # (an archive of the split export is 1 GB)
    secs = [p[0] for p in pairs]
    floors = [p[1] for p in pairs]
    ratios = [p[0] / p[1] for p in pairs]
    size = sum(f.stat().st_size for f in files) / 1e6
    name = f"import the {kind} export ({size:.0f} MB, {expected:,} conversations), {label}"
    figures = [
        Figure(
            f"{name}: median",
            expected / median(secs),
            "conv/s",
            expected / median(floors) / WITHIN_FLOOR,
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
        Figure(f"{name}: peak memory (VmHWM)", max(p[3] for p in pairs), "MB", PEAK_TARGET_MB),
    ]
    note = (
        f"{kind} export, {label}: {runs} paired runs, import {', '.join(f'{s:.1f}' for s in secs)} s "
        f"(CPU {', '.join(f'{p[4]:.1f}' for p in pairs)} s); floor "
        f"{', '.join(f'{f:.2f}' for f in floors)} s (CPU {', '.join(f'{p[6]:.1f}' for p in pairs)} s; "
        f"of which json.loads median {median([p[2] for p in pairs]):.2f} s, "
        f"tokenizer load {median([p[5] for p in pairs]):.2f} s); "
        f"import/floor median {median(ratios):.1f}x, p95 {p95(ratios):.1f}x; "
        f"1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    return figures, note


EXPORTS = ("mixed", "split")


def write_exports(home: Path, which: list[str]) -> dict[str, tuple[Path, list[Path], int]]:
    """kind -> (what import is given, its conversation files, how many conversations)."""
    made = {}
    if "mixed" in which:
        path = home / "mixed" / "conversations.json"
        path.parent.mkdir()
        count, _largest = corpus.write_export_array(path, corpus.mixed_conversations())
        made["mixed"] = (path, [path], count)
    if "split" in which:
        count, _largest = corpus.write_split_export(home / "split", corpus.template_conversations())
        made["split"] = (home / "split", sorted((home / "split").glob("conversations-*.json")), count)
    return made


def run() -> tuple[list[Figure], list[str]]:
    runs = option("--runs", RUNS)
    which = option("--exports", ",".join(EXPORTS), str).split(",")
    exports = write_exports(fresh_home("import-exports"), which)
    figures, notes = [], []
    for kind, (_given, files, count) in exports.items():
        size = sum(f.stat().st_size for f in files)
        notes.append(f"{kind} export: {size / 1e6:.0f} MB in {len(files)} file(s), {count:,} conversations")
    for label, load in phases(LOAD_PROCS):
        with Load(load):
            for kind, (given, files, count) in exports.items():
                figs, note = measure(kind, given, files, count, runs, label)
                figures += figs
                notes.append(note)
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
