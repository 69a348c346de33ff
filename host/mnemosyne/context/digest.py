"""Units of information: the sentences, list items, table rows and code blocks of the turns.

Each unit carries its weighted terms (see salience). Exact repeats are marked,
and a unit restated later with other values (numbers, names) is marked as
superseded by the later one: corrections win. The chosen units are rendered as
compressed earlier turns, in order, with "…" where something was left out.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain, compress, repeat

from . import salience as S

TYPE_CHECKING = False  # mypy reads True
if TYPE_CHECKING:  # (the split worker loads this module without the conversation models, and typing)
    from typing import Any

    from .turns import Turn

MAX_CODE_CHARS = 1800  # longer blocks are carried as their definition lines
MAX_UNIT_CHARS = 400  # longer sentences are split at clause boundaries
QUESTION_END = ("?", "？")  # a sentence ending so asks rather than states

_FENCE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$")
_ITEM_START = frozenset("-*+•0123456789")
_LIST_ITEM = re.compile(r"^(?:[-*+•]\s+|\d{1,3}[.)]\s+)")
_MARKUP = re.compile(r"^(?:#{1,6}\s+|>\s*)+|\*\*|__")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")
# Sentence ends: the whitespace after ".", "!" or "?" before what opens a sentence, or after a semicolon
# between two clauses (each may state its own fact: a later correction of one must not take the other
# with it), and the place after a Chinese full stop, exclamation or question mark or semicolon. Two patterns (the places they find never
# touch): the first opens with the whitespace, so the regex engine skips to whitespace in C (one pattern
# with a lookbehind first tried every position: 3.5 us a line).
_LATIN_END = re.compile(r"\s(?<=[.!?;]\s)(?:(?<=[.!?]\s)\s*(?=[\"'(\[A-Z0-9*_`\-])|(?<=\w;\s)\s*(?=[a-z]))")
_CJK_END = re.compile(r"(?<=[。！？；])")
_CLAUSE = re.compile(r"(?<=[;:，,])\s*(?=\S)|\s+[—–]\s+")
DEFINITION = re.compile(
    r"(?m)(?:^|\s)(?:async\s+def|def|class|function|func|fn|interface|struct|enum|type|const|let|var|trait|impl)\s+([A-Za-z_][\w]*)"
    r"|(?i:create\s+(?:table|view|index)(?:\s+if\s+not\s+exists)?\s+([A-Za-z_][\w.]*))"
    r"|^\s*([A-Z][A-Z0-9_]{2,})\s*[:=]"
)


@dataclass(slots=True)
class Unit:
    turn: int  # index into the turn list
    seq: int  # order inside the turn
    msg_id: str
    role: str
    kind: str  # "sentence", "item", "row", "code", "table" or "list" (see split_text)
    text: str
    terms: tuple[str, ...]  # its terms' keys (salience.terms)
    kinds: str  # their kinds, a letter each (salience.KIND_CODE)
    names: tuple[str, ...] = ()  # identifiers a code block defines
    weights: dict[str, float] = field(default_factory=dict)
    superseded: bool = False  # a later unit states the same thing with other values
    repeat: bool = False  # the same text appeared earlier
    relevance: float = 0.0  # BM25 against the focus, 0..1
    key: int = -1  # its index among the units of the path (corpus.Corpus)
    script_scale: float = 1.0  # the value scale of its script in this conversation (select._script_scales)
    tokens: int = -1  # its text's count in tokens.policy.COUNTED_ENCODING when known (stored with the units)


def code_unit(block: str) -> tuple[str, tuple[str, ...]]:
    names: list[str] = []
    for m in DEFINITION.finditer(block):
        name = next(g for g in m.groups() if g)
        if name not in names:
            names.append(name)
    if len(block) <= MAX_CODE_CHARS:
        return block, tuple(names)
    lines = block.split("\n")
    keep = (
        [lines[0]] + [ln for ln in lines[1:-1] if any(n in ln for n in names)][:40] + ["    ...", lines[-1]]
    )
    return "\n".join(keep), tuple(names)


def _split_long(sentence: str) -> list[str]:
    if len(sentence) <= MAX_UNIT_CHARS:
        return [sentence]
    out: list[str] = []
    for clause in _CLAUSE.split(sentence):
        if out and len(out[-1]) + len(clause) < MAX_UNIT_CHARS // 2:
            out[-1] += " " + clause
        else:
            out.append(clause)
    return [
        c if len(c) <= MAX_UNIT_CHARS * 2 else c[: MAX_UNIT_CHARS * 2].rsplit(" ", 1)[0] + " …" for c in out
    ]


MAX_BLOCK_CHARS = 900  # a table or list of short items up to this size is one unit
MAX_BLOCK_ITEM = 160  # a list whose items are all this short reads as one block


def _block(lines: list[str], kind: str, lead: str | None) -> list[tuple[str, str]]:
    """A table (header with its rows) or a list of short items (with its lead-in line) as one unit when
    small: a row without its header, an item without what it lists, says little, and one unit pays the
    turn's label once. Otherwise the rows or items one by one."""
    single = "row" if kind == "table" else "item"
    body = "\n".join(lines if kind == "table" else ["- " + x for x in lines])
    if (
        len(lines) > 1
        and len(body) <= MAX_BLOCK_CHARS
        and (kind == "table" or all(len(x) <= MAX_BLOCK_ITEM for x in lines))
    ):
        return [(kind, (lead + "\n" if lead else "") + body)]
    out = [("sentence", lead)] if lead else []
    for x in lines:
        out.extend((single, c) for c in (_split_long(x) if single == "item" else [x]))
    return out


