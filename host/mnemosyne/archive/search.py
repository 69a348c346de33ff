"""Full-text search over titles and message text.

- Words: the unicode61 index, ranked by BM25. Exact words first; the last word
  becomes a prefix only when exact words find too little (the popup searches as
  people type).
- Chinese, Japanese, Korean: the bigram index (see cjk.py), ranked by BM25.
- Anything else (a substring inside a word, a lone CJK character): the trigram
  index (the bigram index for what it leaves out, CJK) finds candidates,
  re-checked against the text; a scan when neither index can narrow them.
Each path ranks a bounded set of best messages, then groups them by conversation.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .. import cjk
from .db import Connection

HIT_OPEN, HIT_CLOSE = "\u00ab", "\u00bb"  # « » : plain-text markers, rendered with textContent
SNIPPET_CHARS = 160
TOP_MESSAGES = (
    3  # best messages per wanted conversation, ranked before grouping (more when too few conversations)
)
_WORD = re.compile(r"\w+", re.UNICODE)
CANDIDATES = 2000  # most matches a query ranks (the most recently saved ones)
RECENT_ONLY = 50_000  # more matches than this: not ranked, the most recent first

_SUMMARY = (
    "SELECT id, title, site, updated_at, message_count, project, model, has_code, has_attachments, text_chars,"
    " derived_title FROM conversations WHERE id = ?"
)


def _terms(query: str, prefix: bool) -> str | None:
    words = _WORD.findall(query)
    if not words:
        return None
    terms = ['"' + w.replace('"', '""') + '"' for w in words]
    if prefix:
        terms[-1] += "*"
    return " AND ".join(terms)


def _best_conversations(
    conn: Connection, table: str, match: str, limit: int, site: str | None
) -> list[tuple[str, float, int]]:
    """(conversation id, best rank, rowid of its best message) for the top conversations.

    Ranks only the best few messages per wanted conversation (each costs a lookup in the
    encrypted table); widens the window when they came from too few conversations."""
    site_sql = "JOIN conversations c ON c.id = m.conversation_id AND c.site = ?" if site else ""
    window = limit * TOP_MESSAGES * (4 if site else 1)
    # Ranking every match is what made very common words and short prefixes slow: a query matching more
    # than CANDIDATES messages ranks only the most recently saved CANDIDATES, and one matching more than
    # RECENT_ONLY (a stop word: BM25's document count alone costs a pass over them all) is not ranked:
    # its most recent matches come first.
    # A prefix (`word*`) without a prefix index is expanded again by every query that uses it (all the
    # terms it covers, merged): one with more than CANDIDATES matches lists its most recent ones unranked,
    # without the second count, so it costs two expansions, not three (the popup sends one as people type).
    cutoff, recent_only = _nth_newest(conn, table, match, CANDIDATES), False
    if cutoff is not None:
        recent_only = match.endswith("*") or _nth_newest(conn, table, match, RECENT_ONLY) is not None
    if recent_only:
        ranked = f"SELECT rowid, -rowid AS rank FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC"
    else:
        recent = "" if cutoff is None else f"AND rowid >= {cutoff}"
        ranked = f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? {recent} ORDER BY rank"
    while True:
        sql = f"""
            WITH hits AS ({ranked} LIMIT {window})
            SELECT m.conversation_id, min(h.rank) AS best, h.rowid, (SELECT count(*) FROM hits)
            FROM hits h JOIN messages m ON m.rowid = h.rowid {site_sql}
            GROUP BY m.conversation_id ORDER BY best LIMIT ?
        """
        rows = conn.execute(sql, [match] + ([site] if site else []) + [limit]).fetchall()
        if len(rows) >= limit or not rows or rows[0][3] < window or window >= 20_000:
            return [(r[0], 0.0 if recent_only else r[1], r[2]) for r in rows]
        window *= 10


def _nth_newest(conn: Connection, table: str, match: str, n: int) -> int | None:
    """The rowid of the n-th most recent match, None when there are fewer."""
    row = conn.execute(
        f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET {n - 1}",
        (match,),
    ).fetchone()
    return None if row is None else int(row[0])


def _results(
    conn: Connection, best: list[tuple[str, float, int]], snippets: dict[int, str]
) -> list[dict[str, Any]]:
    out = []
    for conv_id, rank, rowid in best:
        row = conn.execute(_SUMMARY, (conv_id,)).fetchone()
        out.append(
            {
                "id": row[0],
                "title": row[1],
                "site": row[2],
                "updated_at": row[3],
                "message_count": row[4],
                # the library's filters and sorts, applied to the results by the page (as in `list`)
                "project": row[5],
                "model": row[6],
                "has_code": bool(row[7]),
                "has_attachments": bool(row[8]),
                "length": row[9],
                "score": round(-rank, 4),
                "snippet": snippets.get(rowid, ""),
            }
        )
        if not row[1]:  # what tells untitled conversations apart, as `list` gives it
            out[-1]["first_words"] = row[10]
    return out


def _word_search(conn: Connection, query: str, limit: int, site: str | None) -> list[dict[str, Any]]:
    best: list[Any] = []
    match = None
    for prefix in (False, True):
        match = _terms(query, prefix)
        if match is None:
            return []
        best = _best_conversations(conn, "messages_fts", match, limit, site)
        if len(best) >= limit or not _WORD.findall(query)[-1].isalnum():
            break
    if not best:
        return []
    if match is not None and match.endswith("*"):
        # FTS5's snippet() expands the prefix again for every row: ~3 ms a row
        words = _WORD.findall(query)
        return _results(conn, best, {r[2]: _word_snippet(_body(conn, r[2]), words) for r in best})
    rowids = [r[2] for r in best]
    marks = ",".join("?" * len(rowids))
    snippets = dict(
        conn.execute(
            f"SELECT rowid, snippet(messages_fts, -1, '{HIT_OPEN}', '{HIT_CLOSE}', '…', 16) FROM messages_fts "
            f"WHERE messages_fts MATCH ? AND rowid IN ({marks})",
            [match, *rowids],
        ).fetchall()
    )
    return _results(conn, best, snippets)


def _body(conn: Connection, rowid: int) -> str:
    row = conn.execute("SELECT title, body FROM messages_fts WHERE rowid = ?", (rowid,)).fetchone()
    return "\n".join(x for x in row if x) if row else ""


def _cjk_search(conn: Connection, query: str, limit: int, site: str | None) -> list[dict[str, Any]] | None:
    match = cjk.query(query)
    if match is None:
        return None
    best = _best_conversations(conn, "messages_cjk", match, limit, site)
    needle = max(cjk.CJK_RUN.findall(query), key=len)
    return _results(conn, best, {r[2]: _snippet(_body(conn, r[2]), needle) for r in best})


def _snippet(body: str, needle: str) -> str:
    """A window of the body around the first match, with « » around it."""
    idx = body.casefold().find(needle.casefold())
    if idx < 0:
        return body[:SNIPPET_CHARS].replace("\n", " ")
    start = max(0, idx - SNIPPET_CHARS // 2)
    end = min(len(body), idx + len(needle) + SNIPPET_CHARS // 2)
    prefix = "…" if start else ""
    suffix = "…" if end < len(body) else ""
    return (
        prefix
        + body[start:idx]
        + HIT_OPEN
        + body[idx : idx + len(needle)]
        + HIT_CLOSE
        + body[idx + len(needle) : end]
        + suffix
    ).replace("\n", " ")


def _word_snippet(body: str, words: list[str]) -> str:
    """_snippet around the first of the query's words, the last one a prefix (as the query matched)."""
    alternatives = [re.escape(w) + r"\b" for w in words[:-1]] + [re.escape(words[-1]) + r"\w*"]
    found = re.search(r"\b(?:" + "|".join(alternatives) + ")", body, re.IGNORECASE)
    return _snippet(body, found.group(0) if found else words[-1])


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


