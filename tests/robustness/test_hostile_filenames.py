"""Hostile conversation titles as export file names: saved through the real
host, written by `mnemo export` and `mnemo convert -o DIR`. No file may land
outside the export folder, every name fits in 255 bytes, every conversation
is written, and no name is a device name or carries control/bidi characters."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from mnemosyne.archive import open_archive
from support.hostproc import HostProcess

from .figures import record
from .hostio import capture_payload

pytestmark = pytest.mark.robustness

MNEMO = str(Path(sys.executable).with_name("mnemo"))
HOSTILE_TITLES = [
    "../../../../etc/passwd",
    "..\\..\\..\\Windows\\System32\\drivers\\etc\\hosts",
    "a/b/c",
    "a\\b\\c",
    "/",
    "\\",
    "..",
    ".",
    "...",
    ". . .",
    "....//....//",
    "nul\x00byte",
    "\x00" * 8,
    "CON",
    "con",
    "NUL",
    "COM1",
    "LPT9",
    "AUX.txt",
    "CON .md",
    "COM¹",
    "PRN",
    "\u202egpj.exe",
    "\u202e\u2066\u200f\u200b",
    "x" * 1000,
    "é" * 1000,
    "😀" * 300,
    "👨‍👩‍👧‍👦" * 100,
    "C:\\Users\\me",
    "~/.ssh/authorized_keys",
    ".bashrc",
    "-rf --no-preserve-root",
    "line\nbreak\r\ttab",
    "$(rm -rf ~)",
    "`id`",
    "<script>alert(1)</script>",
    "file:///etc/passwd",
    "   ",
    "",
    "CON",
    "../../../../etc/passwd",
    "漢字のタイトル",
    "Ωmega — “quotes” & ‘apostrophes’",
    "a" * 255 + ".md",
]
RESERVED = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"} | {
    f"{d}{n}" for d in ("COM", "LPT") for n in "123456789¹²³"
}


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def bad_names(folder: Path, written: set[Path]) -> list[str]:
    problems = []
    for path in written:
        name = path.name
        if path.parent != folder:
            problems.append(f"outside the folder: {path}")
        if len(name.encode("utf-8")) > 255:
            problems.append(f"{len(name.encode())} bytes: {name[:60]}")
        if (
            name.split(".")[0].rstrip(" ").upper() in RESERVED
            or name.startswith(".")
            or name.endswith((" ", "."))
        ):
            problems.append(f"unsafe name: {name!r}")
        if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
            problems.append(f"control or format character in {name!r}")
    return problems


def run_cli(env, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([MNEMO, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def test_hostile_titles_stay_inside_the_export_folder(env, tmp_path, monkeypatch):
    for name in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(name, env[name])
    host = HostProcess(env)
    try:
        ids = {
            host.data("save", kind="capture", payload=capture_payload(f"hostile{i}", title, ["q", "a"]))[
                "conversation_id"
            ]
            for i, title in enumerate(HOSTILE_TITLES)
        }
    finally:
        host.close()
    assert len(ids) == len(HOSTILE_TITLES)
    with open_archive() as arc:
        jsonl = tmp_path / "work" / "all.jsonl"
        jsonl.parent.mkdir()
        jsonl.write_text(
            "".join(arc.get_document(i).replace("\n", " ") + "\n" for i in ids), encoding="utf-8"
        )
    work = tmp_path / "work"
    before = files_under(tmp_path)
    results = {}
    for label, args, folder in [
        ("mnemo export --to markdown", ["export", "--to", "markdown"], work / "export-md"),
        ("mnemo export --to html", ["export", "--to", "html"], work / "export-html"),
        (
            "mnemo convert --to markdown -o",
            ["convert", str(jsonl), "--to", "markdown", "-o"],
            work / "convert-md",
        ),
        ("mnemo convert --to text -o", ["convert", str(jsonl), "--to", "text", "-o"], work / "convert-txt"),
    ]:
        run_cli(env, work / "..", *args, str(folder))
        written = files_under(folder)
        results[label] = (
            written,
            bad_names(folder, written),
            sum(any(i in p.name for p in written) for i in ids),
        )
    after = files_under(tmp_path)
    expected_new = {p for written, _, _ in results.values() for p in written}
    outside = sorted(
        str(p) for p in after - before - expected_new if "home" not in p.parts[len(tmp_path.parts) :][:1]
    )
    longest = max(len(p.name.encode("utf-8")) for p in expected_new)
    record("hostile filenames", "hostile titles saved", len(ids))
    for label, (written, problems, covered) in results.items():
        record(
            "hostile filenames",
            f"{label}: files / conversations covered",
            f"{len(written)} / {covered}",
            f"{len(ids)} / {len(ids)}",
        )
        record("hostile filenames", f"{label}: unsafe or oversize names", len(problems), "0")
    record("hostile filenames", "files outside the export folders", len(outside), "0")
    record("hostile filenames", "longest name (bytes)", longest, "<= 255")
    assert not outside, outside
    for label, (written, problems, covered) in results.items():
        assert not problems, (label, problems[:5])
        assert len(written) == covered == len(ids), label
