"""`save` with `export`: the reply carries the saved conversation in a writer's format, exactly what `get`
would give, so an Export click that copies or downloads makes one round trip; a text over the reply's page
continues with `get` and its cursor. Real host process, real archive."""

from __future__ import annotations

import json

import pytest

from support.data import load
from test_host_paging_interop import chatgpt_payload
from test_host_sync import TIDE, TIDE_ID, capture_of


def get_all(host, conv_id: str, fmt: str, redact: bool) -> tuple[dict, str]:
    """`get`'s first page and its whole text, all pages joined."""
    first = host.data("get", conversation_id=conv_id, format=fmt, redact=redact)
    text, _ = host.paged("get", conversation_id=conv_id, format=fmt, redact=redact)
    return first, text


def rest_of(host, export: dict, conv_id: str, fmt: str, redact: bool) -> tuple[str, int]:
    """The export's text: its chunk, then `get` from its cursor as the extension continues; and the pages."""
    chunks, cursor, pages = [export["chunk"]], export["next_cursor"], 1
    while cursor:
        page = host.data("get", conversation_id=conv_id, format=fmt, redact=redact, cursor=cursor)
        chunks.append(page["chunk"])
        cursor, pages = page["next_cursor"], pages + 1
    return "".join(chunks), pages


@pytest.mark.parametrize(
    ("fmt", "redact"), [("markdown", False), ("markdown", True), ("portable", False), ("portable", True)]
)
def test_save_with_export_carries_what_get_gives(host, fixtures, fmt, redact):
    saved = host.data(
        "save", payload=load(fixtures, TIDE), kind="chatgpt_api", export={"format": fmt, "redact": redact}
    )
    export = saved.pop("export")
    assert saved["status"] == "created" and saved["messages"] > 0
    first, text = get_all(host, saved["conversation_id"], fmt, redact)
    assert export == first  # every field: the text, its media type, file name and redaction counts
    assert export["next_cursor"] is None and export["chunk"] == text
    if fmt == "portable":
        assert json.loads(export["chunk"])["title"] == saved["title"]
    assert ("redactions" in export) is redact


def test_save_without_export_carries_none_and_a_bad_one_saves_nothing(host, fixtures):
    for bad in ({"format": "docx"}, {"redact": True}, "markdown", {"format": "markdown", "redact": "yes"}):
        reply = host.call("save", payload=load(fixtures, TIDE), kind="chatgpt_api", export=bad)
        assert reply["error"]["code"] == "BAD_REQUEST", bad
    assert host.data("hello")["archive"]["conversations"] == 0  # refused before anything was stored
    saved = host.data("save", payload=load(fixtures, TIDE), kind="chatgpt_api")
    assert "export" not in saved and saved["status"] == "created"


def test_a_kept_copy_is_what_the_export_carries(host, fixtures):
    """A partial capture after the site's copy is `kept`: the export is the stored copy, not the capture."""
    host.data("save", payload=load(fixtures, TIDE), kind="chatgpt_api")
    kept = host.data(
        "save", payload=capture_of(TIDE_ID, complete=False), kind="capture", export={"format": "markdown"}
    )
    assert kept["status"] == "kept"
    _, text = get_all(host, kept["conversation_id"], "markdown", False)
    assert kept["export"]["chunk"] == text and "turn 0 as the page showed it" not in text


def test_an_export_over_one_reply_continues_with_get_and_the_reply_fits(host):
    """About 2.4 MB of Markdown (a third of it CJK, three UTF-8 bytes a character): the save's reply carries
    the first page within the 1 MiB frame (the test's reader refuses a larger one) and the cursor; `get`
    from that cursor gives the rest, and the whole is `get`'s text."""
    texts = [(f"turn {i} 潮汐退火坩埚 " * 400) + f"\n\n```python\nprint({i})\n```" for i in range(120)]
    payload = chatgpt_payload(texts, "7a000000-0000-4000-8000-000000000001", "A long exchange")
    saved = host.data("save", payload=payload, kind="chatgpt_api", export={"format": "markdown"})
    export = saved["export"]
    assert export["next_cursor"] is not None and len(export["chunk"]) < export["total_chars"]
    text, pages = rest_of(host, export, saved["conversation_id"], "markdown", False)
    _, whole = get_all(host, saved["conversation_id"], "markdown", False)
    assert text == whole and export["total_chars"] == len(whole) and pages >= 2


def test_a_three_million_character_title_still_fits_one_reply(host, fixtures):
    """The archive keeps the whole title; the reply cuts it to 1,000 characters, and the export's page is
    sized to what the save's fields leave of the frame."""
    payload = dict(load(fixtures, TIDE), title="tide " * 600_000)
    saved = host.data("save", payload=payload, kind="chatgpt_api", export={"format": "portable"})
    assert len(saved["title"]) == 1000 and saved["title"] == ("tide " * 200)
    text, pages = rest_of(host, saved["export"], saved["conversation_id"], "portable", False)
    _, whole = get_all(host, saved["conversation_id"], "portable", False)
    assert text == whole and pages >= 2 and json.loads(text)["title"] == "tide " * 600_000
