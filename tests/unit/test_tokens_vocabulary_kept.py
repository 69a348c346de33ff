"""tokens.encoder_for in a process that makes an encoder per piece of work (`mnemo mcp` before its whole
encoding is built): the rank cache is read once, the encoders count exactly, and the cache is let go once
the whole encoding is built."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from mnemosyne import tokens

CODE = """
import json, sys
from mnemosyne import tokens
from mnemosyne.tokens import rank_cache
tokens.encoding("o200k_base")  # a first process writes the rank cache
tokens.encoding.cache_clear(); tokens._loaded.clear()
reads = []
real = rank_cache.load_vocabulary
rank_cache.load_vocabulary = lambda *a: reads.append(1) or real(*a)
tokens.one_off = True
texts = json.loads(sys.argv[1])
counts = [len(tokens.encoder_for("o200k_base", [t]).encode_ordinary(t)) for t in texts]
kept = bool(tokens._vocabularies)
tokens.encoding("o200k_base")
print(json.dumps([len(reads), counts, kept, bool(tokens._vocabularies)]))
"""


def test_the_rank_cache_is_read_once_for_many_encoders(tmp_path):
    texts = ["The zebrafish retry policy: three attempts.", "Überprüfung der Zähler — 数据库", "🎉 done"]
    env = {**os.environ, "MNEMOSYNE_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", CODE, json.dumps(texts)], env=env, capture_output=True, text=True, check=True
    )
    reads, counts, kept, kept_after = json.loads(out.stdout)
    assert reads == 1 and kept and not kept_after
    assert counts == [tokens.count_exact(t, "o200k_base") for t in texts]
