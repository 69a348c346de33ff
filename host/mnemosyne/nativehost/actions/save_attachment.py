"""save-attachment: keep a conversation's file or image, base64 in the request, encrypted in the archive."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from ...archive import attachments
from ...archive.attachments import MAX_BYTES, AttachmentTooLarge
from . import params as p
from .sync_state import SITES

if TYPE_CHECKING:
    from ..session import HostSession


def decode(data: object) -> bytes:
    """Strict base64 of at most attachments.MAX_BYTES, refused by its length before it is decoded."""

    if not isinstance(data, str) or not data:
        raise p.BadRequest("data must be the file's bytes in base64")
    if len(data) // 4 * 3 - 2 > MAX_BYTES:
        raise AttachmentTooLarge(f"the attachment is over {MAX_BYTES} bytes, the most the host keeps")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise p.BadRequest("data is not valid base64") from None


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    site = p.choice(params, "site", SITES)
    source_id = p.string(params, "source_id", max_len=200)
    file_id = p.string(params, "file_id", max_len=2000)
    name = p.string(params, "name", default=None, max_len=500)
    mime = p.string(params, "mime", default=None, max_len=200)
    if not source_id or not file_id:
        raise p.BadRequest("source_id and file_id must not be empty")
    data = decode(params.get("data"))
    session.renders.clear()  # a kept portable render lacks the new sha256
    return attachments.store(session.archive().conn, site, source_id, file_id, name, mime, data)
