"""Reading an export holds memory that follows its largest conversation, not its size.

Two exports with the same largest conversation, one with five times as many others (a file about four times
larger): `mnemo convert`'s read and Markdown and `mnemo import`'s read, batches and saves each peak within
10 % on both. Each is measured in a fresh process (tracemalloc's peak of the Python objects it allocates after
its imports), with the batch bounds scaled down to the size of the data, so a few MB show what a 74 MB export
does with the real ones. An import's peak is the most it holds when reading, a batch waiting and a batch
saving coincide, which depends on timing: a run of the small export reaches it or stops short of it (7.5-8.8
MB), and a run of the large one, with five times the batches, reaches it more often. So the large export's
median peak is compared with the most the small one reached in five runs: memory that followed the file would
be above it in most runs.
"""

from __future__ import annotations

import copy
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

RUNS = 5  # fresh processes per export
FIX = Path(__file__).parents[1] / "fixtures" / "chatgpt_export" / "librechat_chatgpt-export.json"

# In a fresh process: the bounds scaled down (a window and a reader batch 64 KiB, a save batch 256 KiB, an index chunk
# 64k characters), the modules imported, then tracemalloc's peak over the work alone.
_MEASURE = r"""
import sys, tracemalloc
from mnemosyne.archive import bulk_index, open_archive
from mnemosyne.readers import read_raw, streaming
from mnemosyne.service import import_paths, imports
from mnemosyne.writers import markdown

streaming.BATCH_BYTES = 64 * 1024
streaming.WINDOW = 64 * 1024
imports.SAVE_BYTES = 256 * 1024
bulk_index.CHUNK_CHARS = 64_000
mode, path = sys.argv[1], sys.argv[2]
if mode == "convert":
    tracemalloc.start()
    for raw in streaming.iter_inputs(path):
        for conv in read_raw(raw):
            markdown.write(conv)
else:
    with open_archive() as arc:
        tracemalloc.start()
        totals = import_paths(arc, [path], count_tokens=False)
        assert totals.failed == 0 and totals.created > 0, totals
print(tracemalloc.get_traced_memory()[1])
"""


def _paragraph(n: int) -> str:
    return f"Paragraph {n}: the tide tables for the harbour, checked against the almanac, moved again. " * 4


def _conversation(base: dict, n: int, paragraphs: int) -> dict:
    """A copy of a fixture conversation (5 messages) with its own id and `paragraphs` of text in each part."""
    conv = copy.deepcopy(base)
    conv["id"] = conv["conversation_id"] = f"{base['id']}-{n}"
    conv["title"] = f"copy {n}"
    for node in conv["mapping"].values():
        content = (node.get("message") or {}).get("content") or {}
        if content.get("parts"):
            content["parts"] = ["\n\n".join(_paragraph(n + k) for k in range(paragraphs))]
    return conv


def _export(path: Path, others: int) -> int:
    """The largest conversation (about 450 KB) first, then `others` of about 6 KB; the file's size."""
    base = json.loads(FIX.read_text(encoding="utf-8"))[1]
    items = [_conversation(base, 0, 250)] + [_conversation(base, n, 1) for n in range(1, others + 1)]
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


def _peak(mode: str, export: Path, home: Path) -> int:
    home.mkdir(parents=True)
    env = {"MNEMOSYNE_HOME": str(home), "MNEMOSYNE_KEY_FILE": str(home / "archive.key")}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, mode, str(export)],
        env={**_environment(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


def _environment() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("MNEMOSYNE_")}


@pytest.mark.parametrize("mode", ["convert", "import"])
def test_peak_memory_follows_the_largest_conversation_not_the_file(tmp_path, mode):
    small, large = tmp_path / "small" / "conversations.json", tmp_path / "large" / "conversations.json"
    small.parent.mkdir()
    large.parent.mkdir()
    small_size, large_size = _export(small, 200), _export(large, 1000)
    assert large_size > 3.5 * small_size > 1_000_000
    small_peaks, large_peaks = (
        [_peak(mode, export, export.parent / "home" / str(run)) for run in range(RUNS)]
        for export in (small, large)
    )
    assert statistics.median(large_peaks) <= 1.1 * max(small_peaks), (
        f"peaks {sorted(small_peaks)} and {sorted(large_peaks)} for {small_size:,} and {large_size:,} bytes"
    )
