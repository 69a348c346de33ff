"""Stable, short conversation ids: the same source conversation always gets the
same id, so saving it again updates one entry instead of adding another."""

from __future__ import annotations

import base64
import hashlib

ID_LENGTH = 12  # base32 characters: 60 bits, short enough to type


def conversation_id(site: str, source_id: str | None, fallback: bytes | str = b"") -> str:
    """Derive the Mnemosyne id from the site and the site's own conversation id.

    Inputs without a source id (a bare message list) are identified by a hash
    of their content (`fallback`), which is still stable for the same input.
    """
    if source_id:
        key = f"{site}\x00{source_id}".encode()
    else:
        raw = fallback.encode() if isinstance(fallback, str) else fallback
        key = b"content\x00" + site.encode() + b"\x00" + hashlib.sha256(raw).digest()
    digest = hashlib.sha256(key).digest()
    # base32 spells each 5 bytes as 8 characters on their own: the first 10 bytes give the first 16 (and
    # base64.b32encode is a Python loop over 5-byte groups, 7 of them for the whole digest)
    return base64.b32encode(digest[:10]).decode("ascii").lower()[:ID_LENGTH]


def sha256_hex(data: bytes | str) -> str:
    return hashlib.sha256(
        data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    ).hexdigest()