# The text the trigram index was made from (indexing.py), read from messages_fts: the trigram table holds no copy
_TEXT = "CASE WHEN f.title = '' THEN f.body ELSE f.title || char(10) || f.body END"


def _trigram_match(needle: str) -> str | None:
    """An FTS5 query for the trigram table: every trigram of the needle outside its CJK runs (the table
    leaves those out), AND-ed; a superset of the messages holding the needle. None without any."""
    grams = dict.fromkeys(part[i : i + 3] for part in cjk.CJK_RUN.split(needle) for i in range(len(part) - 2))
    return " AND ".join('"' + g.replace('"', '""') + '"' for g in grams) or None


def _cjk_match(needle: str) -> str | None:
    """An FTS5 query for the bigram table that every message holding the needle matches: each CJK run of
    two or more characters as the phrase of its bigrams; a lone CJK character after another character
    starts its run in the text, so its bigram (or itself) has it as a prefix. None without any."""
    terms = []
    for run in cjk.CJK_RUN.finditer(needle):
        if not all(ch.isalnum() for ch in run.group(0)):
            continue  # a separator for the tokenizer: no term to ask for
        if len(run.group(0)) >= 2:
            terms.append(f'"{cjk.bigrams(run.group(0))}"')
        elif run.start() > 0:
            terms.append(f'"{run.group(0)}"*')
    return " AND ".join(terms) or None


