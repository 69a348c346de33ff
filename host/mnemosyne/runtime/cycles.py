"""Python's cycle collector held off for a stretch of work that makes many objects and no cycles.

A context build makes ~100,000 objects (units, terms, plans) beside the hundreds of thousands a warm host
keeps in its caches; the collector, run every 700 new objects, then walks them again and again (45-75 ms of
a 450 ms build of 1 MB, one pass over the whole heap). Reference counting frees what such work drops; the
collector runs again once the work is done. Held by every build, while the host prepares a saved
conversation's context after the reply (what a Continue in's pick waits on), and by the host's loop from a
request until it is idle (`enable_when_idle`).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
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


# A host's loop holds the collector off from a request until no request has come for IDLE_S after a reply:
# turned back on, it runs at once on what the replies made (a collection of 8-30 ms after a 1 MB Continue
# in's save or context), and it ran before the reply was written, the next request of a chain (the
# context asked for as the save replies) waiting behind it. Past MAX_HELD_OBJECTS new objects it runs
# anyway, so a long chain of requests does not keep its cyclic garbage.
IDLE_S = 0.1
MAX_HELD_OBJECTS = 1_000_000


def enable_when_idle(input_within: Callable[[float], bool]) -> None:
    """Turn the collector back on, unless a request comes within IDLE_S (`input_within(seconds)`) and fewer
    than MAX_HELD_OBJECTS objects were made since it last ran: that request is answered with it off too."""
    if gc.get_count()[0] < MAX_HELD_OBJECTS and input_within(IDLE_S):
        return
    gc.enable()
