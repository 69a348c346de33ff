"""recall/ranking.py, passages.py and excerpt.py: query terms, the candidates' turns ranked by the
context engine's BM25F, and cutting a long turn to the paragraphs that match."""

from __future__ import annotations

from mnemosyne.context.counting import Meter
from mnemosyne.context.turns import Turn
from mnemosyne.recall import excerpt, passages, ranking


def _turns(*texts: str) -> list[Turn]:
    roles = ("user", "assistant")
    return [Turn(i, f"m{i}", roles[i % 2], text) for i, text in enumerate(texts)]


def test_terms_fold_stem_and_drop_stop_words():
    assert ranking.terms("What did we decide about the Retries policies?") == ["decide", "retry", "policy"]
    assert ranking.terms("数据库的设计 schema") == ["数据", "据库", "库的", "的设", "设计", "schema"]


def test_the_answer_ranks_first_and_brings_its_question():
    conv_a = _turns("how should the uploader retry?", "exponential backoff, three tries", "thanks")
    conv_b = _turns("retry later", "the weather is nice")
    ranked = passages.rank("uploader retry exponential backoff", [conv_a, conv_b], ["", ""], 0.5)
    best = ranked[0]
    # the reply holds the rare words, its question the others: the reply is the hit, with the question
    assert (best.conversation, best.hit) == (0, 1) and best.turns == (0, 1, 2)
    order = [(p.conversation, p.hit) for p in ranked]
    assert order.index((0, 0)) < order.index((1, 0)) and all(p.score > 0 for p in ranked)


def test_no_turn_is_scored_with_another_conversations_words():
    # conv_a's last turn holds every query word; conv_b's first turn none: it is no passage
    conv_a = _turns("zebrafish retry policy", "zebrafish retry policy")
    conv_b = _turns("the weather is nice", "sunny all week")
    ranked = passages.rank("zebrafish retry policy", [conv_a, conv_b], ["", ""], 0.5)
    assert {p.conversation for p in ranked} == {0}


def test_a_title_holding_the_query_lifts_its_conversation():
    conv_a = _turns("the retry policy", "three attempts")
    conv_b = _turns("the retry policy", "three attempts")
    plain = passages.rank("retry policy", [conv_a, conv_b], ["", ""], 0.5)
    titled = passages.rank("retry policy", [conv_a, conv_b], ["", "Retry policy"], 0.5)
    assert plain[0].conversation == 0 and titled[0].conversation == 1


def test_paragraphs_keep_every_word_and_cut_long_ones_at_sentences():
    long = " ".join(f"Sentence number {i} says something." for i in range(60))
    text = f"First paragraph.\n\n{long}\n\n\nLast one."
    pieces = ranking.paragraphs(text)
    assert pieces[0] == "First paragraph." and pieces[-1] == "Last one."
    assert all(len(p) <= ranking.MAX_PIECE_CHARS for p in pieces)
    assert " ".join(" ".join(pieces).split()) == " ".join(text.split())


def test_paragraphs_rank_by_query_terms_held():
    pieces = ["intro about nothing", "the zebrafish retry policy is three attempts", "zebrafish zebrafish"]
    assert ranking.rank_paragraphs(ranking.terms("zebrafish policy"), pieces) == [1, 2]
    assert ranking.rank_paragraphs(ranking.terms("unrelated"), pieces) == [0]


def test_an_excerpt_keeps_matching_paragraphs_apart_from_each_other():
    filler = "\n\n".join(f"Paragraph {i} is about the weather and nothing else at all." for i in range(30))
    text = f"The zebrafish policy says three attempts.\n\n{filler}\n\nIn short: zebrafish retries stop."
    meter = Meter("o200k_base")
    cut = excerpt.excerpt(meter, ranking.terms("zebrafish policy retries"), text, 60)
    assert meter.count(cut) <= 60
    assert "The zebrafish policy says three attempts." in cut and "zebrafish retries stop" in cut
    assert excerpt.GAP in cut and "Paragraph 15" not in cut
    assert excerpt.excerpt(meter, ["zebrafish"], text, 10_000) == text
