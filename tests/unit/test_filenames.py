"""Export file names from hostile titles and ids stay inside the folder and portable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mnemosyne.errors import InputError
from mnemosyne.filenames import (
    NAME_MAX_BYTES,
    conversation_filename,
    is_reserved,
    path_inside,
    safe_id,
    slug,
    unique_name,
)

HOSTILE_TITLES = [
    "../../etc/passwd",
    "..\\..\\windows\\system32",
    "/absolute/path",
    "C:\\Users\\x",
    'a/b\\c:d*e?f"g<h>i|j',
    "nul\x00byte",
    "\x01\x1f\x7f controls",
    "\u202egnp.exe",
    "\u200f\u2066bidi\u2069",
    "CON",
    "con.txt",
    "COM1",
    "LPT9",
    "aux",
    "   ",
    "",
    "...",
    "-",
    "x" * 1000,
    "é" * 300,
    "😀" * 100,
    "日本語のタイトル",
    "Ünïcödé Tïtlé",
    ".hidden",
    "trailing dot.",
    "trailing space ",
]
# letters and digits of any script, dashes between them; never a separator, dot, control or format character
NAME = re.compile(r"[^\W_]+(-[^\W_]+)*-[a-z0-9]{1,64}\.[a-z0-9]+")


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_hostile_titles_give_plain_names_inside_the_folder(title, tmp_path):
    name = conversation_filename(title, "k3j9x2m4q7ab", ".md")
    assert NAME.fullmatch(name), name
    assert name.endswith("-k3j9x2m4q7ab.md")
    assert len(name.encode("utf-8")) <= NAME_MAX_BYTES
    assert not is_reserved(name)
    target = path_inside(tmp_path, name)
    assert target.parent == tmp_path.resolve()
    target.write_text("ok")  # the file system accepts it
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_slug_rules():
    assert slug('Ça va? Déjà vu : "ok"') == "ca-va-deja-vu-ok"
    assert slug("../../etc/passwd") == "etc-passwd"
    assert slug("x" * 200) == "x" * 80
    assert slug("a " * 100).endswith("a") and len(slug("a " * 100)) <= 80
    assert slug("日本語") == "日本語" and slug(None) == ""


def test_non_latin_titles_keep_their_letters():
    assert conversation_filename("파이썬 질문: 리스트 정렬", "abc", ".md") == "파이썬-질문-리스트-정렬-abc.md"
    assert conversation_filename("如何学习 Python？", "abc", ".md") == "如何学习-python-abc.md"
    assert conversation_filename("がぎぐ ＡＢＣ", "abc", ".md") == "がぎぐ-abc-abc.md"  # full-width folds
    assert conversation_filename("Привет, мир", "abc", ".md") == "привет-мир-abc.md"
    assert conversation_filename("हिन्दी में", "abc", ".md") == "हिन्दी-में-abc.md"
    long = conversation_filename("日" * 300, "k3j9x2m4q7ab", ".md")
    assert len(long.encode("utf-8")) <= NAME_MAX_BYTES and long.startswith("日" * 10)


def test_empty_titles_are_untitled():
    assert conversation_filename("", "abc", ".md") == "untitled-abc.md"
    assert conversation_filename("🙂", "abc", ".html") == "untitled-abc.html"


def test_hostile_ids_are_hashed_not_trusted():
    for bad in ("../../x", "A/B", "", "x" * 100, "con", "id with space", "\x00"):
        ident = safe_id(bad)
        assert re.fullmatch(r"[a-z0-9]{1,64}", ident)
        assert conversation_filename("t", bad, ".json").endswith(f"-{ident}.json")
    assert safe_id("k3j9x2m4q7ab") == "k3j9x2m4q7ab"
    assert safe_id("../a") != safe_id("../b")


def test_reserved_windows_names():
    for name in ("CON", "con.md", "Nul.txt", "COM1", "lpt9.json", "AUX", "PRN.x.y", "COM¹"):
        assert is_reserved(name), name
    for name in ("console.md", "con-abc.md", "com10", "nullable"):
        assert not is_reserved(name), name


def test_unsafe_extension_is_refused():
    for ext in ("/../x", ".md/..", "md", ".m d"):
        with pytest.raises(ValueError):
            conversation_filename("t", "abc", ext)


def test_path_inside_refuses_escapes(tmp_path):
    for name in ("../x.md", "/etc/passwd", "a/../../b", "sub/x.md", ".."):
        with pytest.raises(InputError):
            path_inside(tmp_path, name)
    link = tmp_path / "link.md"
    link.symlink_to(Path("/etc/hostname"))
    with pytest.raises(InputError):
        path_inside(tmp_path, "link.md")


def test_unique_names_for_repeated_conversations():
    used: set[str] = set()
    assert unique_name("a-x.md", used) == "a-x.md"
    assert unique_name("a-x.md", used) == "a-x-2.md"
    assert unique_name("A-X.md", used) == "A-X-3.md"  # case-insensitive file systems


def test_attachment_filenames_are_safe_whatever_the_site_named_the_file():
    from mnemosyne.filenames import attachment_filename

    digest = "ab" * 32
    assert attachment_filename("Photo (1).JPEG", digest) == "photo-1.jpeg"
    assert attachment_filename("../../etc/passwd", digest) == "etc-passwd"
    assert attachment_filename("CON.txt", digest) == "_con.txt"
    assert attachment_filename(None, digest) == digest[:12]
    assert attachment_filename(".bashrc", digest) == digest[:12] + ".bashrc"  # never a hidden file
    assert attachment_filename("report.exe\u202egnp", digest) == "report-exe-gnp"
    long = attachment_filename("名" * 400 + ".pdf", digest)
    assert long.endswith(".pdf") and len(long.encode()) <= 255 and "/" not in long
