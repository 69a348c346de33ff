"""Python's cycle collector held off for a stretch of work that makes many objects and no cycles.

A context build makes ~100,000 objects (units, terms, plans) beside the hundreds of thousands a warm host
keeps in its caches; the collector, run every 700 new objects, then walks them again and again (45-75 ms of
a 450 ms build of 1 MB, one pass over the whole heap). Reference counting frees what such work drops; the
collector runs again once the work is done. Held by the host while it answers, by every build, and while the
host prepares a saved conversation's context after the reply (what a Continue in's pick waits on).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_held() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
