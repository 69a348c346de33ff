"""A 2026 ChatGPT export (folder or zip) with library_files.json, conversation_asset_file_names.json and the
.dat files it ships: imported with failed 0, the side files naming the attachments, the files kept in the
archive (encrypted, once each) and written beside the Markdown by `mnemo export`."""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest

from mnemosyne.model import AttachmentPart, Conversation
from mnemosyne.readers import ReadContext, load_path, read_raw
from support.cli import run_cli

FIXTURE = Path(__file__).parents[1] / "fixtures" / "chatgpt_export_2026"
CONV = "6a1c1a89-9b9c-4000-8000-00000000c0de"
FILES = {  # the .dat files the export ships: an image, an uploaded PDF, a generated report, a voice clip
    "file_00000000aad871f49969859f2bccd6cb.dat": b"\x89PNG\r\n\x1a\n tide chart pixels",
    "file-12aRihqTCNon1VFE6ZpQqx.dat": b"%PDF-1.7 tide table",
    "file_0000000044c071f491e2d28bb4f6a09f.dat": b"PK\x03\x04 tide report docx",
    "file_0000000005987246b06f11c12c4e779f.dat": b"RIFF....WAVE voice",
}


def export_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "chatgpt-export-2026"
    shutil.copytree(FIXTURE, folder, ignore=shutil.ignore_patterns("SOURCE.txt"))
    for name, data in FILES.items():
        (folder / name).write_bytes(data)
    (folder / "chat.html").write_text("<html>viewer</html>", encoding="utf-8")
    return folder


def zipped(folder: Path) -> Path:
    target = folder.with_suffix(".zip")
    with zipfile.ZipFile(target, "w") as archive:
        for file in sorted(folder.iterdir()):
            archive.write(file, file.name)
    return target


def read(path: Path) -> list[Conversation]:
    items = [i for raw in load_path(path) for i in read_raw(raw, ReadContext())]
    assert all(isinstance(i, Conversation) for i in items), items
    return items


def attachments(conv: Conversation) -> dict[str, AttachmentPart]:
    return {p.asset_pointer or "": p for m in conv.messages for p in m.parts if isinstance(p, AttachmentPart)}


@pytest.mark.parametrize("packed", [False, True], ids=["folder", "zip"])
def test_the_side_files_name_the_attachments(tmp_path, packed):
    folder = export_folder(tmp_path)
    convs = read(zipped(folder) if packed else folder)
    assert [c.title for c in convs] == ["Tide chart", "Moon"]
    files = attachments(convs[0])
    image = files["sediment://file_00000000aad871f49969859f2bccd6cb"]
    assert image.name == "tide-chart.png" and image.mime_type == "image/png"  # the library names it
    assert image.export_file == "file_00000000aad871f49969859f2bccd6cb.dat"
    pdf = files["file-12aRihqTCNon1VFE6ZpQqx"]
    assert pdf.name == "tides.pdf" and pdf.export_file == "file-12aRihqTCNon1VFE6ZpQqx.dat"
    report = files["sediment://file_0000000044c071f491e2d28bb4f6a09f"]  # generated: only the library has it
    assert report.name == "Tide report.docx" and report.kind == "file"
    assert report in next(m for m in convs[0].messages if m.id == "a1").parts
    assert attachments(convs[1]) == {}  # library entries naming other chats, or none, are passed over


def test_a_broken_side_file_is_passed_over(tmp_path):
    folder = export_folder(tmp_path)
    (folder / "library_files.json").write_text("[{not json", encoding="utf-8")
    convs = read(folder)
    assert attachments(convs[0])["sediment://file_00000000aad871f49969859f2bccd6cb"].name == (
        "c130441a-a12b-43d3-89df-71da1c01ffb3.png"  # conversation_asset_file_names.json still names it
    )


@pytest.mark.parametrize("packed", [False, True], ids=["folder", "zip"])
def test_import_keeps_the_files_and_export_writes_them(tmp_path, mnemo_home, packed):
    folder = export_folder(tmp_path)
    source = zipped(folder) if packed else folder
    done = run_cli(None, "import", "--no-tokens", source)
    assert "imported 2, updated 0, unchanged 0, failed 0" in done.stdout, done.stdout + done.stderr
    again = run_cli(None, "import", "--no-tokens", source)
    assert "failed 0" in again.stdout

    out = tmp_path / "out"
    run_cli(None, "export", out)
    written = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.suffix != ".md"}
    kept = {hashlib.sha256(d).hexdigest() for d in written.values()}
    shipped = {
        hashlib.sha256(FILES[n]).hexdigest() for n in list(FILES)[:3]
    }  # the voice clip is no attachment
    assert shipped <= kept
    markdown = "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.md"))
    for name in ("tides.pdf", "Tide report.docx", "tide-chart.png"):
        assert name in markdown

    from mnemosyne.archive.store import open_archive

    with open_archive() as arc:
        (count,) = arc.conn.execute("SELECT count(*) FROM attachment_blobs").fetchone()
        (conv_id,) = arc.conn.execute("SELECT id FROM conversations WHERE source_id = ?", (CONV,)).fetchone()
        held = arc.get(conv_id)
    assert count == 3  # each file once, however often imported
    assert all(p.sha256 for p in attachments(held).values())
