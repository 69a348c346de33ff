"""The "state of the work": goal, constraints and preferences, decisions and facts,
open questions, artifacts and code by name — extracted from the conversation.

Every sentence and code block of the turns becomes a scored Candidate; the
selector then spends the budget on the best ones. Categorised candidates are
shown under the digest headings, the rest as compressed earlier turns.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import salience as S
from .turns import Turn

CATEGORIES = (
    ("goal", "Goal"),
    ("constraint", "Constraints and preferences the user stated"),
    ("decision", "Decisions and facts established"),
    ("question", "Open questions"),
)
MAX_CODE_CHARS = 1800  # longer blocks are carried as their definition lines


@dataclass
class Candidate:
    turn: int  # index into the turn list
    seq: int  # order inside the turn, for chronological rendering
    msg_id: str
    role: str
    kind: str  # "sentence" or "code"
    text: str
    category: str | None
    score: float
    names: tuple[str, ...] = ()  # identifiers a code block defines


FAR = 8  # turns: a reference from this far on is the conversation coming back to it, not the same exchange


def _code_candidate(block: str, pos: int, stats: S.TermStats) -> tuple[str, tuple[str, ...], int, int]:
    """(text to carry, defined names, how many later turns use, how many turns far later use)."""
    names: list[str] = []
    for m in S.DEFINITION.finditer(block):
        name = next(g for g in m.groups() if g)
        if name not in names:
            names.append(name)
    used = sum(1 for n in names if stats.last.get(n.lower(), -1) > pos)
    far = sum(1 for n in names if stats.last.get(n.lower(), -1) >= pos + FAR)
    if len(block) <= MAX_CODE_CHARS:
        return block, tuple(names), used, far
    lines = block.split("\n")
    keep = (
        [lines[0]] + [ln for ln in lines[1:-1] if any(n in ln for n in names)][:40] + ["    ...", lines[-1]]
    )
    return "\n".join(keep), tuple(names), used, far


def _sentence_score(
    text: str,
    role: str,
    pos: int,
    n_turns: int,
    found: set[str],
    stats: S.TermStats,
    focus: set[str],
    first_user: bool,
) -> tuple[float, str | None]:
    score = 0.0
    category: str | None = None
    low = text.lower()  # cue patterns expect lower case
    words = len(text.split()) if text.isascii() else len(text) // 2
    if words < 4:
        score -= 1.0
    elif words > 70:
        score -= 0.5
    if role == "user":
        question = bool(S.QUESTION_END.search(low))
        asking = question or bool(S.REQUEST.search(low))
        score += 0.6
        if first_user:
            score += 1.5
            category = "goal"
        if not question and S.GOAL.search(low):
            score += 1.0
            category = "goal"
        if not asking:
            if S.CONSTRAINT.search(low):
                score += 1.8
                category = category or "constraint"
            if S.FIRST_PERSON.search(low):
                score += 0.6
        if S.OPEN.search(low):
            score += 1.0
            category = category or "question"
    else:
        asking = text.endswith(("?", "？"))
        if S.FLUFF.search(low):
            score -= 2.0
        if role == "tool":
            score -= 1.5
    if S.DECISION.search(low):
        score += 1.8 if role == "user" else 1.2
        if category in (None, "constraint") or role != "user":
            category = "decision"
    if S.DIGIT.search(text):
        score += 0.5
    if S.IDENTIFIER.search(text):
        score += 0.7
    if S.PROPER.search(text):
        score += 0.3
    if asking and category is None:
        score -= 0.8
    # the rest of the conversation comes back to it: names, numbers, identifiers used again later
    score += min(2.0, 0.6 * stats.referenced_later(found, pos))
    # it bears on what the user is asking now
    score += min(1.6, 0.8 * len(found & focus))
    # set-up statements cluster at the start of a conversation
    score += 0.6 * max(0.0, 1.0 - 4.0 * pos / max(1, n_turns))
    return score, category


def candidates(
    turns: list[Turn], focus_text: str, skip: frozenset[int] | set[int] = frozenset()
) -> list[Candidate]:
    """Every sentence and code block of `turns` (except those at `skip`), scored, in a deterministic order."""
    # split and term each scored turn once; a turn's terms are the union of its pieces' terms
    split: dict[int, list[tuple[str, str, set[str]]]] = {}
    per_turn: list[set[str]] = []
    for i, turn in enumerate(turns):
        if i in skip:
            per_turn.append(S.terms(turn.text))
            continue
        pieces = []
        for kind, body in S.split_blocks(turn.text):
            if kind == "code":
                pieces.append((kind, body, S.terms(body)))
            else:
                pieces.extend(
                    ("sentence", sentence, S.terms(sentence)) for sentence in S.split_sentences(body)
                )
        split[i] = pieces
        per_turn.append(set().union(*(found for _, _, found in pieces)))
    stats = S.TermStats.build(per_turn)
    focus = {t for t in S.terms(focus_text) if stats.df.get(t, 0) <= stats.rare_limit()}
    n = len(turns)
    first_user = next((i for i, t in enumerate(turns) if t.role == "user"), -1)
    out: list[Candidate] = []
    for i, pieces in split.items():
        turn = turns[i]
        seq = 0
        first_sentences = 2 if i == first_user else 0
        for kind, body, found in pieces:
            if kind == "code":
                text, names, used, far = _code_candidate(body, i, stats)
                score = (
                    0.5
                    + (2.5 if used else 0.0)
                    + (2.0 if far else 0.0)
                    - (1.0 if turn.role == "tool" else 0.0)
                )
                out.append(Candidate(i, seq, turn.id, turn.role, "code", text, None, score, names))
                seq += 1
                continue
            score, category = _sentence_score(body, turn.role, i, n, found, stats, focus, first_sentences > 0)
            first_sentences = max(0, first_sentences - 1)
            out.append(Candidate(i, seq, turn.id, turn.role, "sentence", body, category, score))
            seq += 1
    return out


def artifact_names(turns: list[Turn], chosen_code: list[Candidate], limit: int = 20) -> list[str]:
    """Artifacts, files and code identifiers by name, first mention first."""
    names: list[str] = []
    for turn in turns:
        for line in turn.text.split("\n"):
            if line.startswith("[artifact: "):
                names.append(line[len("[artifact: ") :].rstrip("]"))
            if "[" in line and " attached: " in line:
                names.append(line.split(" attached: ", 1)[1].rstrip("]"))
    for cand in chosen_code:
        names.extend(cand.names)
    seen: dict[str, None] = {}
    for name in names:
        if name and name not in seen:
            seen[name] = None
    return list(seen)[:limit]


def render_digest(chosen: list[Candidate], artifacts: list[str]) -> str:
    """The digest section: categorised sentences, each under its heading."""
    lines: list[str] = []
    for key, heading in CATEGORIES:
        items = [c for c in chosen if c.category == key]
        if not items:
            continue
        lines.append(f"{heading}:")
        lines.extend(f"- ({c.role}) {c.text}" for c in items)
    if artifacts:
        lines.append("Artifacts and code: " + ", ".join(artifacts))
    return "\n".join(lines)


def render_compressed(chosen: list[Candidate], turns: list[Turn]) -> str:
    """Uncategorised sentences and code, grouped by turn in order; "…" marks what was left out."""
    lines: list[str] = []
    current, last_seq = -1, -1
    prose: list[str] = []

    def flush() -> None:
        if prose:
            lines.append(" ".join(prose))
            prose.clear()

    for c in chosen:
        if c.category is not None and c.kind == "sentence":
            continue
        if c.turn != current:
            flush()
            current, last_seq = c.turn, -1
            lines.append(f"[{turns[c.turn].role} #{turns[c.turn].index}]")
        if c.kind == "code":
            flush()
            lines.append(c.text)
        else:
            prose.append(c.text if c.seq == last_seq + 1 else f"… {c.text}")
        last_seq = c.seq
    flush()
    return "\n".join(lines)
