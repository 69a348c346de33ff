"""Search over an archive of 10,000 conversations / 500,000 messages.

Queries of known kinds are picked from the corpus and checked against the
archive: ordinary words (in 0.1-2% of messages), two-word queries, frequent
words (2-10%), very common words, rare words (1-50 messages), prefixes, and
Chinese queries of 2 and of 3-4 characters (the CJK bigram index). Each is
timed through Archive.search (limit 20, snippets) and a few through the host's
`search` action. Floor: the bare FTS5 lookup the search is built on (the ranked
top 20 of the word index, or of the bigram index for Chinese). The note also
gives what the same Chinese queries cost as a trigram LIKE or an instr() scan.
"""

from __future__ import annotations

import re
from collections import Counter

import corpus
import search_archive
from benchlib import BenchHost, Figure, emit, median, p95, timed, use_home

TARGET_MS = 10.0
REPEATS = 3
STOPWORDS = set(
    [
        "that",
        "this",
        "with",
        "have",
        "from",
        "your",
        "what",
        "they",
        "will",
        "would",
        "there",
        "their",
        "about",
        "which",
        "when",
        "like",
        "just",
        "more",
        "some",
        "into",
        "than",
        "then",
        "them",
        "were",
        "been",
        "also",
        "only",
        "here",
        "could",
        "should",
        "these",
        "those",
        "because",
        "other",
        "make",
        "want",
        "need",
        "even",
        "still",
        "does",
        "doesn",
        "where",
        "while",
        "after",
        "before",
        "being",
        "over",
        "such",
        "very",
        "much",
        "most",
        "each",
        "every",
        "both",
        "through",
        "really",
        "thing",
        "things",
        "know",
    ]
)


def _fts_expr(query: str) -> str:
    """The MATCH expression Archive.search builds (every word, the last as a prefix)."""
    terms = ['"' + w.replace('"', '""') + '"' for w in re.findall(r"\w+", query)]
    terms[-1] += "*"
    return " AND ".join(terms)


def hits(conn, word: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (f'"{word}"',)
    ).fetchone()[0]


def word_frequencies() -> Counter:
    english, _ = corpus.sentences()
    counts: Counter = Counter()
    for sentence in english:
        counts.update({w for w in re.findall(r"[a-z]{4,}", sentence.lower())})
    return counts


def word_pairs() -> Counter:
    """Adjacent pairs of content words in the corpus ("fuel pressure", "wiring harness")."""
    english, _ = corpus.sentences()
    counts: Counter = Counter()
    for sentence in english:
        words = re.findall(r"[a-z]+", sentence.lower())
        counts.update(
            {
                f"{a} {b}"
                for a, b in zip(words, words[1:])
                if len(a) >= 4 and len(b) >= 4 and a not in STOPWORDS and b not in STOPWORDS
            }
        )
    return counts


def cjk_ngrams(n: int) -> Counter:
    _, chinese = corpus.sentences()
    counts: Counter = Counter()
    for sentence in chinese:
        counts.update(
            {
                sentence[i : i + n]
                for i in range(len(sentence) - n + 1)
                if all("\u4e00" <= ch <= "\u9fff" for ch in sentence[i : i + n])
            }
        )
    return counts


def ranked(counts: Counter, n: int) -> list[str]:
    """The n most frequent, ties broken by the text (set order varies with the hash seed)."""
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def _spread(items: list, count: int) -> list:
    """`count` items evenly spread over a sorted list."""
    if len(items) <= count:
        return items
    return [items[int(i * (len(items) - 1) / (count - 1))] for i in range(count)]


def pick_queries(conn, messages: int) -> dict[str, list[str]]:
    words = [w for w in ranked(word_frequencies(), 400) if w not in STOPWORDS]
    counted = sorted(((hits(conn, w), w) for w in words), reverse=True)
    ordinary = [w for n, w in counted if 0.001 * messages <= n <= 0.02 * messages]
    frequent = [w for n, w in counted if 0.02 * messages < n <= 0.10 * messages]
    ordinary = _spread(ordinary, 20)
    rare = []
    for word in corpus.rare_words():
        if 1 <= hits(conn, word) <= 50:
            rare.append(word)
        if len(rare) == 20:
            break
    pairs = [
        p
        for p in ranked(word_pairs(), 40)
        if 0.0002 * messages <= hits(conn, p.replace(" ", '" AND "')) <= 0.02 * messages
    ]
    pairs = _spread(pairs, 8)
    prefixes = list(dict.fromkeys(w[:4] for w in ordinary))[:12]
    bigrams = ranked(cjk_ngrams(2), 300)[20::28][:8]
    longer = ranked(cjk_ngrams(3), 200)[5::20][:6] + ranked(cjk_ngrams(4), 200)[5::30][:6]
    return {
        "ordinary": ordinary,
        "two-word": pairs,
        "frequent": _spread(frequent, 8),
        "very common": ["the", "and"],
        "rare": rare,
        "prefix": prefixes,
        "cjk2": bigrams,
        "cjk3+": longer,
    }


