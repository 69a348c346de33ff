"""Freed memory given back to the system.

The C allocator (glibc's malloc) keeps what a process frees for its next allocations, and gives back to the
system only the free space at the top of its heap. After a long conversation's work (its save's parsed JSON,
its units and corpus made, its search index and rows written) most of what was freed lies between blocks
still in use, so a host that goes on holding its caches also goes on holding 10-25 MB it no longer uses.
`malloc_trim` hands those free pages back (about 5 ms for a 200 MB host); on other C libraries, and on
systems without one to ask, this does nothing.
"""

from __future__ import annotations

import sys
from functools import cache

TYPE_CHECKING = False  # a host imports this module on its hello path, where typing is not loaded
if TYPE_CHECKING:
    from typing import Any


def give_back() -> None:
    """Hand the allocator's free pages back to the system (glibc only; elsewhere nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # (a host imports this module on its hello path; ctypes only after long work)

        return ctypes.CDLL(None).malloc_trim  # (musl has none: AttributeError)
    except (OSError, AttributeError):
        return None
