"""Render the chosen pieces as paste-ready text, OpenAI or Anthropic messages, or an
AGENTS.md / CLAUDE.md file, and count each exactly as it will be sent."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

# The closing marker carries a tag made from the text the markers enclose, named in the header: a transcript
# cannot hold the hash of itself (the user's own turns and the budget's choices are in it too), so no text
# inside can write the real closing marker, however it spells its own. Decimal digits: fewest tokens a bit.
TAG_DIGITS = 12  # (~40 bits of SHA-256)
BEGIN_WORDS = "BEGIN TRANSCRIPT"
END_WORDS = "END TRANSCRIPT"
BEGIN = f"<<<{BEGIN_WORDS}>>>"  # opens right after the header: nothing untrusted comes before it


def transcript_tag(body: str) -> str:
    digest = hashlib.sha256(body.encode("utf-8", "surrogatepass")).digest()
    return str(int.from_bytes(digest[:8], "big") % 10**TAG_DIGITS).zfill(TAG_DIGITS)


def end_marker(tag: str) -> str:
    return f"<<<{END_WORDS} {tag}>>>"


def tag_note(tag: str) -> str:
    """The header's sentence that names the tag: what tells a reader which closing marker is real."""
    return f"Its end marker is tagged {tag}."


# Defence in depth beside the tag: any "begin/end transcript" inside the text is marked as quoted, however it
# is spelled: any case, full-width or compatibility letters (NFKD), letters of other scripts that look Latin
# (_LOOKALIKES), anything but a letter or digit between the letters (spaces, "_", "-", ".", zero-width and other
# format characters, combining marks: all outside regex \w but "_").
_LOOKALIKES = {  # (after NFKD and casefold) Cyrillic, Greek, Latin small capitals, Armenian, Cherokee
    "a": "аαᴀɑꭺ",
    "b": "вьβʙ",
    "c": "сᴄꮯ",
    "d": "ԁᴅꭰ",
    "e": "еёєεϵᴇɛꭼ",
    "g": "ցɢɡꮐ",
    "i": "іїӏιίɪıɩ",
    "n": "пνηɴոꮖ",
    "p": "рρϱᴘꮲ",
    "r": "гʀꮢ",
    "s": "ѕσςꜱꮪ",
    "t": "тτᴛꮃ",
}
_SEP = r"[\W_]*"


def _loose(word: str) -> str:
    return _SEP.join(f"[{ch}{_LOOKALIKES.get(ch, '')}]" for ch in word)


_MARKER = re.compile(
    f"(?:(?P<begin>{_loose('begin')})|{_loose('end')}){_SEP}{_loose('transcript')}" + r"(?!\s*\(quoted\))"
)
_INVISIBLE = ("Cf", "Mn", "Me")  # format characters (zero-width, bidi, tags), combining marks
_INVISIBLE_RANGES = ((0, 0x10000), (0x1D100, 0x1D250), (0xE0000, 0xE01F0))


@lru_cache(maxsize=4096)  # (bounded: a hostile text can hold every character Unicode has, ~150 MB unbounded)
def _is_invisible(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp < hi for lo, hi in _INVISIBLE_RANGES) and unicodedata.category(ch) in _INVISIBLE


def _drop_invisible(text: str) -> str:
    """`text` without format characters and combining marks. The table covers only the characters the text
    has (a table of all of Unicode took a fresh process 60 ms to build)."""
    if text.isascii():
        return text
    table = {ord(ch): None for ch in set(text) if ch > "\x7f" and _is_invisible(ch)}
    return text.translate(table) if table else text  # translate walks the text even with nothing to drop


def _folded(text: str) -> str:
    if text.isascii():
        return text.lower()
    return _drop_invisible(unicodedata.normalize("NFKD", text).casefold())


def defuse(text: str) -> str:
    # a first look without dropping invisible characters (a walk over every character): the pattern lets
    # them sit between the letters, as anything else that is not a letter or digit
    quick = text.lower() if text.isascii() else unicodedata.normalize("NFKD", text).casefold()
    if not _MARKER.search(quick):
        return text
    # the folded view, character by character, with where each folded character came from
    view: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        f = _folded(ch)
        view.append(f)
        origin.extend([i] * len(f))
    folded = "".join(view)
    out: list[str] = []
    pos = 0
    for m in _MARKER.finditer(folded):
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        out.append(text[pos:start])
        out.append(f"{BEGIN_WORDS if m.group('begin') else END_WORDS} (quoted)")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def one_line(text: str) -> str:
    """`text` as one line of printable characters, markers defused."""
    clean = " ".join(_drop_invisible(text).split())
    return defuse("".join(ch for ch in clean if ch.isprintable()))


def quote_title(title: str, limit: int) -> str:
    """A conversation title (or another name a site lets anyone set) as a safe quoted string: one line, no
    invisible characters, markers defused, cut at `limit` characters, quotes and backslashes escaped (JSON
    string syntax)."""
    clean = " ".join(_drop_invisible(title).split())
    clean = "".join(ch for ch in clean if ch.isprintable())
    clean = defuse(clean[:limit] + ("…" if len(clean) > limit else ""))
    return json.dumps(clean, ensure_ascii=False)


