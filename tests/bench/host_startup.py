"""Cold start of the native host to its first `hello` reply.

Measured the way a browser starts it: the launcher script `mnemo install`
writes (sh, then `python -m mnemosyne.nativehost <origin>`), against an archive
that already exists. Floor: `python -c pass`. When the target is missed, an
`-X importtime` run names the imports on the hello path and what they cost.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from benchlib import Figure, HostProcess, emit, frame, fresh_home, median, p95, use_home

RUNS = 21
TARGET_RATIO = 3.0  # within 3x of `python -c pass` measured in the same run
HELLO = frame({"id": 1, "action": "hello"})
ORIGIN = "chrome-extension://{id}/"


def write_launcher(home: Path) -> Path:
    from mnemosyne.install.launcher import current_env, render

    path = home / "bin" / "mnemo-host"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render("Linux", sys.executable, current_env()), encoding="utf-8")
    path.chmod(0o700)
    return path


def caller_origin() -> str:
    from mnemosyne.extension_ids import CHROMIUM_EXTENSION_ID

    return ORIGIN.format(id=CHROMIUM_EXTENSION_ID)


def one_start(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawning the host to having its hello reply."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    host = HostProcess.__new__(HostProcess)
    host.proc, host._next_id = proc, 0
    host.send_raw(HELLO)
    reply = host.recv(timeout=30)
    elapsed = time.perf_counter() - started
    proc.stdin.close()
    proc.wait(30)
    if not reply.get("ok") or reply["data"]["archive"]["state"] != "ready":
        raise RuntimeError(f"hello failed: {reply}")
    return elapsed


def floor_run(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
    return time.perf_counter() - started


KEY_MODULES = re.compile(
    r"^(mnemosyne(\.|$)|pydantic$|pydantic_core$|sqlcipher3|keyring$|tiktoken$|certifi$|logging)"
)


# the host, with a line on stderr once the first reply is written: imports after it are not hello's
UNTIL_REPLY = (
    "import sys\n"
    "from mnemosyne.nativehost import server\n"
    "orig = server.handle\n"
    "def marked(body, session):\n"
    "    reply = orig(body, session)\n"
    "    sys.stderr.write('REPLIED\\n')\n"
    "    return reply\n"
    "server.handle = marked\n"
    "raise SystemExit(server.main([]))\n"
)


def import_profile(env: dict[str, str], min_ms: float = 2.0) -> list[tuple[str, float, float]]:
    """(module, self ms, cumulative ms) of the imports before the first reply that matter, costliest first."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", UNTIL_REPLY],
        input=HELLO,
        capture_output=True,
        env=env,
        timeout=60,
    )
    rows = []
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if line == "REPLIED":
            break
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and KEY_MODULES.match(m.group(4)) and int(m.group(2)) / 1000 >= min_ms:
            rows.append((m.group(4), int(m.group(1)) / 1000, int(m.group(2)) / 1000))
    return sorted(rows, key=lambda r: -r[2])


def hello_timings(env: dict[str, str]) -> dict[str, float]:
    """In-process phases of hello: module imports vs opening the archive."""
    code = (
        "import time; t0=time.perf_counter()\n"
        "from mnemosyne.nativehost import server\n"
        "t1=time.perf_counter()\n"
        "from mnemosyne.archive import opening\n"
        "t2=time.perf_counter()\n"
        "opening.open_database()[0].close()\n"
        "t3=time.perf_counter()\n"
        "print((t1-t0)*1000, (t2-t1)*1000, (t3-t2)*1000)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    server_ms, archive_import_ms, open_ms = (float(x) for x in out.split())
    return {
        "server imports": server_ms,
        "archive imports (keys, sqlcipher, migrations)": archive_import_ms,
        "open archive (key file, connect, migrations check)": open_ms,
    }


def run() -> tuple[list[Figure], list[str]]:
    home = fresh_home("startup")
    env = use_home(home)
    no_bytecode_env = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
    no_bytecode_env.pop("PYTHONPYCACHEPREFIX")
    launcher = write_launcher(home)
    via_launcher = ["/bin/sh", str(launcher), caller_origin()]
    direct = [sys.executable, "-m", "mnemosyne.nativehost"]
    one_start(direct, env)  # creates the archive and its key, and the bytecode cache
    one_start(via_launcher, env)  # warms the OS file cache, as a browser's second start would find it
    floor_run(env)
    launcher_s, direct_s, source_s, floor_s = [], [], [], []
    for _ in range(RUNS):  # interleaved, so load on the machine hits all of them alike
        launcher_s.append(one_start(via_launcher, env))
        direct_s.append(one_start(direct, env))
        source_s.append(one_start(direct, no_bytecode_env))
        floor_s.append(floor_run(env))
    floor_ms = median(floor_s) * 1000
    figures = [
        Figure(
            "host cold start to first hello (launcher, median)",
            median(launcher_s) * 1000,
            "ms",
            TARGET_RATIO * floor_ms,
            floor_ms,
            "python -c pass",
            extra={"p95_ms": p95(launcher_s) * 1000, "runs": RUNS},
        ),
        Figure(
            "host cold start to first hello (launcher, p95)",
            p95(launcher_s) * 1000,
            "ms",
            None,
            p95(floor_s) * 1000,
            "python -c pass",
        ),
        Figure(
            "host cold start, python -m mnemosyne.nativehost",
            median(direct_s) * 1000,
            "ms",
            None,
            floor_ms,
            "python -c pass",
        ),
        Figure(
            "host cold start without bytecode cache (PYTHONDONTWRITEBYTECODE=1)",
            median(source_s) * 1000,
            "ms",
            None,
            floor_ms,
            "python -c pass",
        ),
    ]
    notes = [f"cold start p95 {p95(launcher_s) * 1000:.1f} ms over {RUNS} runs"]
    phases = hello_timings(env)
    notes.append("hello path phases: " + "; ".join(f"{k} {v:.1f} ms" for k, v in phases.items()))
    profile = import_profile(env)
    notes.append(
        "imports on the hello path (-X importtime, cumulative / self ms): "
        + ", ".join(f"{name} {cum:.1f}/{own:.1f}" for name, own, cum in profile)
    )
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
