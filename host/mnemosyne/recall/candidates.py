"""The conversations recall looks in: found with the archive's word index (FTS5, BM25).

Messages holding every query word come first. When too few do, the commonest word is let go, then the next
commonest, and so on: a message holding the query's rarer words is a better lead than one holding any of
them. Only then do messages holding any word count. Matching any word alone ranked poorly: a common word
("explain", "learning") matches more messages than the index ranks (archive/search.py ranks the most
recently saved ones), so the conversation holding the rare ones was often not among the candidates.
A word matches in any of its forms (as typed, and its stem: a plural finds the singular).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..archive import search as archive_search
from ..cjk import has_cjk
from ..context.stopwords import STOPWORDS
from . import ranking

if TYPE_CHECKING:
    from ..archive import Archive

_WORD = re.compile(r"\w+", re.UNICODE)


def index_words(query: str) -> list[list[str]]:
    """The query's words as the search index holds them (unicode61 folds case), stop words left out,
    each with its stem when that differs."""
    words: dict[str, list[str]] = {}
    for word in _WORD.findall(query.casefold()):
        if len(word) > 1 and word not in STOPWORDS and word not in words:
            words[word] = list(dict.fromkeys((word, ranking.stem(word))))
    return list(words.values())


def candidate_ids(arc: Archive, query: str, limit: int, site: str | None) -> list[str]:
    """The conversations to look in, best first (see the module); a query in Chinese, Japanese or Korean
    goes through the archive's search as it is."""
    arc.index_pending()  # a save whose index was deferred is found as soon as its reply went out
    if has_cjk(query):
        return [hit["id"] for hit in archive_search.search(arc.conn, query, limit=limit, site=site)]
    words = index_words(query)
    if not words:
        return []
    most = archive_search.CANDIDATES + 1  # (past what the index ranks, a word is as common as can be)
    rarest_first = sorted(words, key=lambda forms: archive_search.messages_with_word(arc.conn, forms, most))
    found: dict[str, None] = {}
    for kept in range(len(rarest_first), 0, -1):
        for conv_id in archive_search.conversations_with_words(arc.conn, rarest_first[:kept], limit, site):
            found.setdefault(conv_id)
        if len(found) >= limit:
            return list(found)[:limit]
    for conv_id in archive_search.conversations_with_words(arc.conn, words, limit * 2, site, any_word=True):
        found.setdefault(conv_id)
    return list(found)[:limit]
