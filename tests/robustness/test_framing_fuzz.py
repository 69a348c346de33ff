"""Framing fuzz against the real host process (`python -m mnemosyne.nativehost`).

Most cases go to one long-lived host: random bodies, length 0, mutated and
random JSON requests, valid frames written in small pieces, pipelined frames.
Cases that must end the process (truncated header or body, 2^32-1 and other
oversize lengths, unframed bytes) each get a fresh host, two at a time.
Figures: cases, crashes, hangs over 1 s, stray stdout bytes, hello afterwards.
"""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from support.hostproc import HostProcess, host_env

from .figures import record
from .fuzzcases import body_case, ending_case
from .hostio import HEADER, MAX_OUT, Tally, crashed, parse_frames, well_formed_reply

pytestmark = pytest.mark.robustness

HANG_S = 1.0
STUCK_S = 30.0
HELLO_EVERY = 1000


class Stray(Exception):
    """Bytes on stdout that are not a JSON frame."""


def _read_reply(host: HostProcess, deadline_s: float) -> dict:
    (length,) = HEADER.unpack(host.read_exactly(4, deadline_s))
    if length > MAX_OUT:
        raise Stray(f"header announces {length} bytes")
    body = host.read_exactly(length, deadline_s)
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError:
        raise Stray(f"frame body is not JSON: {body[:60]!r}") from None


def _restart(host: HostProcess, env, tally: Tally, why: str) -> HostProcess:
    host.kill()
    err = host.proc.stderr.read() if host.proc.stderr else b""
    tally.note(f"{why}; exit {host.proc.returncode}; stderr {err[-300:]!r}")
    fresh = HostProcess(env)
    fresh.data("hello")
    return fresh


def run_long_lived(env, count: int, rng: random.Random, tally: Tally) -> bool:
    """Returns whether the host still answers hello and exits cleanly after all cases."""
    host = HostProcess(env)
    host.data("hello")
    for n in range(1, count + 1):
        case = body_case(rng)
        tally.cases += 1
        started = time.perf_counter()
        try:
            for piece in case.pieces:
                host.send_raw(piece)
                if case.pause:
                    time.sleep(0.001)
            for _ in range(case.replies):
                try:
                    reply = _read_reply(host, HANG_S)
                except TimeoutError:
                    reply = _read_reply(host, STUCK_S)  # late, still counted as a hang below
                if not well_formed_reply(reply):
                    tally.malformed_replies += 1
                    tally.note(f"{case.kind}: malformed reply {str(reply)[:200]}")
                elif not reply["ok"] and reply["error"]["code"] == "INTERNAL":
                    tally.internal_errors += 1
                    tally.note(f"{case.kind}: INTERNAL for {case.pieces[0][:120]!r}")
        except TimeoutError:
            tally.hangs += 1
            host = _restart(host, env, tally, f"{case.kind}: no reply in {STUCK_S}s")
            continue
        except Stray as exc:
            tally.stray_bytes += 1
            host = _restart(host, env, tally, f"{case.kind}: stray stdout: {exc}")
            continue
        except (EOFError, BrokenPipeError):
            tally.crashes += 1
            host = _restart(host, env, tally, f"{case.kind}: host died on {case.pieces[0][:120]!r}")
            continue
        elapsed = time.perf_counter() - started
        tally.slowest_s = max(tally.slowest_s, elapsed)
        if elapsed > HANG_S:
            tally.hangs += 1
            tally.note(f"{case.kind}: {elapsed:.2f}s for {case.pieces[0][:120]!r}")
        if n % HELLO_EVERY == 0 and not host.call("hello")["ok"]:
            tally.note(f"hello failed after case {n}")
    answers_hello = host.call("hello")["ok"] is True
    code, out, err = host.close()
    replies, stray = parse_frames(out)
    tally.stray_bytes += stray + sum(1 for r in replies if not well_formed_reply(r))
    if crashed(code, err):
        tally.crashes += 1
        tally.note(f"long-lived host exit {code}: {err[-300:]!r}")
    return answers_hello and code == 0


