"""An import counts the tokens of a long text once, however many of its conversations hold it."""

from __future__ import annotations

from mnemosyne.context import turns
from mnemosyne.service.token_counts import import_counter
from test_archive import conversation


class CountingEncoder:
    """Tokens as words, and every text it was given."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        self.seen += texts
        return [list(range(len(text.split()))) for text in texts]


def test_a_long_text_in_many_conversations_is_encoded_once_with_the_same_counts(monkeypatch):
    encoder = CountingEncoder()
    monkeypatch.setattr(turns.tokens, "encoding", lambda name: encoder)
    quote = " ".join(f"word{n}" for n in range(400))
    convs = [conversation(f"c{n}", ["my notes", quote, f"reply {n}", quote]) for n in range(5)]
    alone = {conv.id: turns.count_messages(conv) for conv in convs}
    assert encoder.seen.count(quote) == 5  # without `known`: once in each conversation
    encoder.seen.clear()
    counter = import_counter()
    assert {conv.id: counter(conv) for conv in convs} == alone
    assert encoder.seen.count(quote) == 1
    assert encoder.seen.count("my notes") == 5  # short texts are counted as before


def test_the_known_counts_start_again_when_full(monkeypatch):
    encoder = CountingEncoder()
    monkeypatch.setattr(turns.tokens, "encoding", lambda name: encoder)
    monkeypatch.setattr(turns, "KNOWN_MAX", 2)
    texts = [f"text {n} " * 200 for n in range(3)]
    known: dict[bytes, int] = {}
    for n, text in enumerate(texts):
        turns.count_messages(conversation(f"k{n}", [text]), known=known)
        assert len(known) <= 2
    assert turns.count_messages(conversation("again", texts), known=known) == {
        f"again-{n}": 400 for n in range(3)
    }
