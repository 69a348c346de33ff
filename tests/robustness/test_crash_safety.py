"""SIGKILL the real host at random moments while it saves, then check the
archive from this process: integrity_check is ok, foreign keys hold, every
acknowledged save is there whole and no conversation is half-saved.

Each host gets a stream of saves (new conversations and longer captures of
earlier ones, written in random small pieces, at most two in flight) and is
killed at a random moment: during start-up, mid-frame or mid-transaction.
The invariants are asserted; throughput is a printed figure.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

from mnemosyne.archive import open_archive
from support.hostproc import HEADER, frame

from .figures import record
from .hostio import capture_payload

pytestmark = pytest.mark.robustness

MIN_KILLS = 50
MIN_ACKED = 500


def texts_for(key: str, count: int) -> list[str]:
    """The same key always gets the same turns, so a longer capture extends a shorter one."""
    rng = random.Random(key)
    words = [
        "archive",
        "crucible",
        "anneal",
        "kernel",
        "tide",
        "vector",
        "lattice",
        "ember",
        "quartz",
        "delta",
    ]
    return [
        f"{key} turn {i}: " + " ".join(rng.choice(words) for _ in range(rng.randrange(20, 120)))
        for i in range(count)
    ]


class Run:
    """One host process fed saves until it is killed."""

    def __init__(self, env, rng: random.Random, known: dict[str, int], tag: int):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mnemosyne.nativehost"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.rng, self.known, self.tag = rng, known, tag
        self.sent: dict[int, tuple[str, int]] = {}
        self.replies: list[dict] = []
        self.ended = False
        self.got = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        buf = b""
        fd = self.proc.stdout.fileno()
        while chunk := os.read(fd, 65536):
            buf += chunk
            while len(buf) >= 4 and len(buf) >= 4 + HEADER.unpack_from(buf)[0]:
                length = HEADER.unpack_from(buf)[0]
                reply = json.loads(buf[4 : 4 + length])
                buf = buf[4 + length :]
                with self.got:
                    self.replies.append(reply)
                    self.got.notify_all()
        with self.got:
            self.ended = True  # stdout closed: the host is gone
            self.got.notify_all()

    def _kill(self, kill_after: float, from_first_reply: bool) -> None:
        if from_first_reply:
            with self.got:
                self.got.wait_for(lambda: self.replies or self.ended, 120)
        threading.Event().wait(kill_after)  # the random kill moment under test, not a wait for a result
        self.proc.send_signal(signal.SIGKILL)

    def next_save(self, n: int) -> tuple[str, int]:
        if self.known and self.rng.random() < 0.35:
            key = self.rng.choice(sorted(self.known))
            return key, self.known[key] + self.rng.randrange(1, 20)
        return f"p{self.tag}n{n}", self.rng.randrange(2, 40)

    def feed(self, kill_after: float, from_first_reply: bool) -> None:
        """Send saves until the host is killed, `kill_after` seconds after start-up or after its first
        reply: the second keeps the kills landing among saves however slowly a loaded machine starts hosts."""
        timer = threading.Thread(target=self._kill, args=(kill_after, from_first_reply), daemon=True)
        timer.start()
        try:
            for n in range(10_000):
                key, turns = self.next_save(n)
                body = json.dumps(
                    {
                        "id": n,
                        "action": "save",
                        "kind": "capture",
                        "payload": capture_payload(key, f"Title {key}", texts_for(key, turns)),
                    }
                ).encode()
                self.sent[n] = (key, turns)
                data, pos = frame(body), 0
                while pos < len(data):
                    step = self.rng.choice([3, 64, 4096, len(data)])
                    self.proc.stdin.write(data[pos : pos + step])
                    self.proc.stdin.flush()
                    pos += step
                    if self.rng.random() < 0.05:
                        time.sleep(0.002)
                with self.got:  # at most two saves in flight
                    self.got.wait_for(lambda: len(self.replies) >= n - 1 or self.ended, 5)
                if self.ended:
                    break
        except (BrokenPipeError, OSError):
            pass
        finally:
            timer.join()
            self.proc.wait()
            self.reader.join(10)


def check_archive(acked: dict[str, tuple[str, int]], fresh: set[str]) -> tuple[bool, int, int]:
    """(database sound, acknowledged saves lost or short, half-saved conversations).

    Counts are compared in SQL for every conversation; documents are parsed for
    the conversations this run touched."""
    with open_archive() as arc:
        c = arc.conn
        sound = c.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        sound &= c.execute("PRAGMA foreign_key_check").fetchall() == []
        stored = dict(c.execute("SELECT id, message_count FROM conversations").fetchall())
        lost = 0
        for key, (conv_id, messages) in acked.items():
            if stored.get(conv_id, -1) < messages or (
                key in fresh and len(arc.get(conv_id).messages) != stored[conv_id]
            ):
                lost += 1
        # the host writes the search index after its reply: a conversation is indexed whole, or it is
        # pending (index_pending), its rows those of the messages a re-save kept (none for a new one), and
        # the next search indexes it whole
        whole_or_pending = """
            SELECT count(*) FROM conversations c
            LEFT JOIN (SELECT m.conversation_id AS cid, count(*) AS n, count(f.rowid) AS nf, count(t.rowid) AS nt
                       FROM messages m LEFT JOIN messages_fts f ON f.rowid = m.rowid
                       LEFT JOIN messages_tri t ON t.rowid = m.rowid GROUP BY m.conversation_id) AS k ON k.cid = c.id
            WHERE coalesce(k.n, 0) != c.message_count
               OR json_array_length(c.document, '$.messages') != c.message_count
               OR (c.id NOT IN (SELECT conversation_id FROM index_pending)
                   AND (coalesce(k.nf, 0) != c.message_count OR coalesce(k.nt, 0) != c.message_count))"""
        half = c.execute(whole_or_pending).fetchone()[0]
        arc.index_pending()  # what a search does first
        half += c.execute(whole_or_pending).fetchone()[0]
        half += c.execute("SELECT count(*) FROM index_pending").fetchone()[0]
        half += c.execute(
            "SELECT count(*) FROM messages_fts WHERE rowid NOT IN (SELECT rowid FROM messages)"
        ).fetchone()[0]
        half += c.execute(
            "SELECT count(*) FROM messages_tri WHERE rowid NOT IN (SELECT rowid FROM messages)"
        ).fetchone()[0]
    return sound, lost, half


def crash_run(env, monkeypatch, label: str, min_kills: int, min_acked: int, seed: int) -> None:
    for name in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(name, env[name])
    open_archive().close()  # the archive and its key exist before the first kill
    rng = random.Random(seed)
    known: dict[str, int] = {}
    acked: dict[str, tuple[str, int]] = {}
    saves = kills = in_flight = corrupt = lost = half = 0
    tag = 0
    started = time.monotonic()
    while (kills < min_kills or saves < min_acked) and kills < 20 * min_kills:
        tag += 1
        run = Run(env, rng, known, tag)
        from_first_reply = rng.random() < 0.8
        run.feed(
            kill_after=rng.uniform(0.0, 0.5) if from_first_reply else rng.uniform(0.0, 0.4),
            from_first_reply=from_first_reply,
        )
        kills += run.proc.returncode == -signal.SIGKILL
        replies = [r for r in run.replies if r.get("ok")]
        in_flight += len(run.sent) > len(run.replies)
        fresh = set()
        for reply in replies:
            key, turns = run.sent[reply["id"]]
            data = reply["data"]
            saves += 1
            fresh.add(key)
            known[key] = max(known.get(key, 0), turns)
            acked[key] = (data["conversation_id"], max(data["messages"], acked.get(key, ("", 0))[1]))
        sound, lost_now, half_now = check_archive(acked, fresh)
        corrupt += not sound
        lost += lost_now
        half += half_now
    elapsed = time.monotonic() - started
    record(label, "acknowledged saves", saves, f">= {min_acked}")
    record(label, "throughput (acknowledged saves/s, incl. host start-ups)", round(saves / elapsed, 1))
    record(label, "kills (SIGKILL)", kills, f">= {min_kills}")
    record(label, "kills with a save in flight", in_flight)
    record(label, "conversations in the archive", len(acked))
    record(label, "corrupt databases", corrupt, "0")
    record(label, "lost acknowledged saves", lost, "0")
    record(label, "half-saved conversations", half, "0")
    # the invariants; how many saves a loaded machine manages is the printed figure above
    assert (corrupt, lost, half) == (0, 0, 0)
    assert kills >= min_kills and in_flight > 0 and saves > 0  # kills really landed among saves


def test_crash_safety(env, monkeypatch):
    crash_run(env, monkeypatch, "crash safety", MIN_KILLS, MIN_ACKED, seed=5)


@pytest.mark.long
def test_crash_safety_long(env, monkeypatch):
    crash_run(env, monkeypatch, "crash safety (long)", 10 * MIN_KILLS, 10 * MIN_ACKED, seed=55)
