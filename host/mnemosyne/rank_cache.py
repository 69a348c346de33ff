"""A cache of a tiktoken encoding's decoded ranks, so a new process loads o200k in a fraction of the time.

tiktoken's own load reads the .tiktoken file and base64-decodes 200k lines one by one (about half of the
0.8 s a cold `mnemo context` spent on the tokenizer). This file holds the same ranks already decoded,
grouped by token length so a load is one slice per token and no parsing:

    b"mnemosyne-ranks\\n"  one line of JSON (the header)  payload

The header names the format version, the encoding, the pinned sha256 of the official file the ranks came
from, the tiktoken version, the regex and special tokens, the (length, count, leads) groups and the
payload's sha256. The payload is, per group, count*length bytes of tokens, then count little-endian
uint32 ranks. A group's tokens share a length and `leads`: null for tokens of ASCII bytes only, else the
UTF-8 lead bytes (0xC0 and up) the tokens hold, so an encoder for a text can skip the groups of scripts
the text does not use (token_subset).
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
from itertools import compress
from operator import methodcaller, not_
from pathlib import Path
from typing import Any

MAGIC = b"mnemosyne-ranks\n"
FORMAT = 2  # 2: groups by length and lead bytes


def _tiktoken_version() -> str:
    import tiktoken

    return str(getattr(tiktoken, "__version__", "unknown"))


class Vocabulary:
    """One encoding's ranks as the cache holds them: per token length and lead bytes, tokens and ranks."""

    def __init__(self, name: str, pat_str: str, special_tokens: dict[str, int], groups: list[Group]):
        self.name = name
        self.pat_str = pat_str
        self.special_tokens = special_tokens
        self.groups = groups

    def kwargs(self, ranks: dict[bytes, int]) -> dict[str, Any]:
        """tiktoken Encoding keyword arguments with these ranks."""
        return {
            "name": self.name,
            "pat_str": self.pat_str,
            "mergeable_ranks": ranks,
            "special_tokens": self.special_tokens,
        }

    def mergeable_ranks(self) -> dict[bytes, int]:
        """The whole table."""
        ranks: dict[bytes, int] = {}
        for tokens, numbers, _ in self.groups:
            ranks.update(zip(tokens, numbers))
        return ranks

    def ranks_within(self, allowed: bytes) -> dict[bytes, int]:
        """The tokens made of ASCII and `allowed` bytes only."""
        keep = methodcaller("translate", None, _ASCII + allowed)
        allowed_leads = frozenset(b for b in allowed if b >= 0xC0)
        ranks: dict[bytes, int] = {}
        for tokens, numbers, leads in self.groups:
            if leads is None:
                ranks.update(zip(tokens, numbers))
            elif leads <= allowed_leads:
                mask = list(map(not_, map(keep, tokens)))  # nothing left once the allowed bytes are deleted
                ranks.update(zip(compress(tokens, mask), compress(numbers, mask)))
        return ranks


_ASCII = bytes(range(128))
Group = tuple[tuple[bytes, ...], array, "frozenset[int] | None"]  # tokens, their ranks, their lead bytes


def load(path: Path, name: str, source_sha256: str) -> dict[str, Any] | None:
    """Encoding keyword arguments (name, pat_str, mergeable_ranks, special_tokens), or None if unusable."""
    vocab = load_vocabulary(path, name, source_sha256)
    return None if vocab is None else vocab.kwargs(vocab.mergeable_ranks())


def load_vocabulary(path: Path, name: str, source_sha256: str) -> Vocabulary | None:
    """The cached ranks of `name`, or None if the file is missing, damaged or from another version."""
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
        groups = _groups(payload, head["groups"])
    except (struct.error, ValueError, TypeError, KeyError):  # groups that do not fit the payload
        return None
    return Vocabulary(name, head["pat_str"], head["special_tokens"], groups)


def _groups(payload: memoryview, groups: list[list[Any]]) -> list[Group]:
    out: list[Group] = []
    pos = 0
    for length, count, leads in groups:
        size = length * count
        if pos + size + 4 * count > len(payload):
            raise ValueError("groups run past the payload")
        # one struct call cuts a group into its tokens (C, not a Python loop: a third less of the load)
        tokens = struct.unpack_from(f"{length}s" * count, payload, pos)
        numbers = array("I")
        numbers.frombytes(payload[pos + size : pos + size + 4 * count])
        if sys.byteorder != "little":
            numbers.byteswap()
        out.append((tokens, numbers, None if leads is None else frozenset(map(int, leads))))
        pos += size + 4 * count
    return out


def save(path: Path, kwargs: dict[str, Any], source_sha256: str) -> None:
    """Write the cache for an encoding built the stock way; atomic, so a kill never leaves half a file."""
    by_key: dict[tuple[int, tuple[int, ...] | None], list[tuple[bytes, int]]] = {}
    for token, rank in kwargs["mergeable_ranks"].items():
        leads = None if token.isascii() else tuple(sorted({b for b in token if b >= 0xC0}))
        by_key.setdefault((len(token), leads), []).append((token, rank))
    chunks: list[bytes] = []
    groups: list[list[Any]] = []
    for length, leads in sorted(by_key, key=lambda k: (k[0], k[1] is not None, k[1] or ())):
        items = by_key[length, leads]
        numbers = array("I", [rank for _, rank in items])
        if sys.byteorder != "little":
            numbers.byteswap()
        chunks += [b"".join(token for token, _ in items), numbers.tobytes()]
        groups.append([length, len(items), None if leads is None else list(leads)])
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
