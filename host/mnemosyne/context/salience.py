"""Cue words and term statistics that say which sentences matter later.

No model calls: English and Chinese cue phrases mark goals, constraints,
decisions and open questions; rare terms that come back in later turns
(names, numbers, identifiers) mark what the rest of the conversation relies on.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# ---------------------------------------------------------------- cue words
# Cue patterns run on the lower-cased sentence: case-insensitive alternations are several times slower.


def _lowered(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("(?i:", "(?:").replace("(?i)", ""))


GOAL = _lowered(
    r"(?i:\b(?:my goal|our goal|the goal|the aim|the point is|what i(?:'m| am) after|i(?:'m| am) (?:trying|building|working on|making|writing|planning)"
    r"|i want to build|i want to make|we(?:'re| are) building)\b)"
    r"|我的目标|目标是|我想做|我在做|我们在做|我正在|打算做"
)
CONSTRAINT = _lowered(
    r"(?i:\b(?:must(?:n't| not)?|mustn't|don't|do not|never|always|please (?:don't|do not|keep|use|avoid|make|stick)|make sure"
    r"|can't|cannot|can not|won't|isn't allowed|not allowed|no more than|at most|at least|maximum|minimum"
    r"|prefer|i'd rather|i would rather|rather than|instead of|avoid|stuck (?:on|with)|required|requirement|limit(?:ed)?"
    r"|budget|deadline|due (?:on|by)|allergic|i'm (?:a|an|on|in|using|stuck|based|not)|i am (?:a|an|on|in|using|based|not)"
    r"|i work|i live|i run|i use|we use|we run|we have|i have|i only|we only|only have|our \w+ (?:is|are|has|runs)"
    r"|my \w+ (?:is|are|has|runs|wants|needs)|our \w+ (?:wants|needs)|has to|have to|needs to be|wants|requires|expects|insists|for context|fyi|btw"
    r"|keep (?:it|them|the answers?))\b)"
    r"|必须|不要|别用|别给|别推荐|别再|不想|不希望|不打算|不能|不可以|只能|只有|一定要|务必|尽量|最多|至少|不超过|预算|截止|偏好|喜欢"
    r"|希望|最好|我是|我在|我们在|我用|我们用"
    r"|我的|我们的|顺便说|另外"
)
DECISION = _lowered(
    r"(?i:\b(?:let's (?:go with|use|do|stick|keep|call|name|make|settle)|let us (?:go|use)|we'll (?:use|go|do|stick|call|name|keep|need)"
    r"|we will (?:use|go|do|keep)|decided|decision|agreed|settled|going with|go with|finali[sz]ed|chose|chosen|picked"
    r"|switch(?:ed)? to|confirmed|sounds good|that works|we're using|we are using|we(?:'ll| will) call|is called|named"
    r"|ok(?:ay)?,? (?:then|so|let's|we)|the plan is|from now on|fixed at|set to)\b)"
    r"|决定|就用|就这么|我们用|确定|定了|采用|选定|同意|就按|就叫|命名为|改成|统一用|以后都"
)
OPEN = _lowered(
    r"(?i:\b(?:not sure|open question|todo|tbd|still need|still have to|next step|haven't decided|undecided|unclear|figure out later"
    r"|to be decided|remaining)\b)|待定|还没|下一步|不确定|没想好|再说"
)
FLUFF = _lowered(
    r"(?i)^(?:sure|of course|certainly|absolutely|great|glad|thanks|thank you|you're welcome|i'm sorry|i apologi[sz]e"
    r"|as an ai|here(?:'s| is| are)|let me know|feel free|hope this helps|i hope|happy to help|no problem|good luck)\b"
    r"|^(?:好的|当然|没问题|谢谢|不客气|希望这|如果您还有|请告诉我)"
)
QUESTION_END = _lowered(
    r"[?？]\s*$|^(?i:can you|could you|how (?:do|can|would|should)|what|why|is there|are there)\b|吗[？?]?$"
)
# a request for a task ("Write a...", "Calculate..."): what the user asked then, not a standing constraint
REQUEST = _lowered(
    r"(?i)^(?:(?:hi|hello|hey)\b[,!.]?\s*)?(?:now,?\s+)?(?:please\s+)?(?:add|create|write|generate|calculate|explain|give|tell|find|provide|rewrite|describe|compose"
    r"|translate|summari[sz]e|convert|identify|list|suggest|design|imagine|make|construct|develop|analy[sz]e|compare"
    r"|classify|edit|name|can you|could you|would you|i need (?:to|you|a|an|some|help)|i want you|help me)\b"
    r"|^(?:请|帮我|你能|能否|可以帮|我需要)"
)
FIRST_PERSON = _lowered(
    r"(?i)^(?:also,? |and |btw,? |oh,? |ok,? |for context,? |one (?:catch|thing)[:,]? )?(?:i|i'm|i've|my|our|we|we're|we've)\b|^(?:我|我们)"
)
DIGIT = re.compile(r"\d")
IDENTIFIER = re.compile(
    r"`[^`\n]{2,60}`|\b[A-Za-z]+_[A-Za-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[\w\-]+\.(?:py|js|ts|tsx|jsx|md|json|sql|ya?ml|toml|sh|go|rs|java|rb|php|c|cpp|h|css|html|csv|txt)\b"
)
PROPER = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+(?:[ &][A-Z][a-z]+)*")

# definitions in code blocks: the names later turns may refer to
DEFINITION = re.compile(
    r"(?m)(?:^|\s)(?:async\s+def|def|class|function|func|fn|interface|struct|enum|type|const|let|var|trait|impl)\s+([A-Za-z_][\w]*)"
    r"|(?i:create\s+(?:table|view|index)(?:\s+if\s+not\s+exists)?\s+([A-Za-z_][\w.]*))"
    r"|^\s*([A-Z][A-Z0-9_]{2,})\s*[:=]"
)

# ---------------------------------------------------------------- sentences

_FENCE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$")
_MARKUP = re.compile(r"^(?:#{1,6}\s+|[-*+]\s+|\d{1,3}[.)]\s+|>\s*)+|\*\*|__")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9*_`\-])|(?<=[。！？；])")
MAX_SENTENCE_CHARS = 500


def split_blocks(text: str) -> list[tuple[str, str]]:
    """('code', fenced block) and ('prose', text) pieces in order."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _FENCE.finditer(text):
        if m.start() > pos:
            out.append(("prose", text[pos : m.start()]))
        out.append(("code", m.group(0)))
        pos = m.end()
    if pos < len(text):
        out.append(("prose", text[pos:]))
    return out


