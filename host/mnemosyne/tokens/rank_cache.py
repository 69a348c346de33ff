"""A cache of a tiktoken encoding's decoded ranks, so a new process loads o200k in a fraction of the time.

tiktoken's own load reads the .tiktoken file and base64-decodes 200k lines one by one (about half of the
0.8 s a cold `mnemo context` spent on the tokenizer). This file holds the same ranks already decoded,
grouped so a load is one slice per group and no parsing:

    b"mnemosyne-ranks\\n"  b"sha256 " hex digest b"\\n"  one line of JSON (the header) b"\\n"  payload

The digest covers everything after its line (the header says how the payload is cut and which letters a
token holds, so a damaged header would give wrong tokens as surely as a damaged payload). The header
names the format version, the encoding, the pinned sha256 of the official file the ranks came from, the
tiktoken version, the key sizes, the regex and special tokens and the (length, count, leads, span)
groups. A group's tokens share a length, `leads` (null for tokens of ASCII bytes only, else the UTF-8
lead bytes, 0xC0 and up, they hold) and `span` (where their longest run of ASCII letters is, or null).
The payload is, per group: count*length bytes of tokens; count little-endian uint32 ranks; for a group
with a span, each token's letter keys (letter_keys), which token_subset checks against a text's words to
leave out the tokens the text cannot use.
Data only: JSON and raw bytes, never pickle. Any mismatch (version, hash, truncation) means "no cache":
the caller builds the encoding the stock way from the verified file and writes a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import sys
from array import array
from pathlib import Path
from typing import Any

MAGIC = b"mnemosyne-ranks\n"
DIGEST = b"sha256 "
# 2: groups by length and lead bytes; 3: and by the span of the tokens' longest run of ASCII letters, with
# its letter keys, and the digest over the header too
FORMAT = 3
START = 8  # letters in the key of a run that begins a word (a uint64)
GRAM = 4  # letters in the keys of any other run (uint32s)


def file_name(encoding: str) -> str:
    """The cache's file name: one per format, so processes of two versions sharing a folder (a CLI and
    an older host, say) do not keep replacing each other's file."""
    return f"{encoding}.v{FORMAT}.ranks"


def _tiktoken_version() -> str:
    import tiktoken  # (loaded by the caller already; imported here to read its version only)

    return str(getattr(tiktoken, "__version__", "unknown"))


def letter_key(letters: bytes) -> int:
    """Up to 8 bytes as one number, little-endian: a key's first k bytes are its k lowest."""
    return int.from_bytes(letters, "little")


def letter_keys(token: bytes, span: tuple[int, int]) -> list[int]:
    """The keys a token's letter run is checked with. A run with a non-letter before it begins a word
    (in any text holding the token): its first START letters. Any other run lies in a word: its first
    GRAM letters and, when longer, its last GRAM."""
    start, end = span
    if start > 0:
        return [letter_key(token[start : min(end, start + START)])]
    keys = [letter_key(token[start : min(end, start + GRAM)])]
    return keys if end - start <= GRAM else [*keys, letter_key(token[end - GRAM : end])]


class Group:
    """Tokens of one length, lead bytes and letter span: their ranks and letter keys are cut from the
    payload when asked for (an encoder for an English text never reads most groups of other scripts)."""

    def __init__(self, payload: memoryview, pos: int, length: int, count: int, leads: Any, span: Any):
        if length <= 0 or count < 0 or (span is not None and not 0 <= span[0] < span[1] <= length):
            raise ValueError("a group that cannot be")
        self.length = length
        self.count = count
        self.leads = None if leads is None else frozenset(map(int, leads))  # None: ASCII only
        self.span = None if span is None else (int(span[0]), int(span[1]))  # None: no letter
        self._payload = payload
        self._pos = pos
        begins_word = self.span is not None and self.span[0] > 0
        run = 0 if self.span is None else self.span[1] - self.span[0]
        self.keys = 0 if self.span is None else 1 if begins_word or run <= GRAM else 2  # (as letter_keys)
        self._key_size = 8 if begins_word else 4
        self.end = pos + count * (length + 4 + self.keys * self._key_size)
        if self.end > len(payload):
            raise ValueError("groups run past the payload")

    def tokens(self) -> tuple[bytes, ...]:
        # one struct call cuts a group into its tokens (C, not a Python loop: a third less of the load)
        return struct.unpack_from(f"{self.length}s" * self.count, self._payload, self._pos)

    def ranks(self) -> array[int]:
        start = self._pos + self.count * self.length
        return _numbers("I", self._payload[start : start + 4 * self.count])

    def letter_keys(self, i: int) -> array[int]:
        """The tokens' i-th letter keys, in token order."""
        size = self.count * self._key_size
        start = self._pos + self.count * (self.length + 4) + i * size
        return _numbers("Q" if self._key_size == 8 else "I", self._payload[start : start + size])


