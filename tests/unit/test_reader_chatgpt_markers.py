"""ChatGPT's private-use markers: no visible text of an answer is lost, whatever the marker kind.

The expected labels are computed here by scanning characters and reading each marker's fields
by hand, independently of the reader's regular expressions, then counted in the reader's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemosyne.model import Conversation, TextPart
from mnemosyne.readers import load_path, read_raw
from mnemosyne.readers.base import Warnings
from mnemosyne.readers.chatgpt_markers import resolve_markers

FIXTURES = Path(__file__).parents[1] / "fixtures"
REAL = [
    FIXTURES / "chatgpt_export/echomine_003_with_code.json",
    next((FIXTURES / "chatgpt_api/elinvoss").glob("0075-*.json")),
]
SHAPES = FIXTURES / "chatgpt_synthetic/markers_2026.json"
ALL = [*REAL, SHAPES]


def scan(text: str) -> tuple[list[str], list[str]]:
    """(plain runs outside markers, whole markers), one character at a time."""
    plain, markers, run, inside = [], [], "", False
    for ch in text:
        if ch == "\ue200":
            plain.append(run)
            run, inside = ch, True
        elif ch == "\ue201" and inside:
            markers.append(run + ch)
            run, inside = "", False
        elif not inside and "\ue200" <= ch <= "\ue2ff":  # sourced-sentence glyphs: markup between words
            plain.append(run)
            run = ""
        else:
            run += ch
    (markers if inside else plain).append(run)
    return [p for p in plain if p.strip()], markers


def shown(marker: str, refs: list[dict]) -> list[str]:
    """What the site shows for one marker: its reference's `alt`, else the label in its fields."""
    for ref in refs:
        if ref.get("matched_text") == marker and ref.get("alt"):
            return [ref["alt"]]
    kind, *fields = marker[1:-1].split("\ue202")
    if kind == "entity":
        try:
            return [json.loads(fields[0])[1]]
        except ValueError:
            return [fields[0]]
    if kind in ("url", "navlist", "finance"):
        return [fields[0]]
    if kind == "products":
        return [pick[1] for pick in json.loads(fields[0])["selections"]]
    if kind == "product_entity":
        return [json.loads(fields[0])[1]]
    if kind == "genui":
        return ["genui"]
    return []  # citation chips and image carousels have no words


def answers(path: Path) -> list[tuple[str, list[dict]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for conv in data if isinstance(data, list) else [data]:
        for node in conv["mapping"].values():
            msg = node.get("message") or {}
            for part in (msg.get("content") or {}).get("parts") or []:
                if isinstance(part, str) and "\ue200" in part:
                    found.append((part, (msg.get("metadata") or {}).get("content_references") or []))
    return found


def output_text(path: Path) -> tuple[str, list[Conversation]]:
    convs = [c for raw in load_path(path) for c in read_raw(raw, fmt="chatgpt")]
    text = "\n".join(p.text for c in convs for m in c.messages for p in m.parts if isinstance(p, TextPart))
    return text, convs


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_visible_label_and_every_word_around_markers_is_kept(path):
    sources = answers(path)
    assert sources, "the fixture has markers"
    text, _ = output_text(path)
    expected = [label for source, refs in sources for m in scan(source)[1] for label in shown(m, refs)]
    missing = [label for label in expected if label not in text]
    assert not missing, f"{len(missing)} of {len(expected)} visible labels lost: {missing[:5]}"
    for source, _refs in sources:
        for run in scan(source)[0]:
            assert run.strip() in text
    assert not any("\ue200" <= ch <= "\ue2ff" for ch in text)


def test_2026_markers_render_as_the_site_shows_them():
    text, convs = output_text(SHAPES)
    assert "- [Pexels](https://www.pexels.com/es-es/) o\n- [Pixabay](https://pixabay.com/)" in text
    assert "Usa NotebookLM y Google DeepMind para resumir ." in text
    assert "Productos: Kindle Paperwhite, Kobo Clara." in text
    assert "En coreano: 서울 es grande." in text
    assert "Una pregunta con Invincible." in text
    unknown = sum(w.count for w in convs[0].warnings if w.code == "UNKNOWN_MARKER")
    assert unknown == 2  # genui and finance: kept, and said so


def test_the_reference_alt_wins_when_it_names_the_marker():
    marker = "\ue200cite\ue202turn0search4\ue201"
    refs = {"content_references": [{"matched_text": marker, "alt": "([Forum](https://f.example))"}]}
    assert resolve_markers(f"See {marker}.", refs, Warnings()) == "See ([Forum](https://f.example))."


def test_unknown_unclosed_and_stray_markers_keep_their_text_and_are_counted():
    warnings = Warnings()
    text = 'A \ue200widget\ue202{"x":1}\ue201 B\ue2ff \ue200url\ue202Cut off\ue202turn0search1\nnext line'
    out = resolve_markers(text, {}, warnings)
    assert out == 'A [widget: {"x":1}] B Cut off\nnext line'
    assert {w.code for w in warnings.as_list()} == {"UNKNOWN_MARKER", "UNCLOSED_MARKER", "STRAY_MARKER"}


def test_a_reference_whose_matched_text_lost_its_marker_characters_still_matches():
    refs = {
        "content_references": [{"matched_text": "citeturn0search4", "alt": "([Forum](https://f.example))"}]
    }
    marker = "\ue200cite\ue202turn0search4\ue201"
    assert resolve_markers(f"See {marker}.", refs, Warnings()) == "See ([Forum](https://f.example))."