def run_ending(env, case) -> dict:
    """One fresh host: hello, then the case's bytes and end of input; the host must exit by itself."""
    host = HostProcess(env)
    outcome = {"kind": case.kind, "hello_before": host.call("hello", timeout=STUCK_S)["ok"]}
    try:
        host.send_raw(case.data)
    except BrokenPipeError:
        pass  # FRAME_TOO_LARGE: the host stops reading and exits, as documented
    try:
        host.proc.stdin.close()
    except BrokenPipeError:
        pass
    closed = time.perf_counter()
    try:
        host.proc.wait(timeout=STUCK_S)
    except Exception:
        host.kill()
    outcome["exit_s"] = time.perf_counter() - closed
    out, err = host.proc.stdout.read(), host.proc.stderr.read()
    replies, stray = parse_frames(out)
    codes = [r.get("error", {}).get("code") for r in replies if isinstance(r, dict)]
    replies_due, too_large, exit_due = case.expected()
    outcome.update(
        code=host.proc.returncode,
        stray=stray,
        crashed=crashed(host.proc.returncode, err),
        well_formed=all(well_formed_reply(r) for r in replies),
        codes=codes,
        as_expected=len(replies) == replies_due
        and host.proc.returncode == exit_due
        and (codes[-1:] == ["FRAME_TOO_LARGE"]) == too_large,
        stderr=err[-300:],
    )
    return outcome


def run_ending_cases(count: int, rng: random.Random, env, tally: Tally) -> int:
    """Returns how many processes answered hello before their case."""
    cases = [ending_case(rng) for _ in range(count)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda c: run_ending(env, c), cases))
    for o in outcomes:
        tally.cases += 1
        tally.crashes += o["crashed"]
        tally.stray_bytes += o["stray"]
        tally.malformed_replies += not o["well_formed"]
        tally.slowest_s = max(tally.slowest_s, o["exit_s"])
        if o["exit_s"] > HANG_S:
            tally.hangs += 1
        if o["crashed"] or o["stray"] or not o["as_expected"] or o["exit_s"] > HANG_S:
            tally.note(
                f"{o['kind']}: exit {o['code']} in {o['exit_s']:.2f}s, codes {o['codes']}, stderr {o['stderr']!r}"
            )
    unexpected = sum(not o["as_expected"] for o in outcomes)
    tally.malformed_replies += unexpected
    return sum(o["hello_before"] for o in outcomes)


def fuzz(tmp_path, label: str, long_lived: int, ending: int, seed: int) -> None:
    rng = random.Random(seed)
    env = host_env(tmp_path / "home")
    tally = Tally()
    started = time.perf_counter()
    hello_after = run_long_lived(env, long_lived, rng, tally)
    ready = run_ending_cases(ending, rng, env, tally)
    record(label, "cases", tally.cases, f">= {long_lived + ending}")
    record(label, "  of which process-ending (fresh hosts)", ending)
    record(label, "crashes", tally.crashes, "0")
    record(label, "hangs over 1 s", tally.hangs, "0")
    record(label, "slowest case (s)", round(tally.slowest_s, 3))
    record(label, "stray stdout bytes", tally.stray_bytes, "0")
    record(label, "malformed or unexpected replies", tally.malformed_replies, "0")
    record(label, "INTERNAL replies", tally.internal_errors, "0")
    record(label, "hello after the long-lived run", "yes" if hello_after else "NO", "yes")
    record(label, "run time (s)", round(time.perf_counter() - started, 1))
    for line in tally.notes:
        print(f"[robustness] {label}: note: {line}")
    assert ready == ending, "a fresh host did not answer hello"
    assert (
        tally.crashes,
        tally.hangs,
        tally.stray_bytes,
        tally.malformed_replies,
        tally.internal_errors,
    ) == (0, 0, 0, 0, 0), tally.notes
    assert hello_after


def test_framing_fuzz(tmp_path):
    fuzz(tmp_path, "framing fuzz", long_lived=10_000, ending=240, seed=20261130)


@pytest.mark.long
def test_framing_fuzz_long(tmp_path):
    fuzz(tmp_path, "framing fuzz (long)", long_lived=100_000, ending=2_400, seed=77)
