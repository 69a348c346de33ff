"""Exporting the archive to a folder (`mnemo export`): one file per conversation, held attachments beside it.

Made to be run again into the same folder (an Obsidian vault): a conversation keeps the file name it was first
written under (found by the id that ends every name), a file whose content would not change is not written
(its mtime stays), and changed_ids(since) limits a run to conversations saved, or given attachments, at or after a time."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..archive import attachments
from ..filenames import attachment_filename, conversation_filename, path_inside, unique_name
from ..model import AttachmentPart
from ..paths import write_private
from ..writers import writer

if TYPE_CHECKING:
    from ..archive import Archive
    from ..model import Conversation

FILES_SUFFIX = ".files"  # <stem>.files/<name>: the attachments of <stem>.md


@dataclass
class ExportTotals:
    conversations: int = 0  # exported (considered)
    written: int = 0  # conversation files written (new or changed)
    unchanged: int = 0  # conversation files left as they were
    attachments: int = 0  # attachment files written (new or changed)


def changed_ids(arc: Archive, since: str | None) -> list[str]:
    """Every conversation, newest first; with `since` (an ISO date or UTC time, compared as text), those
    saved at or after it, or whose attachments arrived at or after it."""
    if since is None:
        return arc.all_ids()
    rows = arc.conn.execute(
        "SELECT id FROM conversations WHERE saved_at >= ? OR (site, source_id) IN"
        " (SELECT site, source_id FROM attachment_links WHERE saved_at >= ?) ORDER BY sort_key DESC, id DESC",
        (since, since),
    )
    return [r[0] for r in rows]


def _existing_names(out: Path, extension: str) -> dict[str, str]:
    """{conversation id: file name} of the files an earlier export wrote (`<slug>-<id><extension>`)."""
    pattern = re.compile(r"-([a-z0-9]{1,64})" + re.escape(extension) + "$")
    found: dict[str, str] = {}
    for path in out.iterdir():
        match = pattern.search(path.name)
        if match and path.is_file():
            found.setdefault(match.group(1), path.name)
    return found


def _write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` (0600, atomically) unless the file already holds exactly it; True when written."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_private(path, data)
    return True


def _write_attachments(arc: Archive, conv: Conversation, folder: Path) -> tuple[dict[str, str], int]:
    """The held attachments of `conv` into `folder` (created when there is one); returns sha256 -> path
    relative to the conversation's file, and how many files were written."""
    links: dict[str, str] = {}
    used: set[str] = set()
    written = 0
    for msg in conv.messages:
        for part in msg.parts:
            if not isinstance(part, AttachmentPart) or not part.sha256 or part.sha256 in links:
                continue
            given = (
                part.name or attachments.meta(arc.conn, part.sha256)["name"]
            )  # the site's, else the sender's
            name = unique_name(attachment_filename(given, part.sha256), used)
            folder.mkdir(mode=0o700, exist_ok=True)
            target = path_inside(folder, name)
            data = attachments.read(arc.conn, part.sha256)
            if hashlib.sha256(data).hexdigest() != part.sha256:
                continue  # never write bytes that are not what the document names
            written += _write_if_changed(target, data)
            links[part.sha256] = f"{folder.name}/{name}"
    return links, written


def export_folder(
    arc: Archive,
    out: Path,
    fmt: str,
    ids: list[str],
    *,
    redact: bool = False,
    step: Callable[[], Any] = lambda: None,
) -> ExportTotals:
    """The conversations `ids` (see changed_ids) into `out` in the writer `fmt`'s format."""
    mod = writer(fmt)
    out.mkdir(
        parents=True, exist_ok=True, mode=0o700
    )  # a new folder is private; an existing one is left as is
    names = _existing_names(out, mod.EXTENSION)
    totals = ExportTotals()
    for conv_id in ids:
        conv = arc.get(conv_id)
        if redact:
            from ..redact import redact_conversation  # (its patterns compile at import: --redact only)

            conv = redact_conversation(conv)[0]
        name = names.get(conv.id) or conversation_filename(conv.title, conv.id, mod.EXTENSION)
        target = path_inside(out, name)
        files: dict[str, str] = {}
        if not redact:  # a redacted export carries no files the redaction could not read
            stem = name[: -len(mod.EXTENSION)] if name.endswith(mod.EXTENSION) else name
            files, written = _write_attachments(arc, conv, path_inside(out, stem + FILES_SUFFIX))
            totals.attachments += written
        text = mod.write(conv, files=files) if fmt == "markdown" else mod.write(conv)
        if _write_if_changed(target, text.encode("utf-8", "replace")):
            totals.written += 1
        else:
            totals.unchanged += 1
        totals.conversations += 1
        step()
    return totals
