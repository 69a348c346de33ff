"""The library and the view in a real headless Chromium with the real host over a 10,000-conversation archive.

Figures (paired runs, each with its floor measured right before it in the same browser):
- time to first results: opening library/library.html until the first row shows; floor: opening the view page
  with no id (the same page machinery, no host call);
- search as you type: filling the search box until the one hit shows;
- a 1 MB conversation (Markdown with headings, tables, code, math) in the view: until its first messages show,
  and until every message is rendered (data-state=ready); floor: the same view of a 2-message conversation.

`--extension DIR` runs another tree's extension (e.g. the previous commit's, from `git archive`) over an
archive built the same way. `--compare DIR` times only the 1 MB view, this tree's extension against DIR's,
interleaved in one run (two browser profiles, alternating which goes first), so a loaded machine weighs on
both alike: until every message is formatted, and the main thread's CPU time (Chromium's TaskDuration in
thread ticks).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from benchlib import REPO, Figure, emit, fresh_home, median, p95, use_home

sys.path.insert(0, str(REPO / "tests" / "browser"))
from test_library import chatgpt_export, claude_export  # noqa: E402

RUNS = 7
# resolves when `selector` matches, watching the page's mutations: no polling on the page's main thread, which
# would take time from the idle periods the view formats in
UNTIL = """selector => new Promise(resolve => {
  const done = () => { if (document.querySelector(selector)) { observer.disconnect(); resolve(true); return true; } };
  const observer = new MutationObserver(done);
  if (!done()) observer.observe(document, {subtree: true, childList: true, attributes: true});
})"""
CHUNK = """## Section {i}