@dataclass
class Pieces:
    header: str
    instructions: list[tuple[str, str]] = field(default_factory=list)
    digest: str = ""  # the artifacts' names
    compressed: str = ""
    recent: list[tuple[str, int, str]] = field(default_factory=list)  # (role, index on path, text)
    closing: str = ""
    file_name: str = "AGENTS.md"


def _reference_sections(p: Pieces, level: str = "##") -> list[str]:
    out: list[str] = []
    if p.instructions:
        out.append(f"{level} Instructions set in the original conversation")
        for label, text in p.instructions:
            out.append(f"[{one_line(label)}]\n{defuse(text)}")
    if p.digest:
        out.append(f"{level} State of the work\nArtifacts and code: {defuse(p.digest)}")
    if p.compressed:
        out.append(f"{level} Earlier turns (compressed)\n{defuse(p.compressed)}")
    return out


def _enclosed(header: str, body: str) -> tuple[str, str]:
    """The header naming the markers' tag, and `body` between the markers (both as they are without a body)."""
    if not body:
        return header, ""
    tag = transcript_tag(body)
    return f"{header} {tag_note(tag)}", f"{BEGIN}\n{body}\n{end_marker(tag)}"


def render_text(p: Pieces) -> str:
    sections = _reference_sections(p)
    if p.recent:
        sections.append("## Recent turns (verbatim)")
        sections.extend(f"[{role} #{index}]\n{defuse(text)}" for role, index, text in p.recent)
    header, enclosed = _enclosed(p.header, "\n\n".join(sections))
    return "\n\n".join(x for x in (header, enclosed, p.closing) if x)


def render_agents_md(p: Pieces) -> str:
    sections = _reference_sections(p)
    if p.recent:
        sections.append("## Recent turns (verbatim)")
        sections.extend(f"### {role} #{index}\n\n{defuse(text)}" for role, index, text in p.recent)
    body = "\n\n".join(sections)
    header, enclosed = p.header, ""
    if body:
        tag = transcript_tag(body)
        header = f"{header} {tag_note(tag)}"
        enclosed = f"<!-- {BEGIN_WORDS} -->\n{body}\n<!-- {END_WORDS} {tag} -->"
    head = f"# {p.file_name}: context carried over\n\n> " + header.replace("\n", "\n> ")
    return "\n\n".join(x for x in (head, enclosed, p.closing) if x) + "\n"


def _system_text(p: Pieces) -> str:
    header, enclosed = _enclosed(p.header, "\n\n".join(_reference_sections(p)))
    follow = "The most recent turns of that conversation follow as messages." if p.recent else ""
    return "\n\n".join(x for x in (header, enclosed, follow) if x)


def _api_role(role: str) -> tuple[str, str]:
    return ("user", "[tool output]\n") if role == "tool" else (role, "")


def render_openai(p: Pieces) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": _system_text(p)}]
    for role, _, text in p.recent:
        api_role, prefix = _api_role(role)
        messages.append({"role": api_role, "content": prefix + text})
    return messages


def render_anthropic(p: Pieces) -> dict[str, Any]:
    messages: list[dict[str, str]] = []
    for role, _, text in p.recent:
        api_role, prefix = _api_role(role)
        if messages and messages[-1]["role"] == api_role:  # the API wants strict alternation
            messages[-1]["content"] += "\n\n" + prefix + text
        else:
            messages.append({"role": api_role, "content": prefix + text})
    if not messages or messages[0]["role"] != "user":
        messages.insert(0, {"role": "user", "content": "(The earlier conversation is in the system prompt.)"})
    return {"system": _system_text(p), "messages": messages}


def render(shape: str, p: Pieces) -> Any:
    if shape == "openai":
        return render_openai(p)
    if shape == "anthropic":
        return render_anthropic(p)
    if shape == "agents_md":
        return render_agents_md(p)
    return render_text(p)


def fixed_text(shape: str, header: str, closing: str, file_name: str, labels: list[str]) -> str:
    """What a render writes around the conversation's own text (headings, markers, role and instruction
    labels), with the one-letter text "x" in every section: the words an encoder for a build covers up front."""
    roles = ("assistant", "user", "tool", "system")  # (a reply first: the API shapes add a note before it)
    recent = [(role, 0, "x") for role in roles]
    sample = Pieces(header, [(label, "x") for label in labels], "x", "x", recent, closing, file_name)
    return "\n".join(_strings(render(shape, sample)))


def _strings(payload: Any) -> list[str]:
    """The strings of a payload (text, or messages: lists and dicts of strings), keys and values."""
    if isinstance(payload, str):
        return [payload]
    items = payload.items() if isinstance(payload, dict) else payload
    return [s for item in items for s in _strings(item)]


def count_payload(shape: str, payload: Any, count: Callable[[str], int]) -> int:
    """Tokens as the target sees them (OpenAI's per-message framing from its cookbook)."""
    if shape == "openai":
        return sum(3 + count(m["role"]) + count(m["content"]) for m in payload) + 3
    if shape == "anthropic":
        return count(payload["system"]) + sum(4 + count(m["content"]) for m in payload["messages"]) + 3
    return count(payload)
