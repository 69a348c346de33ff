"""`mnemo import` of an official ChatGPT export of 2,000 conversations.

The export is generated from the real export and API conversations in
tests/fixtures (chatgpt_export, chatgpt_api): each copy gets new conversation
and message ids, shifted times and new user/assistant text, and keeps the
template's structure (branches, tool calls, browsing quotes, canvas, images).
Figures: conversations per second and the peak memory (VmHWM of the
`mnemo import` process). Floor: json.loads of the file plus one o200k_base
pass over its text.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import corpus
from benchlib import Figure, emit, fresh_home, timed, use_home

CONVERSATIONS = 2000
TEMPLATE_GLOBS = ("chatgpt_export/*.json", "chatgpt_api/**/*.json")


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


LARGE_BYTES = 234_000_000  # issue 15: the size of a large real export


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


def run_import(path: Path, env: dict[str, str], *flags: str) -> tuple[float, float, str]:
    """(seconds, peak MiB, last stdout line) of one `mnemo import` process.

    Peak memory is the process's own VmHWM, polled until it exits: ru_maxrss would also count
    this benchmark's memory, which Linux hands to a child at fork and keeps across exec."""
    argv = [sys.executable, "-m", "mnemosyne.cli.main", "import", str(path), *flags]
    out_path, err_path = path.with_suffix(".out"), path.with_suffix(".err")
    peak = 0.0
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        while proc.poll() is None:
            peak = max(peak, _vm_hwm_mib(proc.pid))
            time.sleep(0.02)
        elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mnemo import failed ({proc.returncode}): {err_path.read_text()[-2000:]}")
    return elapsed, peak, out_path.read_text().strip().splitlines()[-1]


def floor_seconds(path: Path) -> float:
    from mnemosyne.tokens import encoding

    enc = encoding("o200k_base")
    raw = path.read_bytes()
    data = json.loads(raw)
    out: list[str] = []
    corpus._strings(data, out)
    text = "\n".join(out)
    return timed(lambda: json.loads(raw)) + timed(lambda: enc.encode_ordinary(text))


def run() -> tuple[list[Figure], list[str]]:
    home = fresh_home("import")
    env = use_home(home)
    export = home / "conversations.json"
    conversations = build_export(export)
    floor = floor_seconds(export)
    seconds, peak, summary = run_import(export, env)
    created = int(re.search(r"imported (\d+)", summary).group(1))
    if created != len(conversations):
        raise RuntimeError(f"import created {created} of {len(conversations)}: {summary}")
    messages = sum(1 for c in conversations for n in c["mapping"].values() if n.get("message"))
    label = "json.loads + o200k pass"
    figures = [
        Figure(
            f"import {len(conversations):,}-conversation export (with token counts)",
            created / seconds,
            "conv/s",
            None,
            created / floor,
            label,
            extra={"seconds": seconds},
        ),
        Figure("import peak memory (VmHWM of mnemo import)", peak, "MB"),
    ]
    notes = [
        f"export {export.stat().st_size / 1e6:.1f} MB, {len(conversations)} conversations, {messages:,} nodes "
        f"with a message, from {len(templates())} fixture templates; import took {seconds:.1f} s: {summary}"
    ]
    export.unlink()
    del conversations
    large = home / "large" / "conversations.json"
    large.parent.mkdir()
    count = write_large_export(large)
    big_seconds, big_peak, big_summary = run_import(large, use_home(home / "large"))
    big_mb = large.stat().st_size / 1e6
    figures += [
        Figure(f"import {big_mb:.0f} MB export (with token counts)", count / big_seconds, "conv/s"),
        Figure(f"import peak memory, {big_mb:.0f} MB export (VmHWM of mnemo import)", big_peak, "MB", 300.0),
    ]
    notes.append(f"large export {big_mb:.0f} MB, {count:,} conversations: {big_seconds:.0f} s, {big_summary}")
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