def _substring_search(conn: Connection, query: str, limit: int, site: str | None) -> list[dict[str, Any]]:
    needle = query.strip()
    if len(needle) >= 3 and not re.search(r"[%_]", needle):
        where, arg = f"{_TEXT} LIKE ?", f"%{needle}%"
    elif len(needle) >= 3:
        where, arg = f"{_TEXT} GLOB ?", f"*{_glob_escape(needle)}*"  # literal % or _: case-sensitive
    else:
        where, arg = f"instr(lower({_TEXT}), lower(?)) > 0", needle
    hits, args = f"SELECT f.rowid FROM messages_fts f WHERE {where}", [arg]  # no index can narrow it
    # CJK in the needle: its bigrams first (rarer than the trigrams of the text around them)
    for table, match in (("messages_cjk", _cjk_match(needle)), ("messages_tri", _trigram_match(needle))):
        if match is not None:  # the index's candidates, in rowid order, re-checked against their text
            hits = (
                f"SELECT t.rowid FROM {table} t CROSS JOIN messages_fts f ON f.rowid = t.rowid"
                f" WHERE {table} MATCH ? AND {where}"
            )
            args = [match, arg]
            if table == "messages_tri" and conn.execute("SELECT 1 FROM tri_same LIMIT 1").fetchone():
                hits, args = _with_repeats(where), [match, match, arg]
            break
    site_sql = "AND c.site = ?" if site else ""
    sql = f"""
        WITH hits AS ({hits} LIMIT {TOP_MESSAGES * 4})
        SELECT c.id, count(*) AS n, max(h.rowid)
        FROM hits h JOIN messages m ON m.rowid = h.rowid JOIN conversations c ON c.id = m.conversation_id
        WHERE 1 {site_sql}
        GROUP BY c.id ORDER BY n DESC, c.sort_key DESC LIMIT ?
    """
    rows = conn.execute(sql, args + ([site] if site else []) + [limit]).fetchall()
    best = [(conv_id, -float(n), rowid) for conv_id, n, rowid in rows]
    return _results(conn, best, {r[2]: _snippet(_body(conn, r[2]), needle) for r in best})


def _with_repeats(where: str) -> str:
    """The trigram candidates and the messages that repeat one of them (tri_same: they have no trigram rows
    of their own), in rowid order as the trigram table alone gives them, re-checked against their text."""
    return (
        "SELECT t.rowid FROM (SELECT rowid FROM messages_tri WHERE messages_tri MATCH ?"
        " UNION SELECT s.rowid FROM tri_same s WHERE s.source IN"
        " (SELECT rowid FROM messages_tri WHERE messages_tri MATCH ?) ORDER BY 1) t"
        f" CROSS JOIN messages_fts f ON f.rowid = t.rowid WHERE {where}"
    )


def search(conn: Connection, query: str, limit: int = 20, site: str | None = None) -> list[dict[str, Any]]:
    query = unicodedata.normalize("NFKC", query or "").strip()
    if not query:
        return []
    if cjk.has_cjk(query):
        found = _cjk_search(conn, query, limit, site)
        return found if found is not None else _substring_search(conn, query, limit, site)
    if not _WORD.search(query):
        return _substring_search(conn, query, limit, site)
    return _word_search(conn, query, limit, site) or _substring_search(conn, query, limit, site)


def conversations_with_words(
    conn: Connection,
    words: list[str] | list[list[str]],
    limit: int,
    site: str | None = None,
    any_word: bool = False,
) -> list[str]:
    """Ids of the conversations whose messages match `words` best (BM25), best first: messages holding all
    the words, or with `any_word` any of them (a question asked in a sentence holds words no message has).
    A word may be a list of forms (a word and its stem): any of them matches it."""
    if not words:
        return []
    match = (" OR " if any_word else " AND ").join(_any_form(w) for w in words)
    return [row[0] for row in _best_conversations(conn, "messages_fts", match, limit, site)]


def messages_with_word(conn: Connection, forms: list[str], most: int) -> int:
    """How many messages hold any of `forms` (a word's forms), counted up to `most`."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)",
        (_any_form(forms), most),
    ).fetchone()
    return int(row[0])


def _any_form(word: str | list[str]) -> str:
    forms = [word] if isinstance(word, str) else word
    quoted = ['"' + w.replace('"', '""') + '"' for w in forms]
    return quoted[0] if len(quoted) == 1 else "(" + " OR ".join(quoted) + ")"
