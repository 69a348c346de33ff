"""`mnemo recall` against whole search-hit messages, and how fast recall and `mnemo mcp` answer.

Quality: an archive made by importing every conversation fixture (about 1,200 real conversations); one
question per conversation that has an answer of 800+ characters: a sentence of that answer is the fact to find, the
question is three of its rarest words and two words of the user turn before it. For each question, in
the same token budget (o200k_base, exact), the share of questions whose answer sentence survives:
- recall: `recall()` as `mnemo recall` runs it;
- whole messages: the messages BM25 ranks first for the same words (the archive's FTS5 index), whole,
  best first, each added while it fits.
Questions split by conversation id into a tuning half and a test half. The tuning half (at 800 tokens) picks recall's two
constants (the share of a turn's room a neighbouring turn may take, the share of the budget one turn may take); the test half is
scored once at each of 400, 800 and 1,600 tokens, with the chosen ones. Target: recall keeps the answer
>= 1.3x as often.

Speed, on a 10,000-conversation archive made in /tmp from the same fixtures with varied ids: a fresh
`mnemo recall` process (cold, target < 1 s; floor: `mnemo search` of the same words), repeated calls in one
process as the MCP server makes them (warm), and `mnemo mcp` driven by the SDK's client over stdio: from
process start to the first recall answer, then more recall calls in the running server (warm, target
< 300 ms), over MCP_RUNS sessions, each beside a fresh process importing only the SDK (its floor).

    PYTHONPATH=host python tests/bench/recall_bench.py [--speed-only | --quality-only] [--long] [--json OUT]

--long asks instead one question per assistant turn of LONG_CHARS+ characters (answers inside long
messages, where a whole message rarely fits the budget), split by its own seed into halves tuned and
scored the same way.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib import REPO, TESTS_DIR, Figure, emit, median, p95

FIXTURES = TESTS_DIR / "fixtures"
SOURCES = [
    "chatgpt_export",
    "claude_export",
    "chatgpt_api",
    "interop_sharegpt",
    "interop_openwebui",
    "interop_librechat",
    "interop_sillytavern",
    "interop_openai_messages",
    "interop_anthropic_messages",
]
BUDGET = 800  # the tuning budget, and the one the speed figures use
TEST_BUDGETS = (400, 800, 1600)  # the test half is scored once at each, with the constants tuned at BUDGET
BIG = 10_000
MCP_RUNS = 5  # `mnemo mcp` sessions timed
MCP_CALLS = 8  # recall calls in each (the first answer, then warm ones)
WORK = Path("/tmp/mnemo-recall-bench")
SETTINGS = [(n, share) for n in (2, 3, 4) for share in (1, 2, 4, 8)]  # neighbour share, turn share
DEFAULTS = (3, 1)
LONG_CHARS = 1500  # --long: answers in assistant turns this long (about 375+ tokens)
LONG_SPLIT = "recall-long-v1"  # --long's own seeded tuning/test split, made before it was scored
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z][a-z0-9_]+")


@dataclass
class Question:
    conv_id: str
    query: str
    answer: str
    tuning: bool


def _env(home: Path) -> dict[str, str]:
    return {"MNEMOSYNE_HOME": str(home), "MNEMOSYNE_KEY_FILE": str(home / "key")}


def _use(home: Path) -> None:
    os.environ.update(_env(home))


def build_archive(home: Path) -> None:
    if (home / "READY").exists():
        return
    from mnemosyne.cli.main import main

    _use(home)
    main(["import", "--no-tokens", *[str(FIXTURES / s) for s in SOURCES]])
    (home / "READY").write_text("ok")


def _squash(text: str) -> str:
    return " ".join(text.split())


def make_questions(arc, long: bool = False) -> list[Question]:
    """One question per conversation with an assistant turn of 800+ characters; `long`: one per assistant
    turn of LONG_CHARS+ characters, whose whole message rarely fits a small budget, with its own split."""
    from mnemosyne import tree
    from mnemosyne.context.turns import path_turns

    convs = []
    df: dict[str, int] = {}
    for conv_id in arc.all_ids():
        turns = path_turns(tree.path_to(arc.get(conv_id), None), frozenset(), None)
        convs.append((conv_id, turns))
        for t in turns:
            for w in set(_WORD.findall(t.text.lower())):
                df[w] = df.get(w, 0) + 1
    out = []
    for conv_id, turns in convs:
        rng = random.Random(conv_id)
        least = LONG_CHARS if long else 800
        found = [i for i, t in enumerate(turns) if t.role == "assistant" and len(t.text) >= least and i > 0]
        for i in found if long else [rng.choice(found)] if found else []:
            question = _question(
                conv_id, turns, i, df, random.Random(f"{conv_id}:{i}") if long else rng, long
            )
            if question is not None:
                out.append(question)
    return out


def _question(conv_id: str, turns, i: int, df: dict[str, int], rng: random.Random, long: bool):
    """A question on turn `i`: one of its sentences is the answer, asked with three of its rarest words
    and two words of the user turn before it."""
    from mnemosyne.context.stopwords import STOPWORDS

    sentences = [
        s
        for s in _SENTENCE.split(turns[i].text)
        if 60 <= len(s) <= 220 and "`" not in s and "|" not in s and "\n" not in s.strip()
    ]
    words_of = [
        (s, [w for w in dict.fromkeys(_WORD.findall(s.lower())) if w not in STOPWORDS]) for s in sentences
    ]
    words_of = [(s, w) for s, w in words_of if len(w) >= 5]
    if not words_of:
        return None
    answer, words = rng.choice(words_of)
    rare = sorted(words, key=lambda w: (df.get(w, 0), w))[:3]
    asked = [w for w in dict.fromkeys(_WORD.findall(turns[i - 1].text.lower())) if w not in STOPWORDS]
    extra = rng.sample(asked, min(2, len(asked)))
    query = " ".join(rng.sample(rare + extra, len(rare + extra)))
    split = f"{LONG_SPLIT}:{conv_id}" if long else conv_id  # by conversation: no leak between halves
    tuning = int(hashlib.sha1(split.encode()).hexdigest(), 16) % 2 == 0
    return Question(conv_id, query, _squash(answer), tuning)


def whole_messages(arc, meter, query: str, budget: int) -> str:
    """The messages FTS5's BM25 ranks first for the query's words, whole, added best first while they fit."""
    from mnemosyne.recall.build import _header
    from mnemosyne.recall.candidates import index_words

    words = list(dict.fromkeys(form for forms in index_words(query) for form in forms))
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    rows = arc.conn.execute(
        "SELECT body FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 40", (match,)
    ).fetchall()
    used = meter.count(_header(query)) + 30
    kept = []
    for (body,) in rows:
        cost = meter.count(body) + 12  # its label line
        if used + cost <= budget:
            kept.append(body)
            used += cost
    return "\n\n".join(kept)


def score(
    arc, questions: list[Question], setting: tuple[float, int] | None, budget: int = BUDGET
) -> tuple[float, float]:
    """(share kept by recall, share kept by whole messages); recall with `setting` when given."""
    from mnemosyne.context.counting import Meter
    from mnemosyne.recall import build, recall

    if setting is not None:
        build.NEIGHBOUR_SHARE, build.CENTER_SHARE = setting
    meter = Meter("o200k_base")
    ours = theirs = 0
    for q in questions:
        text = recall(arc, q.query, budget=budget, redact=False).text
        ours += q.answer in _squash(text)
        theirs += q.answer in _squash(whole_messages(arc, meter, q.query, budget))
    return ours / len(questions), theirs / len(questions)


def build_big(source_home: Path, home: Path) -> float:
    """An archive of BIG conversations: the fixtures' conversations again and again, each with its own id."""
    if (home / "READY").exists():
        return float((home / "READY").read_text())
    from mnemosyne.archive import open_archive

    _use(source_home)
    with open_archive(create=False) as arc:
        originals = [arc.get(i) for i in arc.all_ids()]
    _use(home)
    started = time.perf_counter()
    with open_archive() as arc:
        arc.conn.execute("PRAGMA synchronous = OFF")
        with arc.bulk_import():
            batch = []
            for n in range(BIG):
                conv = originals[n % len(originals)]
                new_id = hashlib.sha1(f"{conv.id}-{n}".encode()).hexdigest()[:12]
                source = conv.source.model_copy(update={"conversation_id": new_id})
                batch.append(conv.model_copy(update={"id": new_id, "source": source}))
                if len(batch) == 200:
                    arc.save_many(batch)
                    batch = []
            if batch:
                arc.save_many(batch)
    seconds = time.perf_counter() - started
    (home / "READY").write_text(f"{seconds:.1f}")
    return seconds


