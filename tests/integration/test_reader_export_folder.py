"""An unzipped export folder is read exactly like the zip it came from.

Browsers (Safari by default) unzip downloads, so a folder is the common case. The folders
are built from real fixture exports plus the side files real exports hold beside them.
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

from mnemosyne import canonical
from mnemosyne.model import Conversation
from mnemosyne.readers import ReadContext, load_path, read_raw, streaming
from support.cli import run_cli

FIXTURES = Path(__file__).parents[1] / "fixtures"
CHATGPT = FIXTURES / "chatgpt_export/librechat_chatgpt-export.json"  # 2 conversations
CHATGPT_MORE = FIXTURES / "chatgpt_export/echomine_003_with_code.json"
CLAUDE = FIXTURES / "claude_export/echomine_claude_sample_export.json"  # 5 conversations
PROJECT = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"


def chatgpt_export(folder: Path) -> Path:
    """A 2026-style split export: conversations-000/-001 (000 first), viewer, side files, assets."""
    folder.mkdir()
    first = json.loads(CHATGPT.read_text(encoding="utf-8"))
    (folder / "conversations-001.json").write_text(CHATGPT_MORE.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "conversations-000.json").write_text(json.dumps(first), encoding="utf-8")
    (folder / "chat.html").write_text("<html>viewer</html>", encoding="utf-8")
    for name, value in {
        "export_manifest.json": {"version": 2, "files": ["conversations-000.json"]},
        "user.json": {"id": "user-x", "email": "someone@example.com"},
        "message_feedback.json": [],
        "shared_conversations.json": [],
    }.items():
        (folder / name).write_text(json.dumps(value), encoding="utf-8")
    (folder / "file-8fK2a3-Captura de pantalla 한국어.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "file_00000000a1b2-5c6d.dat").write_bytes(b"\x00\x01binary")
    return folder


def claude_export(folder: Path) -> Path:
    folder.mkdir()
    convs = json.loads(CLAUDE.read_text(encoding="utf-8"))
    convs[0]["project_uuid"] = PROJECT
    (folder / "conversations.json").write_text(json.dumps(convs), encoding="utf-8")
    project = {"uuid": PROJECT, "name": "Tesis", "prompt_template": "Responde en español.", "docs": []}
    (folder / "projects.json").write_text(json.dumps([project]), encoding="utf-8")
    memories = [
        {"conversations_memory": "Prefers short answers.", "project_memories": {PROJECT: "Thesis on tides."}}
    ]
    (folder / "memories.json").write_text(json.dumps(memories), encoding="utf-8")
    (folder / "users.json").write_text(json.dumps([{"uuid": "acct", "full_name": "A"}]), encoding="utf-8")
    return folder


def zipped(folder: Path) -> Path:
    target = folder.with_suffix(".zip")
    with zipfile.ZipFile(target, "w") as archive:
        for file in sorted(folder.iterdir()):
            archive.write(file, file.name)
    return target


def read(path: Path) -> list[Conversation]:
    items = [item for raw in load_path(path) for item in read_raw(raw, ReadContext())]
    assert all(isinstance(i, Conversation) for i in items), items
    return items


def portable(convs: list[Conversation]) -> list[str]:
    return [canonical.dumps(c) for c in convs]


def test_a_chatgpt_folder_reads_like_its_zip_split_files_in_order(tmp_path):
    folder = chatgpt_export(tmp_path / "export")
    convs = read(folder)
    assert len(convs) == 3
    assert [c.title for c in convs[:2]] == [c["title"] for c in json.loads(CHATGPT.read_text())]
    assert portable(convs) == portable(read(zipped(folder)))
    streamed = [i for raw in streaming.iter_inputs(folder) for i in read_raw(raw, ReadContext())]
    assert portable(streamed) == portable(convs)


def test_a_claude_folder_applies_projects_and_memories_like_its_zip(tmp_path):
    folder = claude_export(tmp_path / "data-2026-09-01")
    convs = read(folder)
    assert len(convs) == 5
    first = convs[0]
    assert first.source.project == "Tesis"
    kinds = {(i.kind, i.text) for i in first.instructions}
    assert ("project_instructions", "Responde en español.") in kinds
    assert ("memory", "Prefers short answers.") in kinds and ("memory", "Thesis on tides.") in kinds
    assert ("memory", "Thesis on tides.") not in {(i.kind, i.text) for i in convs[1].instructions}
    assert portable(convs) == portable(read(zipped(folder)))


def test_one_file_per_project_in_a_projects_folder(tmp_path):
    folder = claude_export(tmp_path / "export")
    project = json.loads((folder / "projects.json").read_text())[0]
    (folder / "projects.json").unlink()
    (folder / "projects").mkdir()
    (folder / "projects" / f"{PROJECT}.json").write_text(json.dumps(project), encoding="utf-8")
    assert read(folder)[0].source.project == "Tesis"


def mnemo(*args: str | Path) -> subprocess.CompletedProcess:
    """`mnemo ARGS` through `main(argv)`, output as bytes; the archive is the one `mnemo_home` set up."""
    return run_cli(None, *args, check=False, text=False)


def test_mnemo_convert_and_import_of_a_folder_succeed_without_a_word(tmp_path, mnemo_home):
    folder = chatgpt_export(tmp_path / "Exportación ChatGPT")
    done = mnemo("convert", folder, "--to", "portable")
    assert done.returncode == 0, done.stderr.decode()
    assert len(done.stdout.splitlines()) == 3
    done = mnemo("import", "--no-tokens", folder)
    assert done.returncode == 0, done.stderr.decode()
    assert "imported 3, updated 0, unchanged 0, failed 0" in done.stdout.decode()
    assert done.stderr.decode() == ""


def test_attachments_name_the_export_file_that_holds_their_bytes(tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    conv = json.loads((FIXTURES / "chatgpt_export/echomine_002_with_images.json").read_text(encoding="utf-8"))
    (folder / "conversations.json").write_text(json.dumps([conv]), encoding="utf-8")
    asset = "file-6y9faxjcnXrzx8UTUQepS7-Foto de la playa 한국.jpg"
    (folder / asset).write_bytes(b"\xff\xd8\xff")
    (folder / "file_00000000ffff-other.dat").write_bytes(b"\x00")
    for source in (folder, zipped(folder)):
        (read_back,) = read(source)
        linked = [
            p
            for m in read_back.messages
            for p in m.parts
            if getattr(p, "asset_pointer", None) and p.export_file
        ]
        assert [p.export_file for p in linked] == [asset]
        assert linked[0].asset_pointer == "file-service://file-6y9faxjcnXrzx8UTUQepS7"
