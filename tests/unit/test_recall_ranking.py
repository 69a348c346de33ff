"""recall/ranking.py: query terms, BM25 over turns, and cutting a long turn into paragraphs."""

from __future__ import annotations

from mnemosyne.recall import ranking


def test_terms_fold_stem_and_drop_stop_words():
    assert ranking.terms("What did we decide about the Retries policies?") == ["decide", "retry", "policy"]
    assert ranking.terms("数据库的设计 schema") == ["数据", "据库", "库的", "的设", "设计", "schema"]


def test_rank_prefers_rare_matching_terms_and_carries_the_neighbour():
    query = ranking.terms("exponential backoff retry")
    conv_a = [
        ranking.terms(t) for t in ("how should the uploader retry?", "exponential backoff, three tries")
    ]
    conv_b = [ranking.terms(t) for t in ("retry later", "the weather is nice")]
    ranked = ranking.rank_turns(query, [conv_a, conv_b], [[], []])
    assert (ranked[0].conversation, ranked[0].turn) == (0, 1)
    # a question scores with its answer: conv_a's question outranks conv_b's lone "retry"
    order = [(r.conversation, r.turn) for r in ranked]
    assert order.index((0, 0)) < order.index((1, 0))
    assert all(r.score > 0 for r in ranked) and (1, 1) not in order


def test_paragraphs_keep_every_word_and_cut_long_ones_at_sentences():
    long = " ".join(f"Sentence number {i} says something." for i in range(60))
    text = f"First paragraph.\n\n{long}\n\n\nLast one."
    pieces = ranking.paragraphs(text)
    assert pieces[0] == "First paragraph." and pieces[-1] == "Last one."
    assert all(len(p) <= ranking.MAX_PIECE_CHARS for p in pieces)
    assert " ".join(" ".join(pieces).split()) == " ".join(text.split())


def test_best_paragraph_finds_the_matching_one():
    pieces = ["intro about nothing", "the zebrafish retry policy is three attempts", "outro"]
    assert ranking.best_paragraph(ranking.terms("zebrafish policy"), pieces) == 1
    assert ranking.best_paragraph(ranking.terms("unrelated"), pieces) == 0