def mcp_session(home: Path, queries: list[str]) -> tuple[float, list[float]]:
    """`mnemo mcp` started by the SDK's client: seconds from its start to the answer of a recall of the
    first query, and the seconds each later query's recall took in the running server."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**_env(home), "PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO / "host"))}
    params = StdioServerParameters(command=sys.executable, args=["-m", "mnemosyne.cli.main", "mcp"], env=env)

    async def run() -> tuple[float, list[float]]:
        started = time.perf_counter()
        later = []
        async with Client(params) as client:
            for n, query in enumerate(queries):
                called = time.perf_counter()
                result = await client.call_tool("recall", {"query": query, "budget": BUDGET})
                assert not result.is_error
                if n == 0:
                    first = time.perf_counter() - started
                else:
                    later.append(time.perf_counter() - called)
        return first, later

    return anyio.run(run)


def sdk_import_floor() -> None:
    """A fresh process that imports what `mnemo mcp` imports of the SDK, and nothing else."""
    code = "from mnemosyne.mcpserver import startup; startup.import_lean()"
    subprocess.run([sys.executable, "-c", code], check=True)


def _children_cpu() -> float:
    """User and system CPU seconds of this process's children that have exited."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    from mnemosyne.archive import open_archive

    WORK.mkdir(parents=True, exist_ok=True)
    small, big = WORK / "fixtures-archive", WORK / f"archive-{BIG}"
    build_archive(small)
    _use(small)
    with open_archive(create=False) as arc:
        long = "--long" in sys.argv
        questions = make_questions(arc, long)
        tuning = [q for q in questions if q.tuning]
        test = [q for q in questions if not q.tuning]
        print(
            f"{arc.stats()['conversations']} conversations; {len(tuning)} tuning, {len(test)} test questions"
            + (f" (--long: answers in assistant turns of {LONG_CHARS}+ characters)" if long else "")
        )
        print(
            f"budget {BUDGET} tokens (o200k_base)\n\n{'neighbour share':>16} {'turn share':>10} {'recall':>7} {'whole':>7}"
        )
        results = {}
        ratios = {}
        if "--speed-only" in sys.argv:  # the test half is scored once: later runs time, and score nothing
            print("--speed-only: recall is not scored")
            settings: list[tuple[float, int]] = []
        else:
            settings = SETTINGS
        for setting in settings:
            results[setting] = score(arc, tuning, setting)
            ours, theirs = results[setting]
            print(
                f"{'1/' + str(setting[0]):>16} {'1/' + str(setting[1]):>10} {ours:>7.1%} {theirs:>7.1%}  (tuning)"
            )
        best = max(settings, key=lambda s: (results[s][0], s == DEFAULTS), default=None)  # ties: the defaults
        if best is not None:
            print(f"\ntest half, scored once per budget with the chosen constants {best}:")
            print(f"{'budget':>8} {'recall':>7} {'whole':>7} {'ratio':>6}")
        for budget in TEST_BUDGETS if best is not None else ():
            ours, theirs = score(arc, test, best, budget)
            ratios[budget] = (ours, theirs, ours / theirs if theirs else float("inf"))
            print(f"{budget:>8} {ours:>7.1%} {theirs:>7.1%} {ratios[budget][2]:>5.2f}x")
        print()
    if "--quality-only" in sys.argv:
        return

    build_seconds = build_big(small, big)
    _use(big)
    cli = [sys.executable, "-m", "mnemosyne.cli.main", "recall", "--json", "--budget", str(BUDGET)]
    env = {**os.environ, **_env(big)}
    cold, floor, cold_cpu, floor_cpu = [], [], [], []
    for q in test[:12]:
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run([*cli, q.query], env=env, capture_output=True, check=False)
        cold.append(time.perf_counter() - started)
        cold_cpu.append(_children_cpu() - cpu)
        started, cpu = time.perf_counter(), _children_cpu()  # the same start and archive open, for a search
        subprocess.run([*cli[:3], "search", q.query], env=env, capture_output=True, check=False)
        floor.append(time.perf_counter() - started)
        floor_cpu.append(_children_cpu() - cpu)
    from mnemosyne.recall import recall

    with open_archive(create=False) as arc:
        first_started = time.perf_counter()
        recall(arc, test[0].query, budget=BUDGET)
        first = time.perf_counter() - first_started
        warm, warm_cpu = [], []
        for q in test[1:41]:
            started, cpu = time.perf_counter(), time.process_time()
            recall(arc, q.query, budget=BUDGET)
            warm.append(time.perf_counter() - started)
            warm_cpu.append(time.process_time() - cpu)
    starts, starts_cpu, sdk, sdk_cpu, served = [], [], [], [], []
    for i in range(MCP_RUNS):  # each with the SDK's import alone in a fresh process, its floor
        cpu = _children_cpu()
        first, later = mcp_session(big, [q.query for q in test[i::MCP_RUNS][:MCP_CALLS]])
        starts.append(first)
        starts_cpu.append(_children_cpu() - cpu)  # the server's, once it has exited
        served += later
        started, cpu = time.perf_counter(), _children_cpu()
        sdk_import_floor()
        sdk.append(time.perf_counter() - started)
        sdk_cpu.append(_children_cpu() - cpu)
    figures = [
        Figure(
            f"recall keeps the answer / whole messages, {budget} tokens",
            round(ratio, 2),
            "x",
            note=f"{ours:.1%} vs {theirs:.1%}, test half",
        )
        for budget, (ours, theirs, ratio) in ratios.items()
    ]
    figures += [
        Figure(
            f"mnemo mcp: start to first recall answer, median of {MCP_RUNS}",
            median(starts),
            "s",
            floor=median(sdk),
            floor_label="python + the SDK's import",
        ),
        Figure(
            f"mnemo mcp: start to first recall answer, p95 of {MCP_RUNS}",
            p95(starts),
            "s",
            floor=p95(sdk),
            floor_label="python + the SDK's import",
        ),
        Figure(
            f"mnemo mcp: its CPU time to the first answer and {MCP_CALLS - 1} more, median of {MCP_RUNS}",
            median(starts_cpu),
            "s",
            floor=median(sdk_cpu),
            floor_label="python + the SDK's import",
        ),
        Figure(
            f"mnemo mcp: a later recall call, {BIG:,} conversations: p95 of {len(served)}",
            p95(served) * 1000,
            "ms",
            target=300,
            note="the client's wait, stdio round trip included",
        ),
        Figure(
            f"mnemo recall process, {BIG:,} conversations: p95 (cold)",
            p95(cold),
            "s",
            target=1.0,
            floor=p95(floor),
            floor_label="mnemo search",
        ),
        Figure(
            f"mnemo recall process, {BIG:,} conversations: CPU time p95 (cold)",
            p95(cold_cpu),
            "s",
            floor=p95(floor_cpu),
            floor_label="mnemo search",
            note="what a loaded machine's waiting leaves out",
        ),
        Figure(f"recall in a warm process, {BIG:,} conversations: first call", first * 1000, "ms"),
        Figure(f"recall in a warm process, {BIG:,} conversations: p95", p95(warm) * 1000, "ms", target=300),
        Figure(f"recall in a warm process, {BIG:,} conversations: CPU time p95", p95(warm_cpu) * 1000, "ms"),
    ]
    load = os.getloadavg()[0]
    emit(
        figures,
        [
            f"the {BIG:,}-conversation archive was built in {build_seconds:.0f} s under {big}",
            f"load average {load:.1f} on {os.cpu_count()} cores at the end of the run",
        ],
    )


if __name__ == "__main__":
    main()
