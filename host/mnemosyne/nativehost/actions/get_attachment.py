"""get-attachment: a held attachment's bytes, base64, in pages under the 1 MiB reply limit (like `get`)."""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING, Any

from ...archive import attachments
from ...errors import InputError
from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession

RAW_CHUNK = 672 * 1024  # 896 KiB of base64 per page: room for the envelope inside 1 MiB
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _cursor(offset: int, digest: str) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{digest[:16]}".encode()).decode().rstrip("=")


def _offset(cursor: str, digest: str, size: int) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        offset_text, wanted = raw.split(":", 1)
        offset = int(offset_text)
    except (ValueError, UnicodeDecodeError):
        offset, wanted = -1, ""
    if wanted != digest[:16] or not 0 <= offset <= size:
        raise InputError("cursor is not one this host issued for this attachment", code="BAD_CURSOR")
    return offset


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    digest = p.string(params, "sha256", max_len=64).lower()
    if not _SHA256.fullmatch(digest):
        raise p.BadRequest("sha256 must be 64 hexadecimal digits")
    cursor = p.string(params, "cursor", default=None, max_len=200)
    conn = session.archive().conn
    info = attachments.meta(conn, digest)
    offset = _offset(cursor, digest, info["bytes"]) if cursor else 0
    chunk = attachments.read(conn, digest, offset, RAW_CHUNK)
    end = offset + len(chunk)
    return {
        **info,
        "chunk": base64.b64encode(chunk).decode("ascii"),
        "next_cursor": _cursor(end, digest) if end < info["bytes"] else None,
    }
