"""The attachment files an official export ships beside its conversations (ChatGPT's `file_….dat`,
`file-….png`), kept in the archive as that conversation's attachments, as a backup keeps what it
downloads: encrypted, once per SHA-256, and written beside the Markdown by `mnemo export`."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..archive import attachments
from ..archive.attachments import MAX_BYTES
from ..errors import MnemosyneError
from ..model import AttachmentPart
from ..readers.loading import ASSET_BYTES

if TYPE_CHECKING:
    from ..archive import Archive
    from ..model import Conversation

# (file id or asset pointer, name, MIME type, bytes)
ShippedFile = tuple[str, str | None, str | None, bytes]


def shipped_files(conv: Conversation, read: Callable[[str], bytes]) -> list[ShippedFile]:
    """The bytes of each attachment of `conv` that names the export file holding them. A file the export
    names but does not hold, or cannot give back, stays a reference (its part still names it)."""
    found: list[ShippedFile] = []
    seen: set[str] = set()
    for message in conv.messages:
        for part in message.parts:
            if not isinstance(part, AttachmentPart) or not part.export_file or not part.asset_pointer:
                continue
            if part.asset_pointer in seen:
                continue
            seen.add(part.asset_pointer)
            try:
                data = read(part.export_file)
            except (OSError, KeyError, zipfile.BadZipFile, MnemosyneError):
                continue
            if len(data) <= MAX_BYTES:
                found.append((part.asset_pointer, part.name, part.mime_type, data))
    return found


def keep_shipped_files(arc: Archive, site: str, source_id: str, files: list[ShippedFile]) -> int:
    """Store the files (run on the archive's writer thread during an import); returns how many."""
    for pointer, name, mime, data in files:
        attachments.store(arc.conn, site, source_id, pointer, name, mime, data)
    return len(files)


def reader_of(members: dict[str, Any]) -> Callable[[str], bytes] | None:
    """How to read an export file by name, when the input came from an export zip or folder."""
    read = members.get(ASSET_BYTES)
    return read if callable(read) else None
