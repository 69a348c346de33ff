"""Full-text search: ranked words with unicode61 + bm25, and CJK / substring
search with the trigram index (unicode61 treats a CJK run as one token).
Queries shorter than 3 characters fall back to instr(), which trigram cannot serve."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

HIT_OPEN, HIT_CLOSE = "\u00ab", "\u00bb"  # « » : plain-text markers, rendered with textContent
SNIPPET_CHARS = 160
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _fts_query(query: str) -> str | None:
    """Every word must appear; the last one may be a prefix. Quotes keep user text literal."""
    words = _WORD.findall(query)
    if not words:
        return None
    terms = ['"' + w.replace('"', '""') + '"' for w in words]
    terms[-1] += "*"
    return " AND ".join(terms)


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _snippet(body: str, needle: str) -> str:
    """A window of the body around the first match, with « » around it."""
    idx = body.casefold().find(needle.casefold())
    if idx < 0:
        return body[:SNIPPET_CHARS]
    start = max(0, idx - SNIPPET_CHARS // 2)
    end = min(len(body), idx + len(needle) + SNIPPET_CHARS // 2)
    prefix = "…" if start else ""
    suffix = "…" if end < len(body) else ""
    return (prefix + body[start:idx] + HIT_OPEN + body[idx:idx + len(needle)] + HIT_CLOSE
            + body[idx + len(needle):end] + suffix).replace("\n", " ")


def _word_search(conn, query: str, limit: int, site: str | None) -> list[dict[str, Any]]:
    fts = _fts_query(query)
    if fts is None:
        return []
    site_sql = "AND c.site = ?" if site else ""
    sql = f"""
        SELECT c.id, c.title, c.site, c.updated_at, c.message_count, best.rank,
               snippet(messages_fts, -1, '{HIT_OPEN}', '{HIT_CLOSE}', '…', 16)
        FROM (
            SELECT m.conversation_id AS cid, min(f.rank) AS rank, max(f.rowid) AS rid
            FROM messages_fts f JOIN messages m ON m.rowid = f.rowid
            WHERE messages_fts MATCH ?
            GROUP BY m.conversation_id
            ORDER BY rank LIMIT ?
        ) AS best
        JOIN conversations c ON c.id = best.cid
        JOIN messages_fts ON messages_fts.rowid = best.rid AND messages_fts MATCH ?
        WHERE 1 {site_sql}
        ORDER BY best.rank
    """
    args: list[Any] = [fts, limit * (4 if site else 1), fts]
    if site:
        args.append(site)
    rows = conn.execute(sql, args).fetchall()[:limit]
    return [
        {"id": r[0], "title": r[1], "site": r[2], "updated_at": r[3], "message_count": r[4],
         "score": round(-r[5], 4), "snippet": r[6]}
        for r in rows
    ]


def _substring_search(conn, query: str, limit: int, site: str | None) -> list[dict[str, Any]]:
    needle = query.strip()
    if len(needle) >= 3:
        where, arg = "t.body LIKE ? ESCAPE '\\'", f"%{_like_escape(needle)}%"
    else:
        where, arg = "instr(lower(t.body), lower(?)) > 0", needle
    site_sql = "AND c.site = ?" if site else ""
    sql = f"""
        SELECT c.id, c.title, c.site, c.updated_at, c.message_count, count(*) AS hits, max(t.body)
        FROM messages_tri t JOIN messages m ON m.rowid = t.rowid JOIN conversations c ON c.id = m.conversation_id
        WHERE {where} {site_sql}
        GROUP BY c.id ORDER BY hits DESC, c.sort_key DESC LIMIT ?
    """
    args: list[Any] = [arg] + ([site] if site else []) + [limit]
    rows = conn.execute(sql, args).fetchall()
    return [
        {"id": r[0], "title": r[1], "site": r[2], "updated_at": r[3], "message_count": r[4],
         "score": float(r[5]), "snippet": _snippet(r[6] or "", needle)}
        for r in rows
    ]


def search(conn, query: str, limit: int = 20, site: str | None = None) -> list[dict[str, Any]]:
    query = unicodedata.normalize("NFKC", query or "").strip()
    if not query:
        return []
    if _CJK.search(query) or not _WORD.search(query):
        return _substring_search(conn, query, limit, site)
    results = _word_search(conn, query, limit, site)
    return results or _substring_search(conn, query, limit, site)
