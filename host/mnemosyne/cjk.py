"""Chinese, Japanese and Korean text: found in a text (the context engine, the word index) and indexed.

unicode61 treats an unbroken CJK run as one token, so "数据库的设计" would only
match itself. We index CJK runs as overlapping bigrams ("数据 据库 库的 的设 设计")
and turn a query run into the phrase of its bigrams: any substring of two or more
characters then matches through the index, ranked by BM25 like English words.
"""

from __future__ import annotations

import re

_CJK_CHAR = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
CJK_RUN = re.compile(_CJK_CHAR + "+")
# a search for one character, not a run: re scans for a lone character class ~3x faster
_ANY_CJK = re.compile(_CJK_CHAR)


def has_cjk(text: str) -> bool:
    # isascii() reads a flag CPython keeps on every str (no scan): most message text needs no regex pass
    return not text.isascii() and _ANY_CJK.search(text) is not None


def without_cjk(text: str) -> str:
    """The text the trigram index holds: CJK runs (the bigram index finds them) cut out, each a line break,
    so no trigram spans one. A needle with no CJK in it still finds every occurrence (search.py)."""
    return CJK_RUN.sub("\n", text) if has_cjk(text) else text


def bigrams(run: str) -> str:
    if len(run) == 1:
        return run
    return " ".join(run[i : i + 2] for i in range(len(run) - 1))


def index_text(text: str) -> str:
    """The text with every CJK run replaced by its bigrams; other words stay as they are."""
    return CJK_RUN.sub(lambda m: f" {bigrams(m.group(0))} ", text)


def query(text: str) -> str | None:
    """An FTS5 query: each CJK run (2+ characters) as a phrase of bigrams, other words as terms.

    None when the query has a lone CJK character, which bigrams cannot find (the caller scans).
    """
    terms: list[str] = []
    pos = 0
    for match in CJK_RUN.finditer(text):
        terms += _words(text[pos : match.start()])
        run = match.group(0)
        if len(run) < 2:
            return None
        terms.append('"' + bigrams(run) + '"')
        pos = match.end()
    terms += _words(text[pos:])
    return " AND ".join(terms) if terms else None


def _words(text: str) -> list[str]:
    return ['"' + w.replace('"', '""') + '"' for w in re.findall(r"\w+", text)]
