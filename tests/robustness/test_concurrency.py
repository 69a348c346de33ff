"""8 real host processes save 200 conversations each into one archive while
the CLI (`mnemo search`, `mnemo list --json`) reads it in a loop: every save
lands, no "database is locked" reaches a caller or a log, p99 save latency."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mnemosyne.archive import open_archive
from support.hostproc import HostProcess

from .figures import record
from .hostio import capture_payload

pytestmark = pytest.mark.robustness

MNEMO = str(Path(sys.executable).with_name("mnemo"))
HOSTS = 8
WORDS = ["orbit", "granite", "saffron", "lumen", "cobalt", "fjord", "zephyr", "quill"]


def saver(env, index: int, count: int, latencies: list[float], errors: list[str]) -> None:
    host = HostProcess(env)
    try:
        host.data("hello")
        for n in range(count):
            key = f"h{index}c{n}"
            texts = [
                f"{WORDS[index]} question {n} about {key}",
                f"{WORDS[(index + n) % 8]} answer {n} " * 20,
            ] * 3
            started = time.perf_counter()
            reply = host.call(
                "save",
                timeout=120,
                payload=capture_payload(key, f"{WORDS[index]} {n}", texts),
                kind="capture",
            )
            latencies.append(time.perf_counter() - started)
            if not reply["ok"] or reply["data"]["status"] != "created":
                errors.append(f"host {index} save {n}: {json.dumps(reply)[:300]}")
        code, _, err = host.close(timeout=120)
        if code != 0 or err.strip():
            errors.append(f"host {index} exit {code}: {err[-300:]!r}")
    except Exception as exc:  # a broken host is a finding, reported with the others
        errors.append(f"host {index}: {type(exc).__name__}: {exc}")
        host.kill()


def cli_loop(env, stop: threading.Event, runs: list[int], errors: list[str]) -> None:
    commands = [
        ["search", "orbit"],
        ["list", "--json", "--limit", "0"],
        ["search", "cobalt answer"],
        ["search", "h3c1"],
    ]
    n = 0
    while not stop.is_set():
        args = commands[n % len(commands)]
        done = subprocess.run([MNEMO, *args], env=env, capture_output=True, text=True, timeout=120)
        n += 1
        runs[0] += 1
        if done.returncode not in (0, 1) or "locked" in done.stderr.lower() or "Traceback" in done.stderr:
            errors.append(f"mnemo {' '.join(args)} exit {done.returncode}: {done.stderr[-300:]}")
        if args[0] == "list":
            json.loads(done.stdout)  # a torn read would not parse


def run_concurrency(env, home, monkeypatch, label: str, per_host: int) -> None:
    for name in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(name, env[name])
    open_archive().close()
    latencies: list[float] = []
    errors: list[str] = []
    cli_errors: list[str] = []
    runs = [0]
    stop = threading.Event()
    reader = threading.Thread(target=cli_loop, args=(env, stop, runs, cli_errors))
    savers = [
        threading.Thread(target=saver, args=(env, i, per_host, latencies, errors)) for i in range(HOSTS)
    ]
    started = time.perf_counter()
    reader.start()
    for t in savers:
        t.start()
    for t in savers:
        t.join()
    elapsed = time.perf_counter() - started
    stop.set()
    reader.join()
    with open_archive() as arc:
        saved = arc.conn.execute("SELECT count(*) FROM conversations").fetchone()[0]
        messages = arc.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    logs = "".join(p.read_text(errors="replace") for p in (home / "logs").glob("*.log*"))
    locked = sum(text.lower().count("locked") for text in [logs, *errors, *cli_errors])
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1] if latencies else float("nan")
    record(label, "conversations saved", saved, f"{HOSTS * per_host}")
    record(label, "failed saves or host errors", len(errors), "0")
    record(label, "CLI runs during the saves", runs[0])
    record(label, "CLI errors", len(cli_errors), "0")
    record(label, '"database is locked" surfaced', locked, "0")
    record(label, "deferred-job failures in host logs", logs.count("deferred job failed"), "0")
    record(label, "save latency p50 (ms)", round(latencies[len(latencies) // 2] * 1000, 1))
    record(label, "save latency p99 (ms)", round(p99 * 1000, 1))
    record(label, "wall time (s)", round(elapsed, 1))
    assert not errors, errors[:5]
    assert not cli_errors, cli_errors[:5]
    assert saved == HOSTS * per_host and messages == saved * 6
    assert locked == 0 and "deferred job failed" not in logs
    assert runs[0] >= 4


def test_concurrency(env, home, monkeypatch):
    run_concurrency(env, home, monkeypatch, "concurrency", per_host=200)


@pytest.mark.long
def test_concurrency_long(env, home, monkeypatch):
    run_concurrency(env, home, monkeypatch, "concurrency (long)", per_host=1000)
