"""ChatGPT's inline markers: private-use characters that wrap rich content in answer text.

A marker is U+E200, a kind, fields each after U+E202, then U+E201:
`\\ue200entity\\ue202["software","NotebookLM","app"]\\ue201`,
`\\ue200url\\ue202Pexels\\ue202https://www.pexels.com\\ue201`,
`\\ue200cite\\ue202turn0search1\\ue202turn0search4\\ue201`. The site draws each as the
text or chip it stands for. 2025 exports list most markers in
`metadata.content_references` with `matched_text` (the marker) and `alt` (what the
site shows); 2026 exports often lack `matched_text`, so each kind is also read from
its own fields. Kinds seen in public exports and exporters' tests are known below;
any other keeps its visible fields (or its raw payload) and is counted in warnings.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from .base import Warnings

START, END, SEP = "\ue200", "\ue201", "\ue202"
_MARKER = re.compile("\ue200([^\ue200\ue201\ue202]*)((?:\ue202[^\ue200\ue201\ue202]*)*)\ue201")
_UNCLOSED = re.compile("\ue200([^\ue200\ue201\ue202\n]*)((?:\ue202[^\ue200\ue201\ue202\n]*)*)")
_STRAY = re.compile("[\ue200-\ue2ff]")
# U+E203 ... U+E204 wraps a sourced sentence and U+E206 follows it (2024 browsing): markup only.
_GLYPHS = str.maketrans("", "", "\ue203\ue204\ue206")
_REF = re.compile(r"^turn\d+[a-z_]+\d+$")  # "turn0search1": a pointer into the tool results
NO_TEXT = ("cite", "filecite", "memcite", "image_group", "i", "image")  # chips and pictures: no words


def resolve_markers(text: str, metadata: dict[str, Any], warnings: Warnings) -> str:
    """Every marker replaced by the text the site shows for it."""
    if not _STRAY.search(text):  # most text has no marker: one C-level scan
        return text
    alts = _alts(metadata)
    text = _MARKER.sub(lambda m: _render(m.group(0), m.group(1), _fields(m.group(2)), alts, warnings), text)
    if START in text:  # a marker that never closes (a cut-off answer): keep its visible fields
        text = _UNCLOSED.sub(lambda m: _unclosed(m, warnings), text)
    text = text.translate(_GLYPHS)
    if _STRAY.search(text):
        warnings.add("STRAY_MARKER", "a stray ChatGPT marker character was removed")
        text = _STRAY.sub("", text)
    return text


def _alts(metadata: dict[str, Any]) -> dict[str, str]:
    """`matched_text` -> `alt` of every content reference that names a whole marker."""
    found = {}
    refs = metadata.get("content_references")
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, dict):
            continue
        matched, alt = ref.get("matched_text"), ref.get("alt")
        if isinstance(matched, str) and matched.strip() and isinstance(alt, str):
            found[_plain(matched)] = alt  # some tools store matched_text without the marker characters
    return found


def _plain(marker: str) -> str:
    return _STRAY.sub("", marker)


def _fields(rest: str) -> list[str]:
    return rest.split(SEP)[1:] if rest else []


def _render(whole: str, kind: str, fields: list[str], alts: dict[str, str], warnings: Warnings) -> str:
    alt = alts.get(_plain(whole))
    if alt:  # the site's own rendering
        return alt
    reader = _KINDS.get(kind)
    if reader is not None:
        return reader(fields)
    if kind in NO_TEXT:
        return _cite_url(fields) if kind == "cite" else ""
    warnings.add("UNKNOWN_MARKER", f"ChatGPT marker {kind!r} kept as its text")
    return _visible(kind, fields)


def _unclosed(match: re.Match[str], warnings: Warnings) -> str:
    warnings.add("UNCLOSED_MARKER", "a ChatGPT marker without its end was kept as its text")
    kind, fields = match.group(1), _fields(match.group(2))
    reader = _KINDS.get(kind)
    if reader is not None:
        return reader(fields)
    return "" if kind in NO_TEXT else " ".join(f for f in fields if not _REF.match(f.strip()))


def _visible(kind: str, fields: list[str]) -> str:
    words = [f for f in fields if f.strip() and not _REF.match(f.strip()) and _json(f) is None]
    if words:
        return " ".join(words)
    payload = SEP.join(fields).replace(SEP, " ")
    return f"[{kind}: {payload}]" if payload.strip() else f"[{kind}]"


def _json(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] not in ("[", "{"):
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return None


def _entity(fields: list[str]) -> str:
    """["category", "Name", "disambiguation"] -> Name; a plain-text field is the name itself."""
    if not fields:
        return ""
    value = _json(fields[0])
    if isinstance(value, list):
        names = [v for v in value if isinstance(v, str) and v]
        return names[1] if len(names) > 1 else (names[0] if names else "")
    return fields[0]


def _product_entity(fields: list[str]) -> str:
    """["turn0product1", "Name"] -> Name."""
    value = _json(fields[0]) if fields else None
    if isinstance(value, list):
        names = [v for v in value if isinstance(v, str) and v and not _REF.match(v)]
        return names[0] if names else ""
    return fields[0] if fields else ""


def _products(fields: list[str]) -> str:
    """{"selections": [["turn0product1", "Name"], ...]} -> "Name, ..."."""
    value = _json(fields[0]) if fields else None
    if not isinstance(value, dict):
        return _product_entity(fields)
    names = []
    for pick in value.get("selections") or []:
        if isinstance(pick, list):
            names += [v for v in pick if isinstance(v, str) and v and not _REF.match(v)][:1]
    return ", ".join(names)


def _link(fields: list[str]) -> str:
    """url / video: label, then a URL or a pointer into the tool results."""
    label = fields[0] if fields else ""
    target = fields[1].strip() if len(fields) > 1 else ""
    if target.startswith(("http://", "https://")):
        return f"[{label or target}]({target})"
    return label


def _cite_url(fields: list[str]) -> str:
    """A cite marker normally points into tool results (a chip); some carry the URL itself."""
    urls = [f.strip() for f in fields if f.strip().startswith(("http://", "https://"))]
    return " ".join(f"([{urlsplit(u).hostname or u}]({u}))" for u in urls)


def _first(fields: list[str]) -> str:
    return fields[0] if fields else ""


_KINDS = {
    "entity": _entity,
    "product_entity": _product_entity,
    "products": _products,
    "product": _products,
    "url": _link,
    "video": _link,
    "navlist": _first,  # a heading over news links
    "product_rationale": _first,  # the sentence explaining a product pick
}
