"""A cache of a tiktoken encoding's decoded ranks, so a new process loads o200k in a fraction of the time.

tiktoken's own load reads the .tiktoken file and base64-decodes 200k lines one by one (about half of the
0.8 s a cold `mnemo context` spent on the tokenizer). This file holds the same ranks already decoded,
grouped by token length so a load is one slice per token and no parsing:

    b"mnemosyne-ranks\\n"  one line of JSON (the header)  payload

The header names the format version, the encoding, the pinned sha256 of the official file the ranks came
from, the tiktoken version, the regex and special tokens, the (length, count) groups and the payload's
sha256. The payload is, per group, count*length bytes of tokens, then count little-endian uint32 ranks.
Data only: JSON and raw bytes, never pickle. Any mismatch (version, hash, truncation) means "no cache":
the caller builds the encoding the stock way from the verified file and writes a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
from array import array
from pathlib import Path
from typing import Any

MAGIC = b"mnemosyne-ranks\n"
FORMAT = 1


def _tiktoken_version() -> str:
    import tiktoken

    return str(getattr(tiktoken, "__version__", "unknown"))


def load(path: Path, name: str, source_sha256: str) -> dict[str, Any] | None:
    """Encoding keyword arguments (name, pat_str, mergeable_ranks, special_tokens), or None if unusable."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    end = data.find(b"\n", len(MAGIC))
    try:
        head = json.loads(data[len(MAGIC) : end])
    except ValueError:
        return None
    payload = memoryview(data)[end + 1 :]
    expected = (FORMAT, name, source_sha256, _tiktoken_version())
    if (
        head.get("format"),
        head.get("encoding"),
        head.get("source_sha256"),
        head.get("tiktoken"),
    ) != expected:
        return None
    if hashlib.sha256(payload).hexdigest() != head.get("payload_sha256"):
        return None
    try:
        ranks = _ranks(payload, head["groups"])
    except (struct.error, ValueError, TypeError, KeyError):  # groups that do not fit the payload
        return None
    return {
        "name": name,
        "pat_str": head["pat_str"],
        "mergeable_ranks": ranks,
        "special_tokens": head["special_tokens"],
    }


def _ranks(payload: memoryview, groups: list[list[int]]) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    pos = 0
    for length, count in groups:
        size = length * count
        if pos + size + 4 * count > len(payload):
            raise ValueError("groups run past the payload")
        # one struct call cuts a group into its tokens (C, not a Python loop: a third less of the load)
        group = struct.unpack_from(f"{length}s" * count, payload, pos)
        numbers = array("I")
        numbers.frombytes(payload[pos + size : pos + size + 4 * count])
        if sys.byteorder != "little":
            numbers.byteswap()
        ranks.update(zip(group, numbers))
        pos += size + 4 * count
    return ranks


def save(path: Path, kwargs: dict[str, Any], source_sha256: str) -> None:
    """Write the cache for an encoding built the stock way; atomic, so a kill never leaves half a file."""
    by_length: dict[int, list[tuple[bytes, int]]] = {}
    for token, rank in kwargs["mergeable_ranks"].items():
        by_length.setdefault(len(token), []).append((token, rank))
    chunks, groups = [], []
    for length in sorted(by_length):
        items = by_length[length]
        numbers = array("I", [rank for _, rank in items])
        if sys.byteorder != "little":
            numbers.byteswap()
        chunks += [b"".join(token for token, _ in items), numbers.tobytes()]
        groups.append([length, len(items)])
    payload = b"".join(chunks)
    head = {
        "format": FORMAT,
        "encoding": kwargs["name"],
        "source_sha256": source_sha256,
        "tiktoken": _tiktoken_version(),
        "pat_str": kwargs["pat_str"],
        "special_tokens": kwargs["special_tokens"],
        "groups": groups,
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + json.dumps(head, ensure_ascii=True).encode() + b"\n" + payload)
        os.replace(tmp, path)  # no fsync: a file torn by a power cut fails its checksum and is rebuilt
    finally:
        tmp.unlink(missing_ok=True)
