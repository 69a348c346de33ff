"""`focus`: what the user wants to do next makes the engine prefer what bears on it, and the same
request gives the same context from the library, the CLI and the host action."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from conversation_samples import linear
from mnemosyne.context import build_context
from mnemosyne.errors import InputError
from mnemosyne.model import Conversation
from support.cli import run_cli

BENCH = Path(__file__).parents[1] / "bench" / "context_quality.py"
DATABASE = "The staging database runs on host pg-stage-7, port 6543, and the nightly dump goes to bucket kestrel-backups."
WEBSITE = "The marketing website is built with Hugo and the Ananke theme, and Netlify deploys it from branch site-live."


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("context_quality_for_focus", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def filler(bench) -> list[tuple[str, str]]:
    return bench._filler("en")[:80]  # real dialogue text from the fixtures


def two_topics(filler: list[tuple[str, str]]) -> Conversation:
    script = [("user", DATABASE), ("assistant", "Noted."), ("user", WEBSITE), ("assistant", "Noted.")]
    script += [x for a, b in filler for x in (("user", a), ("assistant", b))]
    script.append(("user", "Right, let's get back to our own project."))
    return linear(script, conversation_id="two-topics", title="infrastructure notes", site="chatgpt")


def test_focus_brings_in_what_bears_on_it(filler):
    conv = two_topics(filler)
    budget = 180  # room for one early fact beside the header, the recent turns and the last message
    on_db = build_context(conv, "chatgpt", budget=budget, focus="fix the staging database dump")
    on_site = build_context(conv, "chatgpt", budget=budget, focus="change the website theme")
    assert "pg-stage-7" in on_db.text and on_db.report["focus"] == "fix the staging database dump"
    assert "Ananke" in on_site.text
    # the budget is too small for both facts: the focus decided which one came in
    assert "Ananke" not in on_db.text and "pg-stage-7" not in on_site.text
    assert on_db.report["tokens"] <= budget and on_site.report["tokens"] <= budget


def test_focus_brings_in_the_answer_next_to_its_question(filler):
    """The reply that holds the answer shares no word with the focus, and says nothing rare: the turn
    before it (the question) matches. The passage brings both, each under its role and turn number."""
    script = [x for a, b in filler[:40] for x in (("user", a), ("assistant", b))]
    script += [
        ("user", "Big news: we finally chose the venue for the wedding ceremony last week!"),
        ("assistant", "Congratulations! So it's the garden behind her parents' house, how lovely."),
    ]
    script += [x for a, b in filler[40:80] for x in (("user", a), ("assistant", b))]
    script.append(("user", "Let's get back to it."))
    conv = linear(script, conversation_id="wedding", title="notes", site="chatgpt")
    focus = "What venue did they choose for the wedding ceremony?"
    out = build_context(conv, "chatgpt", budget=500, focus=focus)
    assert "garden behind her parents' house" in out.text and "wedding ceremony" in out.text
    assert "[user #80]\n" in out.text and "[assistant #81]\n" in out.text  # where the passage sits
    assert out.report["tokens"] <= 500


def two_chinese_topics(first: str, second: str, conversation_id: str) -> Conversation:
    """Two facts stated early, then 60 exchanges about the weather, then a return to the work."""
    script = [("user", first), ("assistant", "好的。"), ("user", second), ("assistant", "好的。")]
    script += [
        x
        for i in range(60)
        for x in (
            ("user", f"第{i}个问题：今天的天气怎么样？"),
            ("assistant", f"第{i}天是晴天，气温大约{i % 30}度，风很小。"),
        )
    ]
    script.append(("user", "回到正事。"))
    return linear(script, conversation_id=conversation_id, title="笔记", site="chatgpt")


def test_focus_in_chinese():
    conv = two_chinese_topics(
        "我们的仓库在宁波北仑港，仓库编号是甬仓七号。",
        "公司官网用的是蓝鲸建站平台，域名是青禾点网。",
        "zh-topics",
    )
    warehouse = build_context(conv, "chatgpt", budget=400, focus="仓库的地址")
    site = build_context(conv, "chatgpt", budget=400, focus="官网的域名")
    assert "甬仓七号" in warehouse.text and "青禾点网" in site.text


def test_a_chinese_focus_on_a_word_with_a_function_character_finds_it_in_the_text():
    """上海 (上 is a function character) is no unit's term (salience.terms): the focus finds it in the text."""
    conv = two_chinese_topics(
        "周会改在上海办公室的三楼，会议室叫蓝鲸厅。",
        "报销单交给财务部的小李，截止日期是每月五号。",
        "zh-function",
    )
    budget = 120  # room for one of the two facts: the focus decides which (without one: 小李)
    shanghai = build_context(conv, "chatgpt", budget=budget, focus="上海")
    finance = build_context(conv, "chatgpt", budget=budget, focus="财务")
    assert "蓝鲸厅" in shanghai.text and "小李" not in shanghai.text
    assert "小李" in finance.text and "蓝鲸厅" not in finance.text


