"""`get` through the MCP server's tools, in this process, over a real archive: the texts redacted for a
conversation's first page are kept for the next pages (the server's caches), not redacted again."""

from __future__ import annotations

import pytest

from mnemosyne.archive import open_archive
from mnemosyne.mcpserver import tools
from support.archive_fixture import HOSTILE_ID, SECRET_EMAIL, SECRET_KEY, make_archive


@pytest.fixture
def arc(tmp_path, monkeypatch):
    env = make_archive(tmp_path)
    for name in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(name, env[name])
    tools._kept_between_calls.cache_clear()
    archive = open_archive(create=False)
    yield archive
    archive.close()
    tools._kept_between_calls.cache_clear()


def test_pages_of_a_redacted_get_reuse_the_first_pages_redactions(arc, monkeypatch):
    _, data = tools.run_get(arc, {"id": HOSTILE_ID, "max_chars": 100_000}, True)
    total = data["total_chars"]
    memo = tools._kept_between_calls().redactions
    held = memo.texts()
    assert any(SECRET_EMAIL in t for t in held) and any(SECRET_KEY in t for t in held)

    from mnemosyne import redact

    redacted_again: list[str] = []
    original = redact.Redactor._pattern_for
    monkeypatch.setattr(
        redact.Redactor,
        "_pattern_for",
        lambda self, text: redacted_again.append(text) or original(self, text),
    )
    pages, cursor, ends = [], None, []
    while True:
        args = {"id": HOSTILE_ID, "max_chars": 200} | ({"cursor": cursor} if cursor else {})
        text, data = tools.run_get(arc, args, True)
        pages.append(text)
        ends.append(data["end"])
        cursor = data["next_cursor"]
        if cursor is None:
            break
    assert len(pages) > 2 and ends[-1] == total
    assert redacted_again == []  # every page found its texts redacted already
    assert all(SECRET_EMAIL not in p and SECRET_KEY not in p for p in pages)
    assert memo.texts() == held
