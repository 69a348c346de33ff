"""The side files of a 2026 ChatGPT export that describe its attachments: `library_files.json` (the
account's file library: file id, name, type, and the conversation and message a file came from) and
`conversation_asset_file_names.json` (each shipped `.dat` file's original name). Used where they name a
conversation's attachments; an entry that names none of this conversation's files or messages is passed over."""

from __future__ import annotations

import mimetypes
from typing import Any

from ..model import AttachmentPart, Conversation
from .json_values import as_dict, as_list, as_str, media_kind

LIBRARY = "library_files.json"
ASSET_NAMES = "conversation_asset_file_names.json"


def _key(pointer: str) -> str:
    """`sediment://file_00ab`, `file-service://file-ab` and the bare id name the same file."""
    return pointer.rsplit("/", 1)[-1]


def library_index(members: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """file id -> its library entry."""
    index: dict[str, dict[str, Any]] = {}
    for item in as_list(members.get(LIBRARY)):
        entry = as_dict(item)
        file_id = as_str(entry.get("file_id"))
        if file_id:
            index[file_id] = entry
    return index


def asset_names(members: dict[str, Any]) -> dict[str, str]:
    """export file name -> the file's original name."""
    names: dict[str, str] = {}
    for mapping in as_list(members.get(ASSET_NAMES)):
        for file_name, original in as_dict(mapping).items():
            if isinstance(original, str) and original.strip("/"):
                base = original.rstrip("/").rsplit("/", 1)[-1]  # dalle-generations/x.webp, <chat>/audio/y.wav
                names[file_name] = base
                names[file_name.rsplit("/", 1)[-1]] = base
    return names


def _describe(part: AttachmentPart, entry: dict[str, Any], names: dict[str, str]) -> None:
    """Fill the name and type the attachment lacks from what the side files say."""
    if part.name is None:
        part.name = as_str(entry.get("file_name")) or names.get(part.export_file or "")
        if part.name is None and part.export_file:
            part.name = names.get(part.export_file.rsplit("/", 1)[-1])
    if part.mime_type is None:
        part.mime_type = as_str(entry.get("mime_type")) or (
            mimetypes.guess_type(part.name)[0] if part.name else None
        )


def apply_side_files(conv: Conversation, members: dict[str, Any], assets: dict[str, str]) -> None:
    """Name the conversation's attachments from the side files, and add the library's files that came from
    one of its messages but that the message does not point to (recent exports leave generated images and
    documents out of the message), with the export file that holds their bytes."""
    library, names = library_index(members), asset_names(members)
    if not library and not names:
        return
    pointed: set[str] = set()
    for msg in conv.messages:
        for part in msg.parts:
            if isinstance(part, AttachmentPart) and part.asset_pointer:
                key = _key(part.asset_pointer)
                pointed.add(key)
                _describe(part, library.get(key, {}), names)
    by_id = {m.id: m for m in conv.messages}
    for file_id, entry in library.items():
        thread = as_str(entry.get("origination_thread_id"))
        message = by_id.get(as_str(entry.get("origination_message_id")) or "")
        if file_id in pointed or message is None or (thread and thread != conv.source.conversation_id):
            continue
        mime = as_str(entry.get("mime_type"))
        part = AttachmentPart(
            kind=media_kind(mime.split("/", 1)[0] if mime else None),
            asset_pointer=f"sediment://{file_id}",
            export_file=assets.get(file_id),
        )
        _describe(part, entry, names)
        message.parts.append(part)
        pointed.add(file_id)
