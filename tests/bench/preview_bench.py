"""Continue in, as a user meets it, in a real headless Chromium with the extension and the real host: from the click
on "Continue in Claude" in the page's menu to the preview window showing the conversation (its text and token
meter, `data-state=ready`).

A fake chatgpt.com (tests/browser/ext_fakesite.py, offline) serves a ChatGPT page and its API's reply for a
200-message conversation of distinct English text (corpus.chatgpt_conversation, about 100 KB; a new one per run,
so the host has never seen it). Each run opens the page, clicks Continue (the menu's opening saves the
conversation), and picks the target either PICK_S after the menu shows (a quick user) or the moment it shows (the
save still running). The click is a real mouse click in the page's closed shadow root.

Floor: the same preview window opened on a context already built (`context-preview` of a kept handle: the
window, its page and the worker's reply, without the save and the host's build).

`--extension DIR` runs another tree's extension (e.g. the previous commit's, from `git archive`) the same way.

Run: python tests/bench/preview_bench.py [--extension DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import corpus
from benchlib import REPO, Figure, emit, fresh_home, median, p95, use_home

sys.path.insert(0, str(REPO / "tests" / "browser"))
from closed_ui import ClosedUi  # noqa: E402
from ext_fakesite import FIXTURES, FakeSites, strip_scripts  # noqa: E402

RUNS = int(os.environ.get("MNEMO_BENCH_PREVIEW_RUNS", "7"))
MESSAGES = 200
PICK_S = 0.5  # a quick user's pick after the menu shows (see continue_bench.py)
TARGET_MS = 1000
READY = "[data-mnemosyne='preview'][data-state='ready'] [data-mnemosyne='preview-text']"
TARGET = "[data-mnemosyne='continue-target'][data-target='claude']"


def mnemo(env: dict, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "mnemosyne.cli.main", *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def launch(p, profile: Path, env: dict[str, str], sites: FakeSites, extension: str):
    ctx = p.chromium.launch_persistent_context(
        str(profile),
        executable_path="/usr/bin/chromium",
        headless=True,
        env=env,
        viewport={"width": 1280, "height": 800},
        args=[
            f"--disable-extensions-except={extension}",
            f"--load-extension={extension}",
            "--disable-gpu",
            "--disable-quic",
        ],
    )
    sites.install(ctx)
    return ctx


def center(ui: ClosedUi, selector: str) -> tuple[float, float]:
    """Where a real click on `selector` in our closed UI lands (found before the clock starts)."""
    ui.wait(selector)
    node = ui._find(selector)
    ui.cdp.send("DOM.scrollIntoViewIfNeeded", {"nodeId": node})
    quad = ui.cdp.send("DOM.getBoxModel", {"nodeId": node})["model"]["border"]
    return (quad[0] + quad[2] + quad[4] + quad[6]) / 4, (quad[1] + quad[3] + quad[5] + quad[7]) / 4


def one_run(ctx, sites: FakeSites, html: str, seed: int, wait_s: float) -> tuple[float, float, str]:
    """Seconds from the pick's click to the preview window's page existing and to the preview showing the
    conversation; the preview's URL."""
    payload = corpus.chatgpt_conversation(seed, messages=MESSAGES, chinese=False)
    page = ctx.new_page()
    page.goto(sites.chatgpt_conversation(payload["conversation_id"], html, payload))
    ui = ClosedUi(page)
    ui.click("[data-mnemosyne='continue']")
    x, y = center(ui, TARGET)
    if wait_s:
        time.sleep(wait_s)
    with ctx.expect_page(timeout=60_000) as opened:
        start = time.perf_counter()
        page.mouse.click(x, y)
    window = opened.value
    appeared = time.perf_counter() - start
    window.locator(READY).wait_for(timeout=60_000)
    elapsed = time.perf_counter() - start
    shown = window.locator(READY).text_content() or ""
    assert "[user" in shown or "[assistant" in shown, shown[:200]  # the conversation, not a status
    url = window.url
    window.close()
    page.close()
    return appeared, elapsed, url


def reopened(ctx, url: str) -> float:
    """The floor: a preview window on a context already built and kept under its handle."""
    window = ctx.new_page()
    start = time.perf_counter()
    window.goto(url)
    window.locator(READY).wait_for(timeout=60_000)
    elapsed = time.perf_counter() - start
    window.close()
    return elapsed


def main() -> None:
    from playwright.sync_api import sync_playwright

    from mnemosyne.extension_ids import CHROMIUM_EXTENSION_ID

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--extension", default=str(REPO / "extension"), help="the extension directory to load"
    )
    args, _ = parser.parse_known_args()  # run_all.py adds --json PATH (read by benchlib.emit)
    home = fresh_home("preview")
    env = use_home(home)
    env.update({"XDG_CONFIG_HOME": str(home / "xdg-config"), "XDG_CACHE_HOME": str(home / "xdg-cache")})
    profile = home / "profile"
    profile.mkdir()
    mnemo(env, "install", "--browser", "chromium", "--user-data-dir", str(profile))
    html = strip_scripts(
        (FIXTURES / "dom_chatgpt" / "aicb_chatgpt_loggedout_fullpage.html").read_text(encoding="utf-8")
    )
    sizes = []
    quick, instant, floor, window_quick, window_instant = [], [], [], [], []
    sites = FakeSites()
    with sync_playwright() as p:
        ctx = launch(p, profile, env, sites, args.extension)
        ready = ctx.new_page()  # warm: the worker, the host, its tokenizer
        ready.goto(f"chrome-extension://{CHROMIUM_EXTENSION_ID}/popup/popup.html")
        one_run(ctx, sites, html, 10_000, PICK_S)
        for run in range(RUNS):
            appeared, seconds, url = one_run(ctx, sites, html, 2 * run, PICK_S)
            quick.append(seconds)
            window_quick.append(appeared)
            floor.append(reopened(ctx, url))
            appeared, seconds, _ = one_run(ctx, sites, html, 2 * run + 1, 0)
            instant.append(seconds)
            window_instant.append(appeared)
            sizes.append(
                len(json.dumps(corpus.chatgpt_conversation(2 * run, messages=MESSAGES, chinese=False)))
            )
        ctx.close()

    ms = lambda values: [v * 1000 for v in values]  # noqa: E731
    floor_label = "the same preview on a context already built"
    figures = []
    for label, values in (
        (f"a pick {PICK_S} s after the menu shows", quick),
        ("a pick the moment the menu shows (its save still running)", instant),
    ):
        for stat, pick in (("median", median), ("p95", p95)):
            figures.append(
                Figure(
                    f"Continue in to the preview showing a {MESSAGES}-message conversation, {label} ({stat})",
                    pick(ms(values)),
                    "ms",
                    target=TARGET_MS,
                    floor=pick(ms(floor)),
                    floor_label=floor_label,
                )
            )
    for label, values in ((f"{PICK_S} s after", window_quick), ("the moment the menu shows", window_instant)):
        figures.append(
            Figure(f"the preview window's page there, a pick {label} (median)", median(ms(values)), "ms")
        )
    emit(
        figures,
        [
            f"{RUNS} runs each, a new conversation per run (about {median(sizes) / 1000:.0f} KB of ChatGPT JSON);"
            " clock from the mouse click on the menu item to the preview's text shown (data-state=ready)",
            "load average (1, 5, 15 min) at the end: " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
        ],
    )


if __name__ == "__main__":
    main()
