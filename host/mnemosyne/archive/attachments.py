"""Attachment bytes inside the encrypted archive (migration m008_attachment_blobs).

A blob is stored once per SHA-256, whoever sent it. A link ties it to a site conversation's attachment by the
site's file id or asset pointer (`file-abc`, `file-service://file-abc`, `sediment://file_00ab`, a Claude file
uuid), so it survives re-saves of that conversation and may arrive before the conversation itself. Reading a
conversation back puts `sha256` and `bytes` on each attachment part the archive holds (annotate)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import MnemosyneError, NotFoundError
from .db import Connection, Transaction

# Imports inside functions: the model (it loads pydantic: storing or reading a file's bytes, the
# save_attachment and get_attachment actions, needs none of it).
if TYPE_CHECKING:
    from ..model import Conversation

MAX_BYTES = 32 * 1024 * 1024  # decoded; the extension applies the user's smaller cap first
POINTER_SCHEMES = ("file-service://", "sediment://")


class AttachmentTooLarge(MnemosyneError):
    code = "ATTACHMENT_TOO_LARGE"


def pointer_key(pointer: str) -> str:
    """`file-service://file-abc` and `file-abc` name the same file."""
    for scheme in POINTER_SCHEMES:
        if pointer.startswith(scheme):
            return pointer[len(scheme) :]
    return pointer


def _now() -> str:
    from ..model import format_time  # (see the imports)

    return format_time(datetime.now(timezone.utc))


def _document_pointers(document: str) -> set[str]:
    """Every attachment pointer a stored conversation names (plain JSON walk: no model validation)."""
    found: set[str] = set()
    for msg in json.loads(document).get("messages", []):
        for part in msg.get("parts", []):
            if part.get("type") == "attachment" and part.get("asset_pointer"):
                found.add(pointer_key(part["asset_pointer"]))
    return found


def store(
    conn: Connection, site: str, source_id: str, file_id: str, name: str | None, mime: str | None, data: bytes
) -> dict[str, Any]:
    """Keep `data` (once per SHA-256) and link it to (site, source_id, file_id); one transaction."""
    if len(data) > MAX_BYTES:
        raise AttachmentTooLarge(f"the attachment is {len(data)} bytes; the host keeps at most {MAX_BYTES}")
    digest = hashlib.sha256(data).hexdigest()
    now = _now()
    with Transaction(conn) as c:
        held = c.execute("SELECT 1 FROM attachment_blobs WHERE sha256 = ?", (digest,)).fetchone()
        if not held:
            c.execute(
                "INSERT INTO attachment_blobs (sha256, bytes, name, mime, data, created_at) VALUES (?,?,?,?,?,?)",
                (digest, len(data), name, mime, data, now),
            )
        c.execute(
            "INSERT OR REPLACE INTO attachment_links (site, source_id, file_id, sha256, name, mime, saved_at)"
            " VALUES (?,?,?,?,?,?,?)",
            (site, source_id, pointer_key(file_id), digest, name, mime, now),
        )
        row = c.execute(
            "SELECT document FROM conversations WHERE site = ? AND source_id = ?", (site, source_id)
        ).fetchone()
    linked = row is not None and pointer_key(file_id) in _document_pointers(row[0])
    return {
        "sha256": digest,
        "bytes": len(data),
        "status": "unchanged" if held else "created",
        "linked": linked,
    }


def meta(conn: Connection, digest: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT b.bytes, coalesce(l.name, b.name), coalesce(l.mime, b.mime) FROM attachment_blobs b"
        " LEFT JOIN attachment_links l ON l.sha256 = b.sha256 WHERE b.sha256 = ? LIMIT 1",
        (digest,),
    ).fetchone()
    if row is None:
        raise NotFoundError(f"no attachment {digest[:64]!r} in the archive")
    return {"sha256": digest, "bytes": row[0], "name": row[1], "mime": row[2]}


def read(conn: Connection, digest: str, offset: int = 0, length: int | None = None) -> bytes:
    """Bytes [offset, offset+length) of a blob, read without loading the rest."""
    if length is None:
        row = conn.execute("SELECT data FROM attachment_blobs WHERE sha256 = ?", (digest,)).fetchone()
    else:
        row = conn.execute(
            "SELECT substr(data, ?, ?) FROM attachment_blobs WHERE sha256 = ?", (offset + 1, length, digest)
        ).fetchone()
    if row is None:
        raise NotFoundError(f"no attachment {digest[:64]!r} in the archive")
    return bytes(row[0])


def links(conn: Connection, site: str, source_id: str | None) -> dict[str, tuple[str, int]]:
    """{pointer key: (sha256, bytes)} of the attachments held for one site conversation."""
    if not source_id:
        return {}
    rows = conn.execute(
        "SELECT l.file_id, l.sha256, b.bytes FROM attachment_links l"
        " JOIN attachment_blobs b ON b.sha256 = l.sha256 WHERE l.site = ? AND l.source_id = ?",
        (site, source_id),
    )
    return {file_id: (digest, size) for file_id, digest, size in rows}


def annotate(conv: Conversation, held: dict[str, tuple[str, int]]) -> Conversation:
    """Put `sha256` and `bytes` on each attachment part whose bytes the archive holds."""
    from ..model import AttachmentPart  # (see the imports)

    if not held:
        return conv
    for msg in conv.messages:
        for part in msg.parts:
            if isinstance(part, AttachmentPart) and part.asset_pointer:
                found = held.get(pointer_key(part.asset_pointer))
                if found:
                    part.sha256, part.bytes = found
    return conv


def forget(c: Connection, site: str, source_id: str | None) -> None:
    """Drop a deleted conversation's links, and the blobs no other conversation links to."""
    if not source_id:
        return
    c.execute("DELETE FROM attachment_links WHERE site = ? AND source_id = ?", (site, source_id))
    c.execute("DELETE FROM attachment_blobs WHERE sha256 NOT IN (SELECT sha256 FROM attachment_links)")