Some **bold** prose with `inline code`, a [link](https://example.org/{i}) and math $a_{i}^2 + b^2 = c^2$.

| column | value |
|---|---|
| alpha | {i} |
| beta | {j} |

```python
def step_{i}(x: int) -> int:
    # a comment
    return x * {i} + {j}
```

- first point about item {i}
- second point, with *emphasis*
"""


def big_conversation(target_bytes: int = 1_000_000) -> tuple[dict, int]:
    """A ChatGPT export conversation of about `target_bytes` of Markdown; returns it and its message count."""
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent, size, turn = "root", 0, 0
    while size < target_bytes:
        role = "user" if turn % 2 == 0 else "assistant"
        text = (
            f"question {turn}"
            if role == "user"
            else "\n".join(CHUNK.format(i=turn * 10 + k, j=k) for k in range(8))
        )
        node_id = f"m{turn}"
        message = {
            "id": node_id,
            "author": {"role": role},
            "create_time": 1.7e9 + turn,
            "content": {"content_type": "text", "parts": [text]},
        }
        mapping[node_id] = {"id": node_id, "parent": parent, "children": [], "message": message}
        mapping[parent]["children"].append(node_id)
        parent, size, turn = node_id, size + len(text.encode()), turn + 1
    cid = "22222222-0000-4000-8000-000000000001"
    conversation = {
        "title": "One megabyte of Markdown",
        "create_time": 1.7e9,
        "update_time": 1.7e9 + turn,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": cid,
        "id": cid,
    }
    return conversation, turn


def mnemo(env: dict, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "mnemosyne.cli.main", *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--extension", default=str(REPO / "extension"), help="the extension directory to load"
    )
    parser.add_argument("--compare", metavar="DIR", help="another extension directory to interleave with")
    args, _ = parser.parse_known_args()  # run_all.py adds --json PATH (read by benchlib.emit)
    extension = args.extension

    from mnemosyne.extension_ids import CHROMIUM_EXTENSION_ID

    home = fresh_home("library")
    env = use_home(home)
    env.update({"XDG_CONFIG_HOME": str(home / "xdg-config"), "XDG_CACHE_HOME": str(home / "xdg-cache")})
    big, big_messages = big_conversation()
    last_text = big["mapping"][big["current_node"]]["message"]["content"]["parts"][0]
    last_words = re.findall(r"Section \d+|question \d+", last_text)[-1]  # plain or formatted, the same words
    small, _ = big_conversation(20)  # a question and one answer
    for name, data in (
        (
            "chatgpt",
            chatgpt_export(9_000)
            + [big, {**small, "id": "s", "conversation_id": "s", "title": "Two messages"}],
        ),
        ("claude", claude_export(1_000)),
    ):
        path = home / name / "conversations.json"
        path.parent.mkdir()
        path.write_text(json.dumps(data), encoding="utf-8")
        mnemo(env, "import", str(path))
    listed = json.loads(mnemo(env, "list", "--json", "--limit", "0"))
    ids = {item["title"]: item["id"] for item in listed}
    profile = home / "profile"
    profile.mkdir()
    mnemo(env, "install", "--browser", "chromium", "--user-data-dir", str(profile))
    url = lambda path: f"chrome-extension://{CHROMIUM_EXTENSION_ID}/{path}"  # noqa: E731
    if args.compare:
        view = url(f"view/view.html?id={ids['One megabyte of Markdown']}")
        return compare(env, home, view, {"this tree": extension, "compared": args.compare})

    first, first_floor, search, render, render_floor, first_screen, shown = [], [], [], [], [], [], []
    with sync_playwright() as p:
        ctx = launch(p, profile, extension, env)
        page = ctx.new_page()
        page.goto(url("library/library.html"))  # warm: worker, host, caches
        page.locator("[data-mnemosyne='conversation']").first.wait_for(timeout=60_000)
        for run in range(RUNS):
            page.close()
            page = ctx.new_page()
            start = time.perf_counter()
            page.goto(url("view/view.html"))
            page.locator("#status.error").wait_for()
            first_floor.append(time.perf_counter() - start)
            start = time.perf_counter()
            page.goto(url("library/library.html"))
            page.locator("[data-mnemosyne='conversation']").first.wait_for()
            first.append(time.perf_counter() - start)
            start = time.perf_counter()
            page.locator("[data-mnemosyne='search']").fill(f"zq0{4242 + run}")
            page.locator(".row-title", has_text=f"{4242 + run:05d}").wait_for()
            search.append(time.perf_counter() - start)

            page.close()
            page = ctx.new_page()
            start = time.perf_counter()
            page.goto(url(f"view/view.html?id={ids['Two messages']}"))
            page.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for()
            render_floor.append(time.perf_counter() - start)
            page.close()
            page = ctx.new_page()
            start = time.perf_counter()
            page.goto(url(f"view/view.html?id={ids['One megabyte of Markdown']}"))
            page.evaluate(UNTIL, "[data-mnemosyne='transcript'] article")
            first_screen.append(time.perf_counter() - start)
            page.evaluate(
                UNTIL, "[data-mnemosyne='transcript']:is([data-state='shown'], [data-state='ready'])"
            )
            shown.append(time.perf_counter() - start)
            transcript = page.locator("[data-mnemosyne='transcript']")
            assert (
                last_words in transcript.text_content()
            )  # the words of the last message, shown or formatted
            page.evaluate(UNTIL, "[data-mnemosyne='transcript'][data-state='ready']")
            render.append(time.perf_counter() - start)
            assert page.locator("[data-mnemosyne='transcript'] article").count() == big_messages
        ctx.close()

    ms = lambda values: [v * 1000 for v in values]  # noqa: E731
    view_floor = "view page, no id (no host call)"
    small_floor = "view of a 2-message conversation"
    figures = [
        Figure(
            "library: time to first results, 10,000 conversations (median)",
            median(ms(first)),
            "ms",
            floor=median(ms(first_floor)),
            floor_label=view_floor,
        ),
        Figure(
            "library: time to first results (p95)",
            p95(ms(first)),
            "ms",
            floor=p95(ms(first_floor)),
            floor_label=view_floor,
        ),
        Figure("library: search as you type to the hit (median)", median(ms(search)), "ms"),
        Figure("library: search as you type to the hit (p95)", p95(ms(search)), "ms"),
        Figure(
            "view: 1 MB Markdown conversation, first messages on screen (median)",
            median(ms(first_screen)),
            "ms",
            floor=median(ms(render_floor)),
            floor_label=small_floor,
        ),
        Figure(
            "view: 1 MB Markdown conversation, every message on the page (median)",
            median(ms(shown)),
            "ms",
            floor=median(ms(render_floor)),
            floor_label=small_floor,
            note="the first screen formatted, the rest as plain text: find-in-page finds it",
        ),
        Figure(
            "view: 1 MB Markdown conversation, every message on the page (p95)",
            p95(ms(shown)),
            "ms",
            floor=p95(ms(render_floor)),
            floor_label=small_floor,
        ),
        Figure(
            "view: render a 1 MB Markdown conversation (median)",
            median(ms(render)),
            "ms",
            floor=median(ms(render_floor)),
            floor_label=small_floor,
            note=f"{big_messages} messages",
        ),
        Figure(
            "view: render a 1 MB Markdown conversation (p95)",
            p95(ms(render)),
            "ms",
            floor=p95(ms(render_floor)),
            floor_label=small_floor,
        ),
    ]
    emit(
        figures,
        [
            f"{RUNS} paired runs; search includes the 150 ms typing debounce; render: until every message is"
            " formatted (data-state=ready)",
            "load average (1, 5, 15 min) at the end: " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
        ],
    )


def launch(p, profile: Path, extension: Path | str, env: dict[str, str]):
    """Debian's Chromium, headless, with only `extension` loaded, on a persistent profile."""
    return p.chromium.launch_persistent_context(
        str(profile),
        executable_path="/usr/bin/chromium",
        headless=True,
        env=env,
        viewport={"width": 1280, "height": 860},
        args=[f"--disable-extensions-except={extension}", f"--load-extension={extension}", "--disable-gpu"],
    )


def compare(env: dict, home, view_url: str, trees: dict[str, str]) -> None:
    """The 1 MB view under each extension, interleaved: (seconds to data-state=ready, main-thread CPU s)."""
    from playwright.sync_api import sync_playwright

    timings: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    with sync_playwright() as p:
        contexts = {}
        for index, (name, directory) in enumerate(trees.items()):
            profile = home / f"profile-{index}"
            profile.mkdir()
            mnemo(env, "install", "--browser", "chromium", "--user-data-dir", str(profile))
            contexts[name] = launch(p, profile, directory, env)
            warm = contexts[name].new_page()
            warm.goto(view_url)
            warm.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=120_000)
            warm.close()
        for run in range(2 * RUNS):
            for name in list(trees) if run % 2 == 0 else list(trees)[::-1]:
                page = contexts[name].new_page()
                cdp = contexts[name].new_cdp_session(page)
                cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
                start = time.perf_counter()
                page.goto(view_url)
                page.locator("[data-mnemosyne='transcript'][data-state='ready']").wait_for(timeout=120_000)
                elapsed = time.perf_counter() - start
                metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                timings[name].append((elapsed, metrics["TaskDuration"]))
                page.close()
        for context in contexts.values():
            context.close()
    mine, other = (timings[name] for name in trees)
    figures = []
    for label, index in (("until every message is formatted", 0), ("main-thread CPU", 1)):
        for stat, pick in (("median", median), ("p95", p95)):
            figures.append(
                Figure(
                    f"view: 1 MB Markdown conversation, {label}, this tree ({stat})",
                    pick([t[index] * 1000 for t in mine]),
                    "ms",
                    peer=pick([t[index] * 1000 for t in other]),
                    peer_label="the compared tree, interleaved",
                )
            )
    emit(
        figures,
        [
            f"{2 * RUNS} runs of each tree, interleaved (the order alternating); compared: {trees['compared']}",
            "load average (1, 5, 15 min) at the end: " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
        ],
    )


if __name__ == "__main__":
    main()
