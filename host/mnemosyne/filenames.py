"""Safe file names for written conversations (`mnemo convert`, `mnemo export`).

Titles come from pages and files we do not control (withExEditorHost#14: a
page title became `../../…`). A name is the slug of the title, a dash, the
conversation id and the extension. The slug keeps letters and digits of every
script (a Korean or Chinese title stays readable), folds Latin accents and
full-width forms to ASCII, and turns everything else into dashes: no
separators, dots, NUL, control, bidi or other format characters survive, never
a reserved Windows device name, never more than 255 bytes, and the final path
is checked to resolve inside the output folder.
"""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
from pathlib import Path

from .errors import InputError

SLUG_MAX = 80
NAME_MAX_BYTES = 255
UNTITLED = "untitled"
_DASHES = re.compile(r"-{2,}")
_SAFE_ID = re.compile(r"[a-z0-9]{1,64}")
_SAFE_EXTENSION = re.compile(r"\.[a-z0-9]{1,10}")
# Device names Windows reserves with any extension (CON.txt is still CON).
WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{dev}{n}" for dev in ("COM", "LPT") for n in (*"123456789", "¹", "²", "³")]
)


def _slug_char(ch: str) -> str:
    """A character's part of a slug: its ASCII letters/digits when it folds to them (é, Ａ), itself when it
    is a letter or digit of another script (한, 日, が), else a dash."""
    if ch.isascii():  # most titles: no folding to look up
        return ch.lower() if ch.isalnum() else "-"
    folded = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii").lower()
    if folded and folded.isalnum():
        return folded
    if unicodedata.category(ch)[0] in "LNM" and not ch.isascii():  # M: vowel signs (हिन्दी) stay
        return ch.lower()
    return "-"


def slug(text: str | None, max_length: int = SLUG_MAX, max_bytes: int = NAME_MAX_BYTES) -> str:
    """Lower-case letters and digits of any script, runs of anything else one dash; at most `max_length`
    characters and `max_bytes` UTF-8 bytes."""
    joined = "".join(_slug_char(ch) for ch in unicodedata.normalize("NFC", text or ""))
    cut = _DASHES.sub("-", joined).strip("-")[:max_length]
    while len(cut.encode("utf-8")) > max_bytes:
        cut = cut[:-1]
    return cut.rstrip("-")


def safe_id(conv_id: str) -> str:
    """Mnemosyne ids are already [a-z0-9]; anything else (a hostile document) is hashed."""
    if _SAFE_ID.fullmatch(conv_id):
        return conv_id
    digest = hashlib.sha256(conv_id.encode("utf-8", "surrogatepass")).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:12]


def is_reserved(name: str) -> bool:
    return name.split(".", 1)[0].rstrip(" ").upper() in WINDOWS_RESERVED


def conversation_filename(title: str | None, conv_id: str, extension: str) -> str:
    """`<slug of title>-<id><extension>`, for example `fix-my-bike-k3j9x2m4q7ab.md`."""
    if not _SAFE_EXTENSION.fullmatch(extension):
        raise ValueError(f"unsafe extension {extension!r}")
    ident = safe_id(conv_id)
    room = NAME_MAX_BYTES - len(ident) - len(extension) - 1
    stem = f"{slug(title, SLUG_MAX, room) or UNTITLED}-{ident}"
    return ("_" + stem if is_reserved(stem) else stem) + extension


def attachment_filename(name: str | None, digest: str) -> str:
    """A held attachment's file name beside its conversation: the slug of its name with its extension
    (lower-case letters and digits only), or the start of its SHA-256 when the name has nothing usable."""
    stem, dot, ext = (name or "").rpartition(".")
    extension = "." + ext.lower() if dot and _SAFE_EXTENSION.fullmatch("." + ext.lower()) else ""
    if not extension:
        stem = name or ""
    base = slug(stem, SLUG_MAX, NAME_MAX_BYTES - len(extension) - 8) or digest[:12]
    candidate = base + extension
    return "_" + candidate if is_reserved(candidate) else candidate


def unique_name(name: str, used: set[str]) -> str:
    """`name`, or `name-2`, `name-3`… when the same conversation comes twice (case-insensitively)."""
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    candidate, n = name, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{stem}-{n}{dot}{ext}"
    used.add(candidate.lower())
    return candidate


def path_inside(folder: Path, name: str, base: Path | None = None) -> Path:
    """The path of `name` in `folder`, refused if it would resolve anywhere else (`base`: the folder
    already resolved, when many names go into it)."""
    base = base or folder.resolve()
    target = base / name
    if name not in ("", ".", "..") and not any(c in name for c in "/\\\0") and not target.is_symlink():
        return target  # one plain name in a resolved folder, no link: it resolves to itself (one lstat)
    target = target.resolve()
    if target.parent != base:
        raise InputError(f"{name!r}: refusing to write outside {base}")
    return target
