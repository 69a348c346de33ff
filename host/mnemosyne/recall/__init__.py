"""Recall: the passages of the whole archive that bear on a query, within a token budget (build.py), from
the conversations the search index finds (candidates.py), ranked by passages.py."""

from __future__ import annotations

from .build import DEFAULT_BUDGET, DEFAULT_TARGET, RecallResult, parse_since, recall

__all__ = ["DEFAULT_BUDGET", "DEFAULT_TARGET", "RecallResult", "parse_since", "recall"]