def split_sentences(prose: str) -> list[str]:
    out: list[str] = []
    for line in prose.split("\n"):
        line = line.strip()
        if not line or line in ("---", "***"):
            continue
        for piece in _SENTENCE_END.split(line):
            piece = _MARKUP.sub("", piece).strip()
            if len(piece) > MAX_SENTENCE_CHARS:
                piece = piece[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
            if piece:
                out.append(piece)
    return out


# ---------------------------------------------------------------- terms

_TERM = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{2,}|\d[\d.,:/]*\d|[\u3400-\u9fff]{2,}")
STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "that",
        "this",
        "with",
        "you",
        "your",
        "are",
        "was",
        "were",
        "have",
        "has",
        "had",
        "not",
        "but",
        "can",
        "will",
        "would",
        "could",
        "should",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "how",
        "why",
        "all",
        "any",
        "some",
        "one",
        "two",
        "also",
        "just",
        "like",
        "into",
        "from",
        "about",
        "than",
        "then",
        "them",
        "they",
        "their",
        "there",
        "here",
        "its",
        "it's",
        "our",
        "out",
        "use",
        "using",
        "used",
        "get",
        "got",
        "make",
        "made",
        "need",
        "want",
        "sure",
        "yes",
        "okay",
        "thanks",
        "thank",
        "please",
        "let",
        "let's",
        "i'm",
        "you're",
        "don't",
        "can't",
        "doesn't",
        "isn't",
        "won't",
        "it's",
        "that's",
        "more",
        "most",
        "very",
        "much",
        "many",
        "each",
        "other",
        "such",
        "only",
        "well",
        "now",
        "new",
        "good",
        "best",
        "way",
        "does",
        "did",
        "done",
        "being",
        "been",
        "may",
        "might",
        "must",
        "shall",
        "able",
        "example",
        "examples",
        "following",
        "based",
        "help",
        "provide",
        "information",
        "below",
        "above",
        "first",
        "second",
        "next",
        "last",
        "time",
        "times",
        "thing",
        "things",
        "something",
        "anything",
        "know",
        "think",
        "see",
        "look",
        "sorry",
    ]
)


def terms(text: str) -> set[str]:
    """Content terms: words (3+ letters, no stop words), numbers, identifiers, CJK bigrams."""
    found = set(_TERM.findall(text.lower()))
    found -= STOPWORDS
    cjk = [t for t in found if t[0] >= "\u3400"]
    if cjk:
        found.difference_update(cjk)
        for run in cjk:
            found.update(run[i : i + 2] for i in range(len(run) - 1))
    return found


@dataclass
class TermStats:
    """For each term: how many turns use it and the last turn that does."""

    df: dict[str, int]
    last: dict[str, int]
    turns: int
    rare: frozenset[str] = frozenset()  # terms few turns use: names, numbers, identifiers

    @classmethod
    def build(cls, per_turn: list[set[str]]) -> TermStats:
        df: dict[str, int] = {}
        last: dict[str, int] = {}
        for pos, found in enumerate(per_turn):
            for t in found:
                df[t] = df.get(t, 0) + 1
                last[t] = pos
        limit = max(3, int(math.sqrt(len(per_turn))))
        return cls(
            df=df, last=last, turns=len(per_turn), rare=frozenset(t for t, n in df.items() if n <= limit)
        )

    def rare_limit(self) -> int:
        return max(3, int(math.sqrt(self.turns)))

    def referenced_later(self, found: set[str], pos: int, gap: int = 2) -> int:
        """Rare terms of a sentence at turn `pos` that turns at least `gap` later use again."""
        last = self.last
        return sum(1 for t in found & self.rare if last[t] >= pos + gap)
