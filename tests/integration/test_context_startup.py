"""A conversation that fits its budget by its UTF-8 byte count is built without loading a tokenizer:
the same output as an exactly counted build, with the count reported as an upper bound."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FILE = Path(__file__).parents[1] / "fixtures" / "chatgpt_export" / "echomine_001_simple_text.json"

BUILD = """
import json, sys
from mnemosyne.service import context_for, conversation_from_file
exact = len(sys.argv) > 4
r = context_for(conversation_from_file(sys.argv[1]), sys.argv[2], budget=int(sys.argv[3]), exact_tokens=exact)
print(json.dumps({"text": r.text, "report": r.report, "tiktoken": "tiktoken" in sys.modules}))
"""


def fresh_build(target: str, budget: int, preload: bool, exact: bool = False) -> dict:
    code = ("from mnemosyne import tokens; tokens.encoding('o200k_base')\n" if preload else "") + BUILD
    out = subprocess.run(
        [sys.executable, "-c", code, str(FILE), target, str(budget), *(["exact"] if exact else [])],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize("target", ["chatgpt", "claude"])
def test_small_chat_needs_no_tokenizer_and_matches_the_exact_build(target):
    size = FILE.stat().st_size
    lazy = fresh_build(target, 4 * size, preload=False)
    exact = fresh_build(target, 4 * size, preload=True)
    assert not lazy["tiktoken"]  # nothing loaded a tokenizer
    assert lazy["text"] == exact["text"]
    assert exact["report"]["tokens_exact"] is True
    assert lazy["report"]["tokens_exact"] is False
    assert lazy["report"]["tokens"] >= exact["report"]["tokens"]  # an upper bound, never under
    assert lazy["report"]["tokens"] <= lazy["report"]["limit"]
    assert {k: v for k, v in lazy["report"].items() if k not in ("tokens", "tokens_exact")} == {
        k: v for k, v in exact["report"].items() if k not in ("tokens", "tokens_exact")
    }


def test_a_chat_over_the_budget_by_bytes_is_counted_exactly():
    lazy = fresh_build("chatgpt", 300, preload=False)
    assert lazy["report"]["tokens_exact"] is True and lazy["tiktoken"]
    assert lazy["report"]["tokens"] <= 300


@pytest.mark.parametrize("target", ["chatgpt", "gpt-4o", "claude-api", "agents-md"])  # each shape
def test_mnemo_context_of_a_chat_over_its_budget_builds_a_small_tokenizer_once(target):
    """`mnemo context` counts with an encoder that leaves out the tokens its text cannot use (o200k's
    200k ranks cost a fresh process about 100 ms to build): it builds a fraction of the ranks once (what
    the shapes write around the chat is covered up front), and the output is the same."""
    code = (
        "import sys, tiktoken\n"
        "built = []\n"
        "init = tiktoken.Encoding.__init__\n"
        "def counting(self, *a, **kw):\n"
        "    built.append(len(kw['mergeable_ranks']))\n"
        "    init(self, *a, **kw)\n"
        "tiktoken.Encoding.__init__ = counting\n"
        "from mnemosyne.cli.main import main\n"
        "if len(sys.argv) > 3:\n"
        "    from mnemosyne import tokens; tokens.encoding('o200k_base')\n"
        "main(['context', sys.argv[1], '--target', sys.argv[2], '--budget', '300', '--json'])\n"
        "import json; sys.stderr.write(json.dumps(built))\n"
    )

    def mnemo(*preload: str) -> tuple[str, list[int]]:
        out = subprocess.run(
            [sys.executable, "-c", code, str(FILE), target, *preload],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout, json.loads(out.stderr.strip().splitlines()[-1])

    whole_out, whole_built = mnemo("preload")  # also leaves the rank cache, as any first use does
    one_off_out, one_off_built = mnemo()
    assert whole_built == [199_998]
    assert len(one_off_built) == 1 and one_off_built[0] < 40_000
    assert one_off_out == whole_out


def test_a_caller_that_shows_the_count_gets_it_exact():
    """The host passes exact_tokens: the extension shows `tokens` as the count."""
    size = FILE.stat().st_size
    asked = fresh_build("chatgpt", 4 * size, preload=False, exact=True)
    preloaded = fresh_build("chatgpt", 4 * size, preload=True)
    assert asked["report"]["tokens_exact"] is True
    assert asked["report"]["tokens"] == preloaded["report"]["tokens"]
    assert asked["text"] == preloaded["text"]


@pytest.mark.parametrize("entry", ["cli", "host"])
def test_mnemosyne_processes_never_scan_for_pydantic_plugins(entry, tmp_path):
    """pydantic searches every installed distribution's entry points for plugins when it builds the first
    model (40-50 ms of a CLI call), and a plugin would see every transcript validated: the CLI and the host
    turn that off. Checked in fresh processes through the real entry points, after a model was built."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["MNEMOSYNE_HOME"] = str(tmp_path / "home")
    out_file = tmp_path / "out.txt"
    run = (
        f"from mnemosyne.cli.main import main; main(['convert', sys.argv[1], '--to', 'text', '-o', {str(out_file)!r}])"
        if entry == "cli"
        else "from mnemosyne.nativehost import server; server.main([]); from mnemosyne.model import Conversation; Conversation.model_json_schema()"
    )
    code = f"import sys\n{run}\nfrom pydantic.plugin import _loader\n" + (
        "sys.stderr.write('SCANNED %s' % (_loader._plugins is not None))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(FILE)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert "SCANNED False" in out.stderr, out.stderr[-2000:]
    # the same model building without the setting does scan: the check above can fail
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom mnemosyne.model import Conversation\n"
            "Conversation.model_json_schema(); from pydantic.plugin import _loader\n"
            "sys.stderr.write('SCANNED %s' % (_loader._plugins is not None))\n",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert "SCANNED True" in plain.stderr, plain.stderr[-2000:]


def _run(code: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, str(FILE)], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stderr


def test_with_plugins_off_no_process_imports_the_plugin_machinery(tmp_path):
    """pydantic imports its plugin loader, and with it importlib.metadata (about 15 ms of a fresh process),
    to build its first validator even with plugins off. With them off, the CLI's `mnemo context` of a chat
    (which validates the whole conversation model) never imports it, and builds the same output."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["MNEMOSYNE_HOME"] = str(tmp_path / "home")
    code = (
        "import sys\nfrom mnemosyne.cli.main import main\n"
        "main(['context', sys.argv[1], '--target', 'chatgpt', '--json'])\n"
        "sys.stderr.write('METADATA %s' % ('importlib.metadata' in sys.modules))\n"
    )
    assert "METADATA False" in _run(code, env)
    # the plugins a user turns on (some by name, or all again within the process) are looked for as before
    scan = "\nfrom pydantic.plugin import _loader\nsys.stderr.write(' SCANNED %s' % (_loader._plugins is not None))\n"
    named = _run(code + scan, {**env, "PYDANTIC_DISABLE_PLUGINS": "some_plugin"})
    assert "METADATA True" in named and "SCANNED True" in named
    back_on = code.replace(
        "main(",
        "import os; from mnemosyne.runtime import appenv; appenv.apply(); os.environ['PYDANTIC_DISABLE_PLUGINS'] = ''\nmain(",
        1,
    )
    assert "SCANNED True" in _run(back_on + scan, env)


def test_mnemo_context_loads_neither_the_import_nor_the_save_machinery(tmp_path):
    """`mnemo context FILE` reads a file and builds a context: the service layer's import and save modules
    (and the archive modules they bring) are not loaded on its way; a caller of them still finds them."""
    env = {**os.environ, "MNEMOSYNE_HOME": str(tmp_path / "home")}
    code = (
        "import sys\nfrom mnemosyne.cli.main import main\n"
        "main(['context', sys.argv[1], '--target', 'chatgpt', '--budget', '300'])\n"
        "loaded = sorted(m for m in ('mnemosyne.service.imports', 'mnemosyne.service.save') if m in sys.modules)\n"
        "from mnemosyne.service import import_paths, save_payload\n"
        "sys.stderr.write('LOADED %s %s' % (loaded, callable(import_paths) and callable(save_payload)))\n"
    )
    assert "LOADED [] True" in _run(code, env)


LONG_CHAT = (
    Path(__file__).parents[1]
    / "fixtures"
    / "chatgpt_api"
    / "elinvoss"
    / ("0001-Matthew_McConaughey_voice-688c4d3b-add4-8326-838d-ab64ce7962d6.json")
)


@pytest.mark.parametrize("tokenizer", ["o200k_base", "cl100k_base"])
def test_a_text_counts_the_same_line_by_line(tokenizer):
    """count_lines sums the counts of a text's lines, cut where the tokenizer's pattern always ends a piece
    (a line break, then a non-space other than "/"): the same count as the whole text, for real chats and
    for what sits at line starts (slashes, spaces, CRLF, zero-width and other-script characters, emoji)."""
    from mnemosyne.context.counting import Meter
    from mnemosyne.readers import load_path, read_raw

    texts = [
        part.text
        for path in (
            FILE,
            LONG_CHAT,
            Path(__file__).parents[1] / "fixtures" / "chatgpt_api" / "llmfarm_dialog-data_mapping.json",
        )
        for raw in load_path(str(path))
        for conv in read_raw(raw)
        for m in conv.messages
        for part in m.parts
        if getattr(part, "text", "")
    ]
    texts.append("\n".join(texts))
    texts += [
        "a.\n/b\n\n/c\r\n[x]\r\n\r\nend  \n  \n\tx\n\u00a0y\n\u200bz\n\u180ew\n\x1cv\n😀 ok\n\n\n",
        "x\n",
        "\n",
        "\n\nx",
        " \n \n/",
        "12\n34\n's\n's",
        "<|endoftext|>\n<|endoftext|>",
    ]
    meter = Meter(tokenizer)
    for text in texts:
        assert meter.count_lines(text) == meter.count(text), text[:80]


def test_a_build_counts_each_line_of_its_payloads_once(monkeypatch):
    """Topping up a context re-renders the payload a few times with a few more units: its lines that did not
    change are not encoded again (measured: what the tokenizer is asked to encode while payloads are counted)."""
    from mnemosyne import tokens
    from mnemosyne.context import shapes
    from mnemosyne.service import context_for, conversation_from_file

    enc = tokens.encoding("o200k_base")
    encoded: list[int] = []
    counted: list[int] = []
    in_payload = [False]
    real_encode, real_count = enc.encode_ordinary, shapes.count_payload

    def encode(text):
        if in_payload[0]:
            encoded.append(len(text))
        return real_encode(text)

    def count_payload(shape, payload, count):
        counted.append(len(payload))
        in_payload[0] = True
        try:
            return real_count(shape, payload, count)
        finally:
            in_payload[0] = False

    monkeypatch.setattr(enc, "encode_ordinary", encode)  # (a call's caches start empty: no count is kept)
    monkeypatch.setattr(shapes, "count_payload", count_payload)
    context_for(conversation_from_file(str(LONG_CHAT)), "chatgpt", budget=2000)
    assert len(counted) >= 3  # the first payload and two top-ups
    assert sum(encoded) < 0.6 * sum(counted)


def test_a_build_without_stored_counts_counts_only_the_turns_it_looks_at(monkeypatch):
    """A redacted build has no stored per-message counts: of a long history it counts the recent turns (and
    the one that no longer fits), not every turn, to learn that the history does not fit."""
    from conversation_samples import linear
    from mnemosyne import tokens
    from mnemosyne.context import build_context
    from mnemosyne.context.turns import render_message

    sentences = [
        f"Step {n} of the migration moves table t{n} to the new cluster and checks its rows."
        for n in range(400)
    ]
    # 80 turns of 5 distinct sentences: many units each, never a single one
    conv = linear(
        [("user" if n % 2 == 0 else "assistant", " ".join(sentences[5 * n : 5 * n + 5])) for n in range(80)],
        site="chatgpt",
    )
    texts = {render_message(m) for m in conv.messages}
    enc = tokens.encoding("o200k_base")
    encoded: list[str] = []
    real_encode = enc.encode_ordinary
    monkeypatch.setattr(enc, "encode_ordinary", lambda text: encoded.append(text) or real_encode(text))
    build_context(conv, "chatgpt", budget=1500)  # token_counts=None: as a redacted build (nothing kept)
    turns_counted = [text for text in encoded if text in texts]
    assert 0 < len(turns_counted) <= 20, len(turns_counted)
