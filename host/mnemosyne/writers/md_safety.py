"""Transcript text made inert inside a Markdown export.

Message text is kept as Markdown (lists, emphasis, tables, code) but cannot act
on the reader or fake the document's structure:
- raw HTML is escaped (`<` becomes `&lt;`; `<https://…>` autolinks stay), so no
  `<img onerror>`, `<script>`, `<iframe>` or hidden `<!-- -->` text;
- images do not load (`![a](u)` becomes a link to u), so no remote tracking pixels;
- links and reference definitions keep only http(s), mailto and `#` targets;
  anything else (`javascript:`, `data:`, entity-spelled schemes) is left as text;
- headings inside a message move below level 3 (the levels it uses become 4, 5, 6 in
  order, so `## Assistant` becomes `#### Assistant`): levels 1-3 always belong to
  Mnemosyne (title, turns, tools), and a setext underline (`===`, `---` under text)
  is detached from its line.
Code blocks and code spans are left exactly as written.
"""

from __future__ import annotations

import re

from .fences import has_fence_run

SHIFT = 3  # writer headings use levels 1-3; message headings start at 4

# container prefix: blockquote markers and list markers before a line's content
_PREFIX = r"(?P<prefix>(?:[ \t]*(?:>[ \t]?|(?:[-*+]|\d{1,9}[.)])[ \t]+))*[ \t]{0,3})"
# any indentation: a fence nested in list items sits deeper than 3 spaces (and _leaves guards the rest)
_FENCE = re.compile(_PREFIX + r"[ \t]*(?P<run>`{3,}|~{3,})(?P<rest>.*)$")
_HEADING = re.compile(_PREFIX + r"(?P<hashes>#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"^[ \t>]*(?:=+|-+)[ \t]*$")
# a line after the first that may be an underline: searched from a newline (a literal, so a fast scan) where a
# pattern that starts with `^` is tried at every character
_UNDERLINE = re.compile(r"\n[ \t>]*(?:=+|-+)[ \t]*(?=\n|\Z)")
_PLAIN_LINE = re.compile(
    r"^[ \t>]*[^\s>#\-*+=|`~]"
)  # a paragraph line that an underline could turn into a heading
_REFERENCE = re.compile(_PREFIX + r"\[(?P<label>[^\]\n]+)\]:[ \t]*<?(?P<dest>[^\s>]*)")
_SAFE_TARGET = re.compile(r"(?:https?://|mailto:|#)", re.IGNORECASE)
# a code span as CommonMark reads it: not opened by an escaped backtick, closed by a run of the same length
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# kept autolinks hold no backtick: `<https://a/`>` would otherwise swallow the opening of a code span
_AUTOLINK = re.compile(r"<(?:https?://|mailto:)[^\s<>`]*>", re.IGNORECASE)
_IMAGE = re.compile(r"(?<!\\)!\[")
_LINK_TARGET = re.compile(r"\]\([ \t]*<?(?P<dest>[^\s)>]*)")
# what _line can change (HTML, images, links, reference definitions, headings): most lines have none
_ACTIVE = re.compile(r"[<\[\]#]")


def _inline(segment: str) -> str:
    """Text outside code spans: escape HTML, disarm images and unsafe link targets."""
    out, last = [], 0
    for match in _AUTOLINK.finditer(segment):
        out.append(segment[last : match.start()].replace("<", "&lt;"))
        out.append(match.group(0))
        last = match.end()
    out.append(segment[last:].replace("<", "&lt;"))
    text = _IMAGE.sub(r"\\![", "".join(out))
    return _LINK_TARGET.sub(
        lambda m: m.group(0) if _SAFE_TARGET.match(m.group("dest")) else "]\\(" + m.group(0)[2:], text
    )


def _line(line: str, levels: dict[int, int]) -> str:
    if not _ACTIVE.search(line):
        return line
    ref = _REFERENCE.match(line)
    if ref and not _SAFE_TARGET.match(ref.group("dest")):
        line = ref.group("prefix") + "\\" + line[len(ref.group("prefix")) :]
    heading = _HEADING.match(line)
    if heading:
        line = heading.group("prefix") + "#" * levels[len(heading.group("hashes"))] + line[heading.end() :]
    out, last = [], 0
    for span in _CODE_SPAN.finditer(line):
        out.append(_inline(line[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(_inline(line[last:]))
    return "".join(out)


def _heading_levels(text: str) -> dict[int, int]:
    """Each heading level the text uses, in order, moved to 4, 5, 6: `###`/`####` keep their hierarchy.
    Only the lines that hold a `#` are looked at (found by a scan, not a loop over every line)."""
    found: set[int] = set()
    at = text.find("#")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if m := _HEADING.match(text, start, end):
            found.add(len(m.group("hashes")))
        at = text.find("#", end)
    used = sorted(found)
    levels = {level: min(6, SHIFT + 1 + rank) for rank, level in enumerate(used)}
    return {n: levels.get(n, 6) for n in range(1, 7)}


def _first_active(text: str) -> int:
    """Where the first character _line can change is (-1: none): four character searches, each a memchr,
    cost a tenth of one search for the set (tried at every character), and most texts hold none of them."""
    found = [at for at in (text.find("<"), text.find("["), text.find("]"), text.find("#")) if at >= 0]
    return min(found) if found else -1


def safe_markdown(text: str) -> str:
    """`text` (Markdown from a transcript) with HTML, images, unsafe links and structural headings disarmed."""
    # one scan per question, each with a literal to look for (a fast scan); a single pattern for "anything"
    # was slower than all of them: with no first character to skip to, it is tried at every one
    first = _first_active(text)
    active = first >= 0
    structure = has_fence_run(text) or _has_underline(text)
    if not (active or structure):
        return text  # nothing the line loop below would change: no HTML, link, heading, fence or underline
    levels = _heading_levels(text)
    if not structure:
        # no fence can open and no underline can follow text: each line stands alone, and only lines
        # holding an active character change (the loop below, one line at a time, would give the same)
        return _active_lines(text, first, levels)
    lines = text.split("\n")
    out: list[str] = []
    fence: tuple[str, int, int] | None = None  # (run, prefix width, blockquote depth) of the open fence
    previous_plain = False
    for line in lines:
        match = _FENCE.match(line) if "```" in line or "~~~" in line else None
        if fence is not None and not _leaves(line, fence):
            out.append(line)  # code: exactly as written
            run = match.group("run") if match else ""
            if (
                match
                and run[:1] == fence[0][0]
                and len(run) >= len(fence[0])
                and not match.group("rest").strip()
            ):
                fence = None
            previous_plain = False
            continue
        fence = None
        if match and not (match.group("run")[0] == "`" and "`" in match.group("rest")):
            prefix = match.group("prefix")
            fence = (match.group("run"), len(prefix), prefix.count(">"))
            out.append(line)
            previous_plain = False
            continue
        if previous_plain and _SETEXT.match(line):
            out.append("")  # an underline under text would make that text a heading
        out.append(_line(line, levels))
        previous_plain = bool(_PLAIN_LINE.match(line)) and not ("#" in line and _HEADING.match(line))
    return "\n".join(out)


def _first_line_underline(text: str) -> bool:
    end = text.find("\n")
    return _SETEXT.match(text, 0, len(text) if end < 0 else end) is not None


def _has_underline(text: str) -> bool:
    """Whether a line of `text` is a setext underline (`===`, `---`)."""
    return _UNDERLINE.search(text) is not None or _first_line_underline(text)


def _active_lines(text: str, first: int, levels: dict[int, int]) -> str:
    """`text` with _line applied to each line holding an active character (`first`: where the first is)."""
    out, done = [], 0
    at: int | None = first
    while at is not None:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        out.append(text[done:start])
        out.append(_line(text[start:end], levels))
        done = end
        found = _ACTIVE.search(text, end)
        at = found.start() if found else None
    out.append(text[done:])
    return "".join(out)


def _leaves(line: str, fence: tuple[str, int, int]) -> bool:
    """Whether a line may end the fence's container (less indented, fewer `>`): then it is read as Markdown.

    Erring this way costs at most an escaped `<` shown inside code; erring the other way would let a
    renderer that closed the container run the line as HTML."""
    if not line.strip():
        return False
    lead = line[: len(line) - len(line.lstrip(" \t>"))]
    return lead.count(">") < fence[2] or len(lead.expandtabs(4)) < fence[1]


_PLAIN_SPECIALS = re.compile(r"([\\`\[\]<])")


def plain(text: str) -> str:
    """One line of plain text (a title, a name): no HTML, link, image or code span can start in it."""
    text = " ".join(text.split())
    return _PLAIN_SPECIALS.sub(r"\\\1", text) if _PLAIN_SPECIALS.search(text) else text
