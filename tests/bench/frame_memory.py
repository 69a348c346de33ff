"""Peak memory and time of the largest frame the host accepts (host/PROTOCOL.md Framing: 64 MiB inbound).

A realistic `save`: the largest real fixture conversation (gpt-4o with browsing quotes, python and canvas
nodes), its active path repeated with fresh ids until the frame is just under the limit. One fresh host per
run: `hello`, then the frame; VmHWM (/proc/<pid>/status) after `hello` and after the save's reply.
Floors, measured in the same run: the frame's own bytes (memory) and `json.loads` of those bytes (time).
"""

from __future__ import annotations

import copy
import json
import struct

import corpus
from benchlib import BenchHost, Figure, emit, fresh_home, median, timed, use_home
from save_bench import save_request

from mnemosyne.nativehost.framing import MAX_IN

RUNS = 3
HEADROOM = 256 * 1024  # the frame stays this far under MAX_IN
MIB = 1024 * 1024


def request_bytes(request: dict) -> bytes:
    return json.dumps({"id": 2, **request}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def largest_save(limit: int = MAX_IN - HEADROOM) -> bytes:
    """A save request of a real conversation padded with its own turns (fresh ids) to just under `limit`."""
    base = corpus.large_fixture_conversation(min_bytes=1)
    mapping = base["mapping"]
    path, node_id = [], base["current_node"]
    while node_id is not None:
        path.append(node_id)
        node_id = mapping[node_id]["parent"]
    turns = [mapping[n] for n in reversed(path) if mapping[n].get("message")]
    size = len(request_bytes(save_request(base)))
    previous, round_no = base["current_node"], 0
    while True:
        for turn in turns:
            node = copy.deepcopy(turn)
            new_id = f"{turn['id']}-p{round_no}"
            node.update(id=new_id, parent=previous, children=[])
            node["message"]["id"] = new_id
            cost = (
                len(json.dumps({new_id: node}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) + 1
            )
            if size + cost + len(new_id) * 2 > limit:
                base["current_node"] = previous
                data = request_bytes(save_request(base))
                assert len(data) <= limit, len(data)
                return data
            mapping[previous]["children"] = [new_id]
            mapping[new_id] = node
            size += cost + len(new_id) * 2  # the parent's new children entry
            previous = new_id
        round_no += 1


def one_run(data: bytes) -> tuple[float, float, float, float]:
    """(seconds to the save's reply, seconds until indexed, VmHWM after hello, VmHWM at the end; MiB) in a
    fresh host. The host writes the search index after its reply; a `hello` is answered once that is done."""
    host = BenchHost(use_home(fresh_home("frame")))
    try:
        host.timed_call({"action": "hello"})
        before = host.peak_mib() or 0.0
        replies: list[dict] = []
        reply_seconds = timed(
            lambda: (host.send_raw(struct.pack("<I", len(data)) + data), replies.append(host.recv(600)))
        )
        if not replies[0].get("ok"):
            raise RuntimeError(f"the save failed: {replies[0].get('error')}")
        indexed_seconds = reply_seconds + host.timed_call({"action": "hello"}, timeout=600)[0]
        peak = host.peak_mib() or 0.0
        host.close(timeout=120)
    finally:
        host.kill()
    return reply_seconds, indexed_seconds, before, peak


def run() -> tuple[list[Figure], list[str]]:
    data = largest_save()
    frame_mib = len(data) / MIB
    messages = json.loads(data)["payload"]["mapping"]
    runs = [one_run(data) for _ in range(RUNS)]
    floors = [timed(lambda: json.loads(data)) for _ in range(RUNS)]
    seconds = [r[0] for r in runs]
    indexed = [r[1] for r in runs]
    peaks = [r[3] for r in runs]
    growth = [r[3] - r[2] for r in runs]
    figures = [
        Figure(
            f"save of the largest accepted frame ({frame_mib:.1f} MiB), round trip",
            median(seconds),
            "s",
            floor=median(floors),
            floor_label="json.loads of the frame",
        ),
        Figure(
            "the same save until its search index is written (a `hello` answered after it)",
            median(indexed),
            "s",
            floor=median(floors),
            floor_label="json.loads of the frame",
        ),
        Figure(
            "host peak memory for that save and its indexing (VmHWM)",
            median(peaks),
            "MB",
            floor=frame_mib,
            floor_label="the frame's bytes",
        ),
        Figure(
            "host memory growth for that save (VmHWM after - after hello)",
            median(growth),
            "MB",
            floor=frame_mib,
            floor_label="the frame's bytes",
        ),
    ]
    notes = [
        f"frame {len(data):,} bytes of {MAX_IN:,} accepted, {len(messages):,} tree nodes; {RUNS} fresh hosts",
        "per run (s to reply, s to indexed, MiB after hello, MiB peak): "
        + ", ".join(f"({r:.1f}, {i:.1f}, {b:.0f}, {p:.0f})" for r, i, b, p in runs),
    ]
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