def _numbers(code: str, data: memoryview) -> array[int]:
    numbers = array(code)
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


class Vocabulary:
    """One encoding's ranks as the cache holds them, in groups."""

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
        for g in self.groups:
            ranks.update(zip(g.tokens(), g.ranks()))
        return ranks


_LETTERS = re.compile(rb"[A-Za-z]+")


def letter_span(token: bytes) -> tuple[int, int] | None:
    """Where the token's longest run of ASCII letters is (the first of equally long ones), or None."""
    best: tuple[int, int] | None = None
    for m in _LETTERS.finditer(token):
        if best is None or m.end() - m.start() > best[1] - best[0]:
            best = m.span()
    return best


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
    digest_end = data.find(b"\n", len(MAGIC))
    if not data.startswith(MAGIC + DIGEST) or digest_end < 0:
        return None
    body = memoryview(data)[digest_end + 1 :]
    if hashlib.sha256(body).hexdigest().encode() != data[len(MAGIC) + len(DIGEST) : digest_end]:
        return None
    end = data.find(b"\n", digest_end + 1)
    try:
        head = json.loads(data[digest_end + 1 : end])
    except ValueError:
        return None
    expected = (FORMAT, name, source_sha256, _tiktoken_version(), [START, GRAM])
    fields = ("format", "encoding", "source_sha256", "tiktoken", "keys")
    if not isinstance(head, dict) or tuple(map(head.get, fields)) != expected:
        return None
    try:
        groups = _groups(memoryview(data)[end + 1 :], head["groups"])
    except (ValueError, TypeError, KeyError, IndexError):  # groups that do not fit the payload
        return None
    return Vocabulary(name, head["pat_str"], head["special_tokens"], groups)


def _groups(payload: memoryview, groups: list[list[Any]]) -> list[Group]:
    out: list[Group] = []
    pos = 0
    for length, count, leads, span in groups:
        out.append(Group(payload, pos, int(length), int(count), leads, span))
        pos = out[-1].end
    if pos != len(payload):
        raise ValueError("the groups do not cover the payload")
    return out


def save(path: Path, kwargs: dict[str, Any], source_sha256: str) -> None:
    """Write the cache for an encoding built the stock way; atomic, so a kill never leaves half a file."""
    Key = tuple[int, tuple[int, ...] | None, tuple[int, int] | None]
    by_key: dict[Key, list[tuple[bytes, int]]] = {}
    for token, rank in kwargs["mergeable_ranks"].items():
        leads = None if token.isascii() else tuple(sorted({b for b in token if b >= 0xC0}))
        by_key.setdefault((len(token), leads, letter_span(token)), []).append((token, rank))
    chunks: list[bytes] = []
    groups: list[list[Any]] = []
    order = sorted(by_key, key=lambda k: (k[0], k[1] is not None, k[1] or (), k[2] is not None, k[2] or ()))
    for length, leads, span in order:
        items = by_key[length, leads, span]
        columns = [array("I", [rank for _, rank in items])]
        if span is not None:
            code = "Q" if span[0] > 0 else "I"
            columns += map(lambda keys: array(code, keys), zip(*(letter_keys(t, span) for t, _ in items)))
        if sys.byteorder != "little":
            for column in columns:
                column.byteswap()
        chunks += [b"".join(token for token, _ in items), *(c.tobytes() for c in columns)]
        groups.append([length, len(items), None if leads is None else list(leads), span and list(span)])
    head = {
        "format": FORMAT,
        "encoding": kwargs["name"],
        "source_sha256": source_sha256,
        "tiktoken": _tiktoken_version(),
        "keys": [START, GRAM],
        "pat_str": kwargs["pat_str"],
        "special_tokens": kwargs["special_tokens"],
        "groups": groups,
    }
    body = json.dumps(head, ensure_ascii=True).encode() + b"\n" + b"".join(chunks)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + DIGEST + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        os.replace(tmp, path)  # no fsync: a file torn by a power cut fails its checksum and is rebuilt
    finally:
        tmp.unlink(missing_ok=True)
