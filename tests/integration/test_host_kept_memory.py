"""What a long-lived host keeps after a save or a context: no UTF-8 copies attached to the strings it
holds (runtime/utf8.py), and no page cache full of a long conversation it holds as objects already. In-process
through the real actions and a real archive; CPython's string sizes tell whether a copy is attached."""

from __future__ import annotations

import ctypes
import platform
import sys

import msgspec
import pytest
import sqlcipher3._sqlite3 as sqlite_module

from mnemosyne.nativehost.actions import context, save
from mnemosyne.service import preparation as preparation_module
from test_host_paging_interop import big_chatgpt_payload

pytestmark = pytest.mark.skipif(
    platform.python_implementation() != "CPython", reason="CPython's UTF-8 copies of strings"
)


def with_copy(s: str) -> bool:
    """Whether CPython holds a UTF-8 copy of `s` (its size is more than an equal new string's)."""
    return sys.getsizeof(s) > sys.getsizeof("".join((s, "")))


def test_what_a_host_keeps_of_a_saved_and_built_conversation_carries_no_utf8_copies(host_session):
    sample = "中文字符, emoji 🧪" * 20
    msgspec.json.encode(sample)
    assert with_copy(sample)  # (what the test looks for: msgspec's read of a string leaves one)
    saved = save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: False)  # its search index written, its units stored
    for budget in (2000, 16000):  # a build, and one that counts many more units exactly
        reply = context.run(
            {"conversation_id": saved["conversation_id"], "target": "chatgpt", "budget": budget}, host_session
        )
        assert reply["chunk"]
        host_session.after_reply(lambda: False)
    kept = host_session.archive().get(saved["conversation_id"])  # the conversation the archive keeps
    texts = [part.text for msg in kept.messages for part in msg.parts if getattr(part, "text", None)]
    caches = host_session.preparation.caches
    unit_texts = [part[1] for text in caches.units.texts() for part in caches.units.text_units(text).parts]
    counted = [text for memo in caches.counts.values() for text in memo]
    assert len(texts) == 240 and len(unit_texts) > 1000 and len(counted) > 100
    assert not any(map(with_copy, texts + unit_texts + counted))


def sqlite_memory() -> int:
    """Bytes SQLite has allocated in this process (sqlite3_memory_used of the module's own SQLite)."""
    try:
        used = ctypes.CDLL(sqlite_module.__file__).sqlite3_memory_used
    except (OSError, AttributeError):
        pytest.skip("this build of sqlcipher3 does not export sqlite3_memory_used")
    used.restype = ctypes.c_int64
    return used()


def test_after_a_long_conversation_the_host_lets_the_page_cache_go(host_session, monkeypatch):
    monkeypatch.setattr(preparation_module, "RELEASE_CACHE_CHARS", 10**9)  # first: nothing is long enough
    save.run({"payload": big_chatgpt_payload(), "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: False)
    filled = sqlite_memory()
    monkeypatch.setattr(preparation_module, "RELEASE_CACHE_CHARS", 1 << 20)
    payload = big_chatgpt_payload()  # (1.4 million characters)
    payload["conversation_id"] = payload["id"] = "another-long-one"
    save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: False)
    released = sqlite_memory()
    # (the units and corpora it stores after the reply hold the cache to 1 MiB: small_page_cache)
    assert filled > 3 << 20 and released < filled - (1 << 20)
    # a short conversation leaves the cache to the searches that follow
    host_session.archive().search("quotes")
    warm = sqlite_memory()
    save.run({"payload": big_chatgpt_payload(turns=4), "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: False)
    assert sqlite_memory() >= warm


def test_a_long_conversations_work_a_request_interrupted_still_lets_the_page_cache_go(
    host_session, monkeypatch
):
    monkeypatch.setattr(preparation_module, "RELEASE_CACHE_CHARS", 1 << 20)
    host_session.archive().search("quotes")  # (the archive open, its cache warm)
    payload = big_chatgpt_payload()  # (1.4 million characters)
    save.run({"payload": payload, "kind": "chatgpt_api"}, host_session)
    host_session.after_reply(lambda: True)  # a request came: the index and units wait
    assert host_session.archive().has_pending_index()
    before = sqlite_memory()
    # the request was another conversation's (nothing to prepare): the long one's index is written now
    host_session.after_reply(lambda: False)
    assert not host_session.archive().has_pending_index()
    # written with the small cache and let go after, as right after its save (1.4 M characters of index
    # rows left 6-8 MiB in the cache when written with the whole of it)
    assert sqlite_memory() < before + (1 << 20)


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim, /proc")
def test_freed_memory_between_blocks_in_use_goes_back_to_the_system():
    from mnemosyne.runtime import heap

    if heap._malloc_trim() is None:
        pytest.skip("a C library without malloc_trim")
    blocks = [bytearray(100_000) for _ in range(600)]  # 60 MB from the heap (below the mmap threshold)
    kept = blocks[1::2]  # every other block freed: 30 MB of holes between blocks in use
    del blocks
    before = rss_kib()
    heap.give_back()
    assert rss_kib() < before - 20_000
    assert len(kept) == 300