def test_focus_is_checked():
    conv = linear([("user", "hello")], conversation_id="x", title="x", site="chatgpt")
    with pytest.raises(InputError):
        build_context(conv, "chatgpt", focus="x" * 5000)
    assert build_context(conv, "chatgpt", focus="   ").report["focus"] is None


CHATGPT = "chatgpt_api/elinvoss/0073-Fuel_pressure_regulator_issue-69077245-2894-8331-a428-10383a91ac88.json"


def test_same_context_from_library_cli_and_host(tmp_path, fixtures, monkeypatch):
    from support.hostproc import HostProcess, host_env

    env = host_env(tmp_path / "home")
    host = HostProcess(env)
    try:
        payload = json.loads((fixtures / CHATGPT).read_text(encoding="utf-8"))
        conv_id = host.data("save", payload=payload, kind="chatgpt_api")["conversation_id"]
        request = {
            "conversation_id": conv_id,
            "target": "chatgpt",
            "budget": 1500,
            "focus": "vacuum hose leak",
        }
        host_text, _ = host.paged("context", **request)
        host_report = host.data("context", **request)["report"]
    finally:
        code, _, err = host.close()
    assert code == 0, err
    for k in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE"):
        monkeypatch.setenv(k, env[k])
    from mnemosyne.archive import open_archive

    with open_archive() as arc:
        conv = arc.get(conv_id)
        counts = arc.token_counts(conv.id, "o200k_base")
    library = build_context(conv, "chatgpt", budget=1500, token_counts=counts, focus="vacuum hose leak")
    assert library.text == host_text and library.report == host_report
    cli = run_cli(
        dict(os.environ, **{k: env[k] for k in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE")}),
        "context",
        conv_id,
        "-t",
        "chatgpt",
        "-b",
        "1500",
        "--focus",
        "vacuum hose leak",
        "--json",
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == {"payload": library.payload, "report": library.report}
    assert library.report["focus"] == "vacuum hose leak"


ZH_SMALL_TALK = [f"第{i}段闲聊：今天天气不错，我们聊了聊周末的安排和新开的面包店。" for i in range(30)]
EN_SMALL_TALK = [f"Note {i}: the weather was mild and we talked about the weekend plans." for i in range(30)]


def _superseded(texts: list[str], filler: list[str] = ZH_SMALL_TALK) -> list[str]:
    """The statements of a conversation of `texts` (alternating user/assistant, after `filler`) a later one
    corrects."""
    from mnemosyne.context import digest
    from mnemosyne.context.corpus import Corpus
    from mnemosyne.context.turns import Turn

    turns = [Turn(i, f"m{i}", "user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(filler + texts)]
    corpus = Corpus(turns)
    units = [corpus.unit(k) for k in range(len(corpus))]
    digest.mark_repeats_and_corrections(units, corpus.stats)
    return [u.text for u in units if u.superseded]


def test_a_chinese_correction_of_numbers_written_in_characters_supersedes_the_statement():
    old = "健身房的营业时间是早上六点到下午四点。"
    new = "健身房的营业时间改为上午八点到晚上十点。"  # the words around the times change with them
    assert _superseded([old, "好的，记下了。", new, "明白。"]) == [old]
    # another subject with the same times is not a correction
    assert _superseded([old, "好的。", "游泳馆周末的水温保持在二十八度左右。", "明白。"]) == []


def test_a_correction_weighs_like_the_statement_it_replaces():
    """The restatement is now where the fact lives: the terms it shares with the statement it corrects
    weigh what they weighed there (a first statement), not what a repeat weighs."""
    from mnemosyne.context import digest
    from mnemosyne.context.corpus import Corpus
    from mnemosyne.context.turns import Turn

    old = "The shop opens at 7:30 on weekdays and we bake from 4."
    new = "Small change: from next month the shop opens at 7:00 on weekdays, the parents asked for it."
    filler = [f"Note {i}: the weather was mild and we talked about the weekend plans." for i in range(30)]
    texts = [old, "Noted.", *filler, new, "Noted."]
    turns = [Turn(i, f"m{i}", "user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(texts)]
    corpus = Corpus(turns)
    units = [corpus.unit(k) for k in range(len(corpus))]
    for u in units:
        u.weights = corpus.weigh(u)
    before = {u.text: dict(u.weights) for u in units}
    digest.mark_repeats_and_corrections(units, corpus.stats)
    stated = next(u for u in units if "7:30" in u.text)
    corrected = next(u for u in units if "7:00" in u.text)
    assert stated.superseded and not corrected.superseded
    shared = stated.weights.keys() & corrected.weights.keys()
    assert shared and all(corrected.weights[t] >= stated.weights[t] for t in shared)
    assert sum(corrected.weights.values()) > sum(before[corrected.text].values())


def test_a_correction_that_says_so_supersedes_the_statement_it_rewords():
    """ "Pushed back to 17 February" shares one word with "the deposit ... is due by 3 February": the change
    it announces, the month and the number that differs make it a correction; the clause before the
    semicolon states another fact and stays."""
    old = "The coach leaves at 08:15 from the school gate; the deposit of £60 per child is due by 3 February."
    new = "Update from the bursar: the deposit deadline is pushed back to 17 February because the portal was down."
    assert _superseded([old, "Noted.", new, "Noted."], EN_SMALL_TALK) == [
        "the deposit of £60 per child is due by 3 February."
    ]
    # an announced change about something else (no name in common) corrects nothing
    other = "Update: the coach now leaves at 08:30 because of roadworks on the bypass."
    stated = "The deposit of £60 per child is due by 3 February."
    assert _superseded([stated, "Noted.", other, "Ok."], EN_SMALL_TALK) == []


def test_code_in_a_chinese_conversation_is_weighed_as_code_not_as_english():
    """Each script's units are scaled to the median density of the prose; code is in no language's script.
    Scaled as English in a Chinese conversation whose English passages are dense, a code block the later
    turns use fell below every Chinese sentence."""
    from mnemosyne.context.select import _script_scales

    chinese, english, code = [1.0] * 30, [4.0] * 30, [2.0] * 5
    scale = _script_scales([True] * 30 + [False] * 30 + [None] * 5, chinese + english + code)
    assert scale[None] == 1.0
    assert scale[True] == 2.5 and scale[False] == 2.5 / 4  # the median of the prose alone: 2.5


def test_a_long_user_message_weighs_as_pasted_text_not_as_the_users_own_words():
    """What only the user could say weighs more; an article or an exercise pasted in is not that."""
    from mnemosyne.context.coverage import role_weight

    assert role_weight("user", "We decided to keep our own Icecast server.") == 1.5
    assert role_weight("user", "word " * 200) == role_weight("assistant", "word") == 1.0
    assert role_weight("user", "装" * 250) == 1.5  # 750 bytes of Chinese: about 250 tokens
    assert role_weight("user", "装" * 300) == 1.0


def test_a_sentence_in_the_first_person_weighs_more_than_general_knowledge():
    """ "We decided", "my partner handles", 我们决定: the speakers' own situation, which the next tool cannot
    know otherwise."""
    from mnemosyne.context.coverage import SELF_WEIGHT, self_weight

    assert SELF_WEIGHT > 1.0
    assert self_weight("sentence", "We're going with Kingswood Ridge rather than the hostel.") == SELF_WEIGHT
    assert self_weight("item", "my partner handles the design") == SELF_WEIGHT
    assert self_weight("sentence", "我们决定不做地暖。") == SELF_WEIGHT
    assert (
        self_weight("sentence", "The US office closes at six; Iceland is in the EU's single market.") == 1.0
    )
    assert self_weight("code", "# we set it here\nx = 1") == 1.0  # code is weighed by what it defines


def test_pairs_with_di_are_terms_of_a_chinese_sentence():
    """地 opens more words that carry a fact (地暖, 地址) than it marks an adverb: a decision about
    underfloor heating is about 地暖."""
    from mnemosyne.context.salience import terms

    assert {"地暖", "地址"} <= terms("我们决定不做地暖，地址是文三路。").keys()
