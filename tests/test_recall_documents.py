"""recall reads its candidates' turns from the stored documents without the conversation models: the same
turns, in the same order, as the context engine takes from the models, for every conversation of an archive
of the real fixtures (exports, API captures and the interop formats, with tools, attachments, branches)."""

from __future__ import annotations

from mnemosyne import tree
from mnemosyne.context.turns import path_turns
from mnemosyne.model import format_time
from mnemosyne.recall import documents
from support.archive_fixture import FIX, make_archive
from support.cli import run_cli

SOURCES = [
    "chatgpt_api",
    "interop_sharegpt",
    "interop_openwebui",
    "interop_librechat",
    "interop_sillytavern",
    "interop_openai_messages",
    "interop_anthropic_messages",
]


def test_stored_turns_are_the_models_turns(tmp_path, monkeypatch):
    env = make_archive(tmp_path)
    run_cli(env, "import", *[FIX / s for s in SOURCES])
    monkeypatch.setenv("MNEMOSYNE_HOME", env["MNEMOSYNE_HOME"])
    monkeypatch.setenv("MNEMOSYNE_KEY_FILE", env["MNEMOSYNE_KEY_FILE"])
    from mnemosyne.archive import open_archive

    with open_archive(create=False) as arc:
        ids = arc.all_ids()
        assert len(ids) > 500
        with_turns = 0
        for conv_id in ids:
            conv = arc.get(conv_id)
            stored = documents.read(arc, conv_id)
            assert stored.turns == path_turns(tree.path_to(conv, None), frozenset(), None), conv_id
            assert (stored.id, stored.site, stored.title) == (conv.id, conv.source.site, conv.title or "")
            when = conv.updated_at or conv.created_at
            assert stored.when == (format_time(when) if when else None)
            assert (stored.when or "")[:10] == (when.date().isoformat() if when else "")  # the label's date
            with_turns += bool(stored.turns)
        assert with_turns > 500
