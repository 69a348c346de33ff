"""A long Markdown `get` through all its pages: rendered once per request (the host's RenderCache) against
rendering again for every page (the cache off: what a one-shot host, or the host before the cache, does).

In-process through the real `get` action and a real archive, paired runs in alternating order. Floor: one
render of the whole document (the least a paged reply can cost), measured in the same run.
"""

from __future__ import annotations

import os
import sys

from benchlib import TESTS_DIR, Figure, emit, fresh_home, median, p95, timed, use_home

sys.path.insert(0, str(TESTS_DIR))
from test_host_paging_interop import big_chatgpt_payload  # noqa: E402

RUNS = 5
TURNS = int(os.environ.get("MNEMO_BENCH_PAGING_TURNS", "1200"))  # x 6,000 characters


def all_pages(get, session, params: dict) -> int:
    reply = get.run(dict(params), session)
    pages = 1
    while reply["next_cursor"]:
        reply = get.run({**params, "cursor": reply["next_cursor"]}, session)
        pages += 1
    return pages


def main() -> None:
    use_home(fresh_home("paging"))
    from mnemosyne.nativehost import paging
    from mnemosyne.nativehost.actions import get, save
    from mnemosyne.nativehost.session import HostSession
    from mnemosyne.writers import writer

    session = HostSession()
    conv_id = save.run({"payload": big_chatgpt_payload(turns=TURNS), "kind": "chatgpt_api"}, session)[
        "conversation_id"
    ]
    params = {"conversation_id": conv_id, "format": "markdown"}
    conv = session.archive().get(conv_id)
    cached, uncached, floor = [], [], []
    pages: list[int] = []
    for run in range(RUNS):
        order = ("cached", "uncached") if run % 2 == 0 else ("uncached", "cached")
        for kind in order:
            session.renders = paging.RenderCache(max_entries=0 if kind == "uncached" else 4)
            seconds = timed(lambda: pages.append(all_pages(get, session, params)))
            (cached if kind == "cached" else uncached).append(seconds)
        floor.append(timed(lambda: writer("markdown").write(conv)))
    session.close()
    chars = len(writer("markdown").write(conv))
    emit(
        [
            Figure(
                f"paged Markdown get, {pages[-1]} pages ({chars / 1e6:.1f} M chars), rendered once",
                median(cached),
                "s",
                floor=median(floor),
                floor_label="one render",
                extra={"p95": p95(cached)},
            ),
            Figure(
                "the same, rendered again for every page (cache off)",
                median(uncached),
                "s",
                floor=median(floor),
                floor_label="one render",
                extra={"p95": p95(uncached)},
            ),
        ],
        [
            f"median of {RUNS} paired runs; p95 rendered once {p95(cached):.3f} s, cache off {p95(uncached):.3f} s",
        ],
    )


if __name__ == "__main__":
    main()
