"""The encoding of the per-message token counts the archive stores. When a context may use them is the
service layer's policy (service/token_counts.py): the context engine only takes counts it is given."""

from __future__ import annotations

COUNTED_ENCODING = "o200k_base"