def _sentences(line: str) -> list[str]:
    pieces = _LATIN_END.split(line)
    if "。" in line or "！" in line or "？" in line or "；" in line:
        pieces = [p for piece in pieces for p in _CJK_END.split(piece)]
    return pieces


def _prose_units(body: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    run: list[str] = []  # the current table's rows or list's items
    run_kind = ""
    lead: str | None = None  # the line that introduces the run ("Our customers:")

    def flush() -> None:
        nonlocal run_kind, lead
        if run:
            out.extend(_block(run, run_kind, lead))
            run.clear()
        elif lead:
            out.append(("sentence", lead))
        run_kind, lead = "", None

    def start(kind: str) -> None:
        nonlocal run_kind
        if run_kind != kind:
            if run_kind != "lead":
                flush()
            run_kind = kind

    for line in body.split("\n"):
        line = line.strip()
        if not line or line in ("---", "***"):
            continue
        if line.startswith("|"):
            start("table")
            if not _TABLE_RULE.match(line):
                run.append(line)
            continue
        item = _LIST_ITEM.match(line) if line[0] in _ITEM_START else None
        if item:
            line = line[item.end() :]
        if line[:1] in "#>" or "**" in line or "__" in line:
            line = _MARKUP.sub("", line).strip()
        if not line:
            continue
        if item:
            start("list")
            run.append(line)
            continue
        flush()
        sentences = [s.strip() for s in _sentences(line)]
        sentences = [c for s in sentences if s for c in _split_long(s)]
        if sentences and sentences[-1].endswith((":", "：")) and len(sentences[-1]) <= MAX_BLOCK_ITEM:
            lead = sentences.pop()  # held back: it goes with the table or list that follows, if one does
        out.extend(("sentence", c) for c in sentences)
        if lead is not None:
            run_kind = "lead"
    flush()
    return out


def split_text(text: str) -> list[tuple[str, str]]:
    """(kind, text) units of one turn, in order: "sentence", "item", "row", "code", and the blocks
    "table" (header and rows) and "list" (lead-in and items)."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _FENCE.finditer(text) if ("```" in text or "~~~" in text) else ():
        if m.start() > pos:
            out.extend(_prose_units(text[pos : m.start()]))
        out.append(("code", m.group(0)))
        pos = m.end()
    if pos < len(text):
        out.extend(_prose_units(text[pos:]))
    return out


VALUE_KINDS = ("number", "name", "ident")
# (their letters: salience.KIND_CODE)
_VALUE_CODES = frozenset(code for code, kind in S.KIND_OF_CODE.items() if kind in VALUE_KINDS)
MIN_SHARED = 2  # rare context terms a restatement must share with the statement it corrects
OLD_SHARE = 0.6  # of the statement's rare context terms, the restatement repeats at least this share
NEW_SHARE = 0.3  # and they make up at least this share of the restatement's (it may add a reason)
# A restatement that says it changes something ("pushed back to", "correction", 改到, 提前) may word the rest
# anew ("the licence renewal is due by 14 May" -> "correction: the renewal is due by 7 May"): it corrects
# the latest statement that shares a rare context term and a name with it (the month of a date) and has a
# number where it has another.
CHANGE_CUE = re.compile(
    r"(?i:\b(?:correction|corrected|update[ds]?|changed?|moved|pushed back|brought forward|postponed"
    r"|rescheduled|instead|no longer|now)\b)|改到|改成|改为|改在|提前到|推迟|延期|更正|更改|变成|顺延"
)
_NUMBER_CODES = frozenset(code for code, kind in S.KIND_OF_CODE.items() if kind == "number")


def _is_statement(u: Unit) -> bool:
    return u.kind != "code" and not u.text.rstrip().endswith(QUESTION_END) and not u.text.startswith("[")


Statement = tuple[frozenset[str], tuple[str, ...], frozenset[str], bool]


def _statement(u: Unit, df: dict[str, int], rare: int) -> Statement | None:
    """A statement's values (numbers, names, identifiers), its rare context terms (what it is about), its
    numbers and whether it says it changes something (CHANGE_CUE); None for what cannot be corrected (a
    question, code, a statement without a value)."""
    if not _is_statement(u):
        return None
    terms = u.terms
    if _VALUE_CODES.isdisjoint(u.kinds):  # (most units: what they are about is not needed)
        return None
    values = frozenset(compress(terms, map(_VALUE_CODES.__contains__, u.kinds)))  # (in C)
    # what the statement is about: its rare terms, less the Chinese pairs that run into a value ("杯五" of
    # "每杯五毛"), which change with the wording and the value (pairs with a function character, 是早 or
    # 到下, are no terms: salience.terms)
    inside = set("".join(t for t in values if not t.isascii()))
    keys = tuple(
        t for t in terms if t not in values and df[t] <= rare and not (inside and inside.intersection(t))
    )
    cue = CHANGE_CUE.search(u.text) is not None
    if len(keys) < (1 if cue else MIN_SHARED):
        return None
    numbers = frozenset(compress(terms, map(_NUMBER_CODES.__contains__, u.kinds)))
    return values, keys, numbers, cue


def mark_repeats_and_corrections(
    units: list[Unit], stats: S.TermStats, memo: dict[int, tuple[int, Any]] | None = None
) -> None:
    """Exact repeats, and statements a later unit restates with other values (the later one wins).

    A restatement shares most of the statement's rare context terms (what it is about) and brings a
    value (number, name, identifier) the statement did not have: "the rent is £35" then "the rent is now £40".
    `memo`: what was found of each unit (by its key) under the same `stats`, kept between builds.
    """
    seen: set[int] = set()  # the hashes of the texts so far, lower case
    rare = max(3, int(math.sqrt(stats.units)))
    df = stats.df
    postings: dict[str, list[int]] = {}  # rare context term -> earlier statements with values that use it
    facts: dict[int, tuple[frozenset[str], int, frozenset[str]]] = {}  # unit -> (values, rare terms, numbers)
    for k, u in enumerate(units):
        found = memo.get(u.key) if memo is not None and u.key >= 0 else None
        # (a text's 64-bit hash stands for it, not a lower-case copy kept in the memo: 2.7 MB of a 5 MB
        # conversation's 96k build; two texts of one conversation share a hash about once in 10^10)
        norm = hash(u.text.lower()) if found is None else found[0]
        if norm in seen:
            u.repeat = True
            continue
        seen.add(norm)
        if found is None:  # (what a repeat states is not worked out: half a first build's units)
            found = (norm, _statement(u, df, rare))
            if memo is not None and u.key >= 0:
                memo[u.key] = found
        statement = found[1]
        if statement is None:
            continue
        values, keys, numbers, cue = statement
        # earlier statement -> the rare context terms it shares with this one (counted in C, in the order
        # of first sharing)
        shared = Counter(chain.from_iterable(map(postings.get, keys, repeat(()))))
        need = max(MIN_SHARED, NEW_SHARE * len(keys))
        corrected = [
            j
            for j, n in shared.items()
            if n >= need  # (most: one or two terms in common)
            and n >= OLD_SHARE * facts[j][1]
            and values - facts[j][0]
            and facts[j][0] - values
        ]
        if cue and not corrected:  # the latest statement about it with another number by the same name
            said = [
                j
                for j in shared
                if units[j].turn != u.turn
                and not units[j].superseded
                and numbers - facts[j][2]
                and facts[j][2] - numbers
                and (values - numbers) & (facts[j][0] - facts[j][2])  # (the month of a date, the unit)
            ]
            corrected = [max(said, key=lambda j: (shared[j], j))] if said else []
        for j in corrected:
            earlier = units[j]
            if earlier.turn != u.turn and not earlier.superseded:
                earlier.superseded = True
                # the restatement is now where the fact is stated: it carries the weight of the
                # statement's terms (first statement, later references), not a repeat's
                u.weights = dict(u.weights)  # (weights are shared with the corpus: changed on a copy)
                for t, w in earlier.weights.items():
                    if w > u.weights.get(t, w):
                        u.weights[t] = w
        facts[k] = (values, len(keys), numbers)
        for t in keys:
            postings.setdefault(t, []).append(k)


def artifact_names(turns: list[Turn], chosen_code: list[Unit], limit: int = 20) -> list[str]:
    """Artifacts and attached files by name, then the identifiers the chosen code defines, at most `limit`.
    An artifact rewritten under a longer title ("Calculator", "Calculator with Presets", "... v3") is one
    artifact: its latest name is kept. When there are more than `limit`, the most recent are kept, in
    order. Images are left out: a photo's or screenshot's file name says nothing the next tool can use."""
    latest: dict[str, tuple[int, str]] = {}  # family -> (position of its last mention, its name there)
    position = 0
    for turn in turns:
        if "[artifact: " not in turn.text and " attached: " not in turn.text:
            continue
        for line in turn.text.split("\n"):
            if line.startswith("[artifact: "):
                name = line[len("[artifact: ") :].rstrip("]")
            elif " attached: " in line and line.startswith("[") and not line.startswith("[image "):
                name = line.split(" attached: ", 1)[1].rstrip("]")
            else:
                continue
            if name:
                latest[_family(name)] = (position, name)
                position += 1
    names = [name for _, name in sorted(latest.values())][-limit:] if limit > 0 else []
    for unit in chosen_code:
        names.extend(unit.names)
    return list(dict.fromkeys(names))[:limit]


_VERSION = re.compile(r"\s+v\d+$")


def _family(name: str) -> str:
    """What versions of one artifact share: the first three words of its title, without a version."""
    return " ".join(_VERSION.sub("", name).lower().split()[:3])


def render_digest(artifacts: list[str]) -> str:
    """The names of the artifacts, for the state-of-the-work section (shapes labels it)."""
    return ", ".join(artifacts)


def render_compressed(chosen: list[Unit], turns: list[Turn]) -> str:
    """Chosen units grouped by turn in order; "…" marks what was left out."""
    lines: list[str] = []
    current, last_seq = -1, -1
    prose: list[str] = []

    def flush() -> None:
        if prose:
            lines.append(" ".join(prose))
            prose.clear()

    for u in chosen:
        if u.turn != current:
            flush()
            current, last_seq = u.turn, -1
            lines.append(f"[{turns[u.turn].role} #{turns[u.turn].index}]")
        if u.kind in ("code", "row", "item", "table", "list"):
            flush()
            lines.append(u.text if u.kind != "item" else "- " + u.text)
        else:
            prose.append(u.text if u.seq == last_seq + 1 else f"… {u.text}")
        last_seq = u.seq
    flush()
    return "\n".join(lines)