def floor_call(conn, kind: str, query: str) -> float:
    if kind.startswith("cjk"):
        from mnemosyne.cjk import query as cjk_query

        sql, arg = (
            "SELECT rowid FROM messages_cjk WHERE messages_cjk MATCH ? ORDER BY rank LIMIT 20",
            cjk_query(query),
        )
    else:
        sql, arg = (
            "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20",
            _fts_expr(query),
        )
    return timed(lambda: conn.execute(sql, (arg,)).fetchall())


def measure(arc, kind: str, queries: list[str], repeats: int) -> tuple[list[float], list[float], int]:
    """(seconds per search, floor seconds, queries with no result)."""
    seconds, floors, empty = [], [], 0
    for query in queries:  # per query: the searches, then the floors (a floor that ranks every match of a
        # very common word evicts the search's pages from the cache, so calls are not interleaved)
        empty += not arc.search(query, limit=20)  # warm-up, and a check the query finds something
        seconds += [timed(lambda: arc.search(query, limit=20)) for _ in range(repeats)]
        floor_call(arc.conn, kind, query)
        floors += [floor_call(arc.conn, kind, query) for _ in range(repeats)]
    return seconds, floors, empty


P95_TARGET_MS = 30.0  # prefixes and very common words stay interactive, measured at p95
ROWS = [  # (kind, label, median target, p95 target, repeats)
    ("ordinary", "ordinary words (0.1-2% of messages)", TARGET_MS, None, REPEATS),
    ("two-word", "two-word queries", TARGET_MS, None, REPEATS),
    ("cjk3+", "Chinese, 3-4 characters (bigram index)", TARGET_MS, None, REPEATS),
    ("cjk2", "Chinese, 2 characters (bigram index)", TARGET_MS, None, REPEATS),
    ("rare", "rare words (1-50 messages)", None, None, REPEATS),
    ("prefix", "4-letter prefixes", None, P95_TARGET_MS, REPEATS),
    ("frequent", "frequent words (2-10% of messages)", None, None, REPEATS),
    ("very common", "very common words (the, and)", None, P95_TARGET_MS, 5),
]


def host_figure(folder, queries: dict[str, list[str]], arc) -> Figure:
    """The host's search action on a few queries of the targeted kinds; floor: the same searches in-process."""
    picked = queries["ordinary"][:5] + queries["cjk3+"][:5] + queries["rare"][:3]
    host = BenchHost(use_home(folder))
    try:
        host.timed_call({"action": "hello"})
        seconds = []
        for query in picked:
            host.timed_call({"action": "search", "query": query})
            seconds += [host.timed_call({"action": "search", "query": query})[0] for _ in range(REPEATS)]
        peak = host.finish()
    finally:
        host.kill()
    inproc = [timed(lambda: arc.search(q, limit=20)) for q in picked for _ in range(REPEATS)]
    return Figure(
        "host search action round trip (ordinary, Chinese 3-4, rare; median)",
        median(seconds) * 1000,
        "ms",
        None,
        median(inproc) * 1000,
        "Archive.search in-process",
        extra={"host_peak_mb": peak},
    )


def run(
    conversations: int = search_archive.CONVERSATIONS,
    messages: int = search_archive.MESSAGES,
    prune: bool = True,
) -> tuple[list[Figure], list[str]]:
    from mnemosyne.archive import open_archive

    folder, info = search_archive.ensure(conversations, messages, prune=prune)
    figures: list[Figure] = []
    notes = [
        f"archive: {info['conversations']:,} conversations, {info['messages']:,} messages, "
        f"{info['bytes'] / 1e9:.2f} GB encrypted (built in {info['seconds']:.0f} s, cached in {folder.name})"
    ]
    with open_archive(folder / "archive.db", create=False) as arc:
        queries = pick_queries(arc.conn, info["messages"])
        for kind, label, target, p95_target, repeats in ROWS:
            seconds, floors, empty = measure(arc, kind, queries[kind], repeats)
            floor_label = "bare FTS5 query" if not kind.startswith("cjk") else "bare bigram FTS5 query"
            figures.append(
                Figure(
                    f"search {label}, median",
                    median(seconds) * 1000,
                    "ms",
                    target,
                    median(floors) * 1000,
                    floor_label,
                )
            )
            figures.append(
                Figure(
                    f"search {label}, p95",
                    p95(seconds) * 1000,
                    "ms",
                    p95_target,
                    p95(floors) * 1000,
                    floor_label,
                )
            )
            notes.append(
                f"{kind}: {', '.join(queries[kind])}" + (f" ({empty} found nothing)" if empty else "")
            )
        host = host_figure(folder, queries, arc)
    figures.append(host)
    figures.append(
        Figure(
            "host peak memory after the search runs (its whole life)", host.extra["host_peak_mb"] or 0.0, "MB"
        )
    )
    return figures, notes


if __name__ == "__main__":
    figs, notes = run()
    emit(figs, notes)
