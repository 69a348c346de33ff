"""Does the context keep what the conversation established? A benchmark in three halves.

Long conversations are built from real dialogue text with facts planted early, the way people
state them. The engine never sees the fact keys.

- TUNING half (what the engine was tuned on): the bakery / milk-tea-shop templates (Chinese facts in
  lists and tables with no cue words among them), with filler from the glaive tool-call demos (English
  and Chinese, first 240 pairs) and axolotl, the English one mixed with real list-heavy assistant
  answers (LLaMA-Factory's reasoning demo, LibreChat and Chatbot UI exports; see TUNING_LISTY_EN).
- DEV half (held out at first, then looked at while tuning, so no longer a held-out figure): other
  templates and wording: an allotment association and a neighbourhood book corner, with facts stated by the assistant, facts in lists and in tables, facts
  restated and then corrected (the later value must be there and the earlier one gone), Chinese facts
  with no cue words; the filler is other text: real ChatGPT and Claude conversations from the fixtures
  (English), the real Chinese ChatGPT dialogue from llmfarm and the glaive zh pairs from 240 on that
  share no text with the first 240 (Chinese).
- TEST half (planted_test_half.py; held out at first, then scored once per batch of changes): other kinds of facts (a person's role, a
  decision with its reason, a version number, an address, configuration values, a deadline moved) in
  other settings (a community radio station, a guesthouse), and other kinds of filler: code help, travel
  plans, long lists and tables, research and reports (LLaMA-Factory's DPO and Alpaca demos), sharing no
  text with the other halves. It plants its facts within the first fifth of its filler, however long.
- SECOND TEST half (planted_second_test_half.py; held out, reported): made when the test half had been scored
  five times, scored once on the engine as it was then: a repair café and a cat rescue, filler from LLaMA-Factory's
  KTO demo and the Alpaca and DPO demos' items after those the other halves took.
- FRESH half (planted_fresh_half.py; made after the test half was scored, to study what it lost without
  looking at it, so looked at while changing the engine): new templates (a school trip, a flat renovation)
  and filler no other half uses (LLaMA-Factory's Alpaca demos and the DPO demos' items the test half left
  out), planted the test half's way.

For each budget the share of planted facts kept is measured for Mnemosyne and three baselines (last
messages that fit, drop oldest first, evenly spaced messages). Every context is checked to be within
budget (recounted with o200k_base) and to hold the last user message; Mnemosyne's budget use and
repeated units are printed.

Run: python tests/bench/context_quality.py [--half tuning|dev|fresh|test|test2|all] [--budgets 2000,4000,8000] [--why]
(--why: a half's dropped facts with their units' value, cost and density against the chosen units'; not
for the test halves).
The tuning half keeps nearly every fact at 2k, so it is tuned at --budgets 1000,1300,1600,2000.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import planted_fresh_half  # noqa: E402
import planted_second_test_half  # noqa: E402
import planted_test_half  # noqa: E402
from context_baselines import BASELINES, ENCODING  # noqa: E402
from planted_fact import Fact, filler_parts  # noqa: E402

from mnemosyne import tokens, tree  # noqa: E402
from mnemosyne.context import build_context  # noqa: E402
from mnemosyne.context.digest import split_text  # noqa: E402
from mnemosyne.context.turns import render_message  # noqa: E402
from mnemosyne.model import Conversation, Message, Provenance, Source, TextPart  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "fixtures" / "interop_sharegpt"
BUDGETS = (2000, 4000, 8000)
TUNING_FILLER_PAIRS = 240  # glaive pairs the tuning half uses; the dev half takes the ones after
# Real assistant answers full of lists (model answers from LLaMA-Factory's reasoning demo, LibreChat and
# Chatbot UI exports): mixed into the tuning half's English filler so that it looks like the dev half's
# ChatGPT / Claude answers without sharing a file with it.
TUNING_LISTY_EN = (
    "interop_sharegpt/llamafactory_reason_tool_use_demo_50.jsonl",
    "interop_librechat/librechat_chatbotui-export.json",
    "interop_librechat/librechat_librechat-tree.json",
)  # not librechat-export.json: its dialogue is the dev half's chatgpt_export/librechat_chatgpt-export.json


# ---------------------------------------------------------------- tuning half
# (role, text, facts stated in it). Early set-up of the conversation, spread between filler turns.
EN_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "Hi! I want to build a little invoicing tool for my bakery, right now everything lives in a spreadsheet "
        "and it's a mess. For context, I run the place with my sister Marta, it's just the two of us plus a "
        "part-timer on Saturdays.",
        (Fact("Marta", "user fact"),),
    ),
    (
        "assistant",
        "That sounds like a great project. A small local app is plenty for a two-person business. What does "
        "your setup look like, and is there anything I should keep in mind?",
        (),
    ),
    (
        "user",
        "One catch: the shop laptop is stuck on Python 3.8 because the label printer driver won't work with "
        "anything newer. Also I really don't want to pay for hosting, we can spend maybe £15 a month tops.",
        (Fact("Python 3.8", "constraint"), Fact("£15", "constraint")),
    ),
    (
        "assistant",
        "Understood. Given Python 3.8 and almost no hosting budget, I would keep everything on the laptop. "
        "SQLite stores the whole database in one file and ships with Python, so there is nothing to "
        "install or pay for. A hosted Postgres would work too, but it costs money and needs a network.",
        (),
    ),
    (
        "user",
        "ok let's go with SQLite then, one file is easy to copy to the USB stick every night. "
        "Please keep answers short if you can, I mostly read them on my phone between bakes.",
        (Fact("SQLite", "decision"), Fact("on my phone", "preference")),
    ),
    (
        "user",
        "Invoice numbers: let's do BK-2024-0001 style and restart the counter every January.",
        (Fact("BK-2024-0001", "decision"),),
    ),
    ("assistant", "Sounds good: a prefix, the year and a four-digit counter that resets on 1 January.", ()),
    (
        "user",
        "Our main flour supplier is Hartley & Sons, account number 88213, they bill us on the 3rd of every month. "
        "VAT is 20% on most of what we sell but plain bread is zero-rated, so the tool has to handle both.",
        (Fact("88213", "number"), Fact("zero-rated", "fact")),
    ),
    (
        "assistant",
        "Here is a helper that splits the cost of a batch across the loaves, with an allowance for waste:\n\n"
        "```python\ndef split_batch_cost(total_pence: int, loaves: int, waste_ratio: float = 0.07) -> int:\n"
        "    usable = max(1, round(loaves * (1 - waste_ratio)))\n    return -(-total_pence // usable)\n```\n\n"
        "And a row type for the ledger:\n\n```python\n@dataclass\nclass LedgerRow:\n    day: date\n"
        '    description: str\n    amount_pence: int\n    vat_band: str  # "standard" or "zero"\n```',
        (Fact("waste_ratio", "code"), Fact("vat_band", "code")),
    ),
    (
        "user",
        "My accountant, Priya Raman, wants a CSV export at the end of each quarter.",
        (Fact("Priya Raman", "name"),),
    ),
    (
        "user",
        "Agreed, we'll print invoices as PDF with reportlab rather than fiddling with HTML styling.",
        (Fact("reportlab", "decision"),),
    ),
    ("user", "The shop opens at 7:30 on weekdays and we bake from 4.", ()),
    (
        "assistant",
        "I'll keep the prices in a table called price_book, and the nightly backup will write to a folder named "
        "bk_snapshots. The Hartley invoice you pasted shows flour up 6% since March.",
        (
            Fact("price_book", "assistant fact"),
            Fact("bk_snapshots", "assistant fact"),
            Fact("6%", "assistant fact"),
        ),
    ),
    (
        "user",
        "Our regular wholesale customers:\n- The Copper Kettle café, 40 sourdough loaves a week\n"
        "- Greenway Primary School, bread rolls every Monday\n- Mrs Adeyemi's deli, croissants on Saturdays",
        (Fact("Copper Kettle", "list"), Fact("Greenway Primary", "list")),
    ),
    (
        "assistant",
        "Costs and prices as they stand:\n\n| product | unit cost | price |\n|---|---|---|\n"
        "| sourdough | £1.10 | £3.80 |\n| seeded rye | £1.35 | £4.20 |\n| cinnamon bun | £0.45 | £2.10 |",
        (Fact("£3.80", "table"), Fact("£4.20", "table")),
    ),
    (
        "user",
        "Small change: from next month the shop opens at 7:00 on weekdays, the school-run parents asked for it.",
        (Fact("7:00", "correction", stale="7:30"),),
    ),
]
EN_LATE = [
    (
        "user",
        "Back to the bakery tool: the split_batch_cost numbers look too high for the rye batches, any idea why?",
    ),
    (
        "assistant",
        "Rye batches lose more loaves to cracking, so the allowance matters more there. Check the batch size you pass in.",
    ),
    ("user", "Should LedgerRow also keep a reference to the supplier invoice it came from?"),
    ("assistant", "Yes, an optional reference field makes reconciliation much easier."),
]
EN_LAST = "Can you draft the reminder email to the flour supplier about last week's late delivery, and tell me how to log it in the ledger?"

ZH_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "你好！我想给我的奶茶店做一个点单的小程序，现在都是手写单子，太乱了。我在杭州开店，店名叫“半糖主义”，就我和我老公两个人。",
        (Fact("半糖主义", "user fact"),),
    ),
    ("assistant", "好的，这个需求很清楚。请问预算和时间上有什么要求吗？", ()),
    (
        "user",
        "预算最多三万元，而且必须在九月开学前上线。我们不想接外卖平台，抽成太高了，别给我推荐那种方案。",
        (Fact("三万元", "constraint"), Fact("抽成", "constraint")),
    ),
    ("assistant", "明白。考虑到预算和顾客习惯，微信小程序比独立App便宜很多，也不需要顾客另外下载。", ()),
    (
        "user",
        "好，那就用微信小程序，不做App了。回答尽量简短，我一般在店里用手机看。",
        (Fact("微信小程序", "decision"), Fact("在店里用手机看", "preference")),
    ),
    ("user", "会员积分就按一块钱一分，满100分换一杯。", (Fact("满100分", "decision"),)),
    ("assistant", "好的，积分规则定下来了。", ()),
    ("user", "我们的原料供应商是“鲜茶记”，每周二送货，结算周期是月结。", (Fact("鲜茶记", "name"),)),
    (
        "assistant",
        "这是计算积分的函数和订单表：\n\n```javascript\nconst POINT_RATE = 1;\nfunction calcMemberPoints(orderTotal, level) {\n"
        "  const bonus = level === 'gold' ? 2 : 1;\n  return Math.floor(orderTotal * POINT_RATE) * bonus;\n}\n```\n\n"
        "```sql\nCREATE TABLE orders_v2 (\n  id INTEGER PRIMARY KEY,\n  cup_size TEXT CHECK (cup_size IN ('中杯', '大杯')),\n"
        "  sugar_level INTEGER,\n  total_fen INTEGER\n);\n```",
        (Fact("POINT_RATE", "code"), Fact("cup_size", "code")),
    ),
    ("user", "外带的打包费是每杯五毛。", ()),
    (
        "assistant",
        "菜单表我命名为 menu_items，饮品编号的格式是 BT-101，原料库存每天晚上十点自动盘点一次。",
        (
            Fact("menu_items", "assistant fact"),
            Fact("BT-101", "assistant fact"),
            Fact("晚上十点", "assistant fact"),
        ),
    ),
    (
        "user",
        "兼职是这样排的：\n- 周二：林小雨\n- 周四：郑浩然\n- 周末：我表妹来帮忙",
        (Fact("林小雨", "list"), Fact("郑浩然", "list")),
    ),
    (
        "assistant",
        "按你给的进货单算了一下：\n\n| 饮品 | 成本 | 售价 |\n|---|---|---|\n| 珍珠奶茶 | 4.2元 | 12元 |\n"
        "| 杨枝甘露 | 6.8元 | 18元 |",
        (Fact("4.2元", "table"), Fact("6.8元", "table")),
    ),
    (
        "user",
        "这周试的新品：\n- 桂花乌龙，偏甜\n- 椰椰芒芒，一天卖四十杯\n- 黑糖波波，珍珠放久了会硬",
        (Fact("桂花乌龙", "list"), Fact("椰椰芒芒", "list")),
    ),
    (
        "assistant",
        "| 时段 | 杯数 |\n|---|---|\n| 早上 | 35杯 |\n| 下午 | 82杯 |\n| 晚上 | 57杯 |",
        (Fact("82杯", "table"), Fact("57杯", "table")),
    ),
    ("user", "纸杯涨价了，外带的打包费改成每杯八毛。", (Fact("八毛", "correction", stale="五毛"),)),
]
ZH_LATE = [
    ("user", "回到奶茶店的小程序：calcMemberPoints 在周末双倍积分的时候要怎么改？"),
    ("assistant", "可以在调用时传入一个倍数参数，周末传2就行。"),
    ("user", "orders_v2 表要不要再加一个备注字段，记录少冰之类的要求？"),
    ("assistant", "建议加一个可为空的备注字段。"),
]
ZH_LAST = "帮我写一条通知发给供应商，说下周二的送货改到周三，另外这笔货款要怎么记到账上？"


# ---------------------------------------------------------------- dev half (looked at while tuning)
DEV_EN_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "I look after the waiting list for the Willowbrook Lane allotments, about 60 plots on an old railway "
        "siding. The committee wants the spreadsheet replaced with something small we can run ourselves.",
        (Fact("Willowbrook Lane", "user fact"),),
    ),
    (
        "assistant",
        "Happy to help with that. A small web app backed by a single database file would suit a volunteer-run "
        "site. How do people join the list today?",
        (),
    ),
    (
        "user",
        "They fill in a paper form at the gate. The shed has no mains power, only a 12 V leisure battery, so "
        "anything on site has to run off a phone.",
        (Fact("12 V", "user fact"),),
    ),
    (
        "assistant",
        "Then nothing needs installing on site. I'll call the main table plot_tenancies and give every plot a "
        "code like WL-014. The council's tenancy rules allow a plot to stay uncultivated for 8 weeks before a "
        "warning letter goes out, so the app should track the last inspection date.",
        (
            Fact("plot_tenancies", "assistant fact"),
            Fact("WL-014", "assistant fact"),
            Fact("8 weeks", "assistant fact"),
        ),
    ),
    (
        "user",
        "Current holders on the top terrace:\n- A3: Deborah Okafor, tomatoes and squash\n- B7: Tomasz Wrona, "
        "runner beans\n- C2: the shared herb bed, looked after by the Tuesday group",
        (Fact("Deborah Okafor", "list"), Fact("Tomasz Wrona", "list")),
    ),
    (
        "assistant",
        "Here are the suppliers from the invoices you pasted:\n\n| item | supplier | price |\n|---|---|---|\n"
        "| compost | GreenCycle Depot | £42 per tonne |\n| water butts | Rainsaver Ltd | £18 each |\n"
        "| wood chip | Hollins Tree Care | free, delivered on request |",
        (Fact("GreenCycle Depot", "table"), Fact("Rainsaver Ltd", "table")),
    ),
    ("user", "The annual rent is £35 per plot, half that for a half plot.", ()),
    ("user", "The AGM is on 14 March in the church hall.", ()),
    (
        "assistant",
        "A first version of the waiting-list allocation:\n\n```python\n"
        "def allocate_waitlist(applicants, free_plots, *, prefer_local=True):\n"
        "    ranked = sorted(\n        applicants,\n"
        "        key=lambda a: (not (prefer_local and a.postcode.startswith('LS6')), a.applied_on),\n    )\n"
        "    return list(zip(free_plots, ranked))\n```",
        (Fact("prefer_local", "code"), Fact("LS6", "code")),
    ),
    (
        "user",
        "Two changes from last night's committee meeting. The annual rent is now £40 per plot, from April. "
        "The AGM moved to 21 March because the church hall was double-booked.",
        (Fact("£40", "correction", stale="£35"), Fact("21 March", "correction", stale="14 March")),
    ),
    (
        "user",
        "The padlock code on the main gate is 4471, it changes every spring.",
        (Fact("4471", "user fact"),),
    ),
]
DEV_EN_LATE = [
    (
        "user",
        "Back to the allotment app: allocate_waitlist keeps putting the same family at the top, is the sort wrong?",
    ),
    (
        "assistant",
        "It sorts by the local-postcode flag first and then by application date, so an early local applicant stays first until a plot is offered.",
    ),
    ("user", "Should the tenancy table also record who holds the spare shed key?"),
    ("assistant", "Yes, a nullable column is enough."),
]
DEV_EN_LAST = "Can you write the notice for the gate board about the rent change and the AGM, and list which terrace plots are still unlet?"

DEV_ZH_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "你好，我在云栖花园小区管一个图书角，放在三号楼一楼大厅，书都是邻居捐的，现在登记全靠一个本子。",
        (Fact("云栖花园", "user fact"), Fact("三号楼", "user fact")),
    ),
    ("assistant", "明白了，这种规模用一个小程序或者在线表格就够了。现在借书的流程是怎样的？", ()),
    ("user", "邻居拿书的时候在本子上写名字和日期。每人每次可以借3本，借期两周。", ()),
    (
        "assistant",
        "那我把借阅记录表命名为 loan_records，每本书贴一个编号，格式是 YQ-0001。逾期提醒每天晚上八点通过群消息发出。",
        (
            Fact("loan_records", "assistant fact"),
            Fact("YQ-0001", "assistant fact"),
            Fact("晚上八点", "assistant fact"),
        ),
    ),
    (
        "user",
        "值班是这样排的：\n- 周一：陈晓岚\n- 周三：吕明远\n- 周六：楼下咖啡店的小周",
        (Fact("陈晓岚", "list"), Fact("吕明远", "list")),
    ),
    (
        "assistant",
        "按你拍的照片，现在的藏书大概是这样：\n\n| 书架 | 类别 | 数量 |\n|---|---|---|\n| A区 | 绘本 | 320本 |\n"
        "| B区 | 科普 | 145本 |\n| C区 | 小说 | 210本 |",
        (Fact("320本", "table"), Fact("145本", "table")),
    ),
    ("user", "开放时间是早上九点到下午五点。", ()),
    (
        "assistant",
        "逾期的查询可以这样写：\n\n```python\ndef overdue_loans(loan_records, today, grace_days=2):\n"
        "    return [r for r in loan_records if (today - r.due).days > grace_days]\n```",
        (Fact("grace_days", "code"),),
    ),
    (
        "user",
        "昨天开会改了两件事。每人每次可以借5本了。开放时间改成早上十点到晚上七点，方便下班的人。",
        (Fact("借5本", "correction", stale="借3本"), Fact("晚上七点", "correction", stale="下午五点")),
    ),
    ("user", "图书角的微信群号是 QZ-2291，进群先填一张登记表。", (Fact("QZ-2291", "user fact"),)),
]
DEV_ZH_LATE = [
    ("user", "回到图书角的事：overdue_loans 是不是把今天到期的也算成逾期了？"),
    ("assistant", "不会，只有超过宽限天数的才算。"),
    ("user", "借阅表要不要加一栏记录是谁经手的？"),
    ("assistant", "可以加一个可为空的经手人字段。"),
]
DEV_ZH_LAST = "帮我写一条群公告，说明新的借书数量和开放时间，再告诉我下个月的值班表怎么排。"

HALVES = {
    "tuning": {
        "en": (EN_EARLY, EN_LATE, EN_LAST, "Bakery invoicing tool"),
        "zh": (ZH_EARLY, ZH_LATE, ZH_LAST, "奶茶店小程序"),
    },
    "dev": {
        "en": (DEV_EN_EARLY, DEV_EN_LATE, DEV_EN_LAST, "Allotment waiting list app"),
        "zh": (DEV_ZH_EARLY, DEV_ZH_LATE, DEV_ZH_LAST, "社区图书角登记"),
    },
    "test": planted_test_half.HALF,
    "fresh": planted_fresh_half.HALF,
    "test2": planted_second_test_half.HALF,
}
EARLY_IN_ITS_FILLER = {"test", "fresh", "test2"}
PLANTED_HALVES = {
    "test": planted_test_half,
    "fresh": planted_fresh_half,
    "test2": planted_second_test_half,
}  # halves that plant within the first fifth of the filler they have


def _sharegpt_pairs(names: list[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name in names:
        data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        for item in data if isinstance(data, list) else [data]:
            turns = [(t["from"], t["value"]) for t in item["conversations"] if t["from"] in ("human", "gpt")]
            for (r1, a), (r2, b) in zip(turns, turns[1:]):
                if r1 == "human" and r2 == "gpt" and a.strip() and b.strip():
                    pairs.append((a, b))
    return pairs


def _conversation_pairs(paths: list[Path]) -> list[tuple[str, str]]:
    """(user, assistant) pairs on the active path of real exported conversations."""
    from mnemosyne.readers import ReadFailure, load_path, read_raw

    pairs: list[tuple[str, str]] = []
    for path in paths:
        for raw in load_path(path):
            for conv in read_raw(raw):
                if isinstance(conv, ReadFailure):
                    continue
                turns = [(m.role, render_message(m).strip()) for m in tree.path_to(conv, None)]
                turns = [(r, t) for r, t in turns if r in ("user", "assistant") and t]
                for (r1, a), (r2, b) in zip(turns, turns[1:]):
                    if r1 == "user" and r2 == "assistant":
                        pairs.append((a, b))
    return pairs


def _interleave(base: list, extra: list) -> list:
    """`extra` spread evenly through `base`, both kept in order."""
    out, taken = [], 0
    step = len(base) / max(1, len(extra))
    for i, pair in enumerate(base):
        out.append(pair)
        if taken < len(extra) and i + 1 >= step * (taken + 1):
            out.append(extra[taken])
            taken += 1
    return out + extra[taken:]


def _filler(lang: str, half: str = "tuning") -> list[tuple[str, str]]:
    """(user, assistant) pairs from real dialogues, in file order; the halves share none."""
    if half == "tuning":
        if lang == "zh":
            return _sharegpt_pairs(["llamafactory_glaive_toolcall_zh_demo.json"])
        demos = _sharegpt_pairs(["llamafactory_glaive_toolcall_en_demo.json", "axolotl_conversation.json"])
        listy = _conversation_pairs([TESTS / "fixtures" / f for f in TUNING_LISTY_EN])
        return _interleave(demos[: TUNING_FILLER_PAIRS - len(listy)], listy)
    if half in PLANTED_HALVES:
        first, *rest = filler_parts(PLANTED_HALVES[half].FILES[lang])
        for extra in rest:
            first = _interleave(first, extra)
        return first
    if lang == "en":
        folders = ("chatgpt_api/elinvoss", "chatgpt_export", "claude_export")
        return _conversation_pairs(
            [p for f in folders for p in sorted((TESTS / "fixtures" / f).glob("*.json"))]
        )
    llmfarm = _conversation_pairs([TESTS / "fixtures" / "chatgpt_api" / "llmfarm_dialog-data_mapping.json"])
    glaive = _sharegpt_pairs(["llamafactory_glaive_toolcall_zh_demo.json"])
    seen = {t for pair in glaive[:TUNING_FILLER_PAIRS] for t in pair}  # the demo file repeats dialogues
    return llmfarm + [p for p in glaive[TUNING_FILLER_PAIRS:] if not seen.intersection(p)]


def build(lang: str, filler_pairs: int, half: str = "tuning") -> tuple[Conversation, list[Fact]]:
    """A conversation: planted set-up spread over the first fifth, filler, late callbacks, filler, last question."""
    early, late, last, title = HALVES[half][lang]
    filler = _filler(lang, half)[:filler_pairs]
    size = len(filler) if half in EARLY_IN_ITS_FILLER else filler_pairs
    spread = max(1, size // 5 // len(early))
    script: list[tuple[str, str]] = []
    facts: list[Fact] = []
    used = 0
    for role, text, planted in early:
        script.append((role, text))
        facts.extend(planted)
        for a, b in filler[used : used + spread]:
            script += [("user", a), ("assistant", b)]
        used += spread
    rest = filler[used:]
    cut = int(len(rest) * 0.6)
    script += [x for a, b in rest[:cut] for x in (("user", a), ("assistant", b))]
    script += late
    script += [x for a, b in rest[cut:] for x in (("user", a), ("assistant", b))]
    script.append(("user", last))
    messages, parent = [], None
    for i, (role, text) in enumerate(script):
        messages.append(Message(id=f"m{i:05d}", parent=parent, role=role, parts=[TextPart(text=text)]))
        parent = f"m{i:05d}"
    conv = Conversation(
        id=f"bench-{half}-{lang}",
        title=title,
        source=Source(site="chatgpt"),
        messages=messages,
        active_leaf=parent,
        provenance=Provenance(method="manual", reader="bench", reader_version="0", raw_sha256="0" * 64),
    )
    return conv, facts


def _pieces(text: str) -> Counter:
    """Units of 5+ words (or 20+ characters of Chinese) in `text`: sentences, items, rows, code blocks."""
    return Counter(
        b for _, b in split_text(text) if len(b.split()) >= 5 or (len(b) >= 20 and not b.isascii())
    )


def repeated_units(context: str, conv: Conversation) -> int:
    """Units the context shows more often than the conversation says them: a unit chosen twice."""
    source = sum(
        (_pieces(render_message(m)) for m in conv.messages), Counter()
    )  # a list ends with its message
    return sum(max(0, n - source[b]) for b, n in _pieces(context).items() if n > 1)


def evaluate(lang: str, filler_pairs: int, budgets: tuple[int, ...], half: str = "tuning") -> list[dict]:
    conv, facts = build(lang, filler_pairs, half)
    last = conv.messages[-1].parts[0].text
    total = tokens.count("\n\n".join(f"{m.role}: {render_message(m)}" for m in conv.messages), ENCODING)
    rows = []
    for budget in budgets:
        contexts = {"mnemosyne": build_context(conv, "chatgpt", budget=budget).text}
        contexts.update((name, fn(conv, budget)) for name, fn in BASELINES.items())
        for method, text in contexts.items():
            used = tokens.count(text, ENCODING)
            rows.append(
                {
                    "half": half,
                    "lang": lang,
                    "budget": budget,
                    "method": method,
                    "tokens": used,
                    "conversation_tokens": total,
                    "kept": sum(f.kept(text) for f in facts),
                    "facts": len(facts),
                    "share": sum(f.kept(text) for f in facts) / len(facts),
                    "missing": [f.key for f in facts if not f.kept(text)],
                    "within_budget": used <= budget,
                    "last_user_present": last in text,
                    "repeats": repeated_units(text, conv) if method == "mnemosyne" else None,
                }
            )
    return rows


def check(rows: list[dict]) -> list[str]:
    """Broken guarantees: over budget, the last user message missing, a unit shown twice."""
    problems = []
    for r in rows:
        if not r["within_budget"]:
            problems.append(f"{r['method']} {r['lang']} {r['budget']}: {r['tokens']} tokens over budget")
        if not r["last_user_present"]:
            problems.append(f"{r['method']} {r['lang']} {r['budget']}: last user message missing")
        if r["method"] == "mnemosyne" and r["repeats"]:
            problems.append(f"mnemosyne {r['lang']} {r['budget']}: {r['repeats']} units appear twice")
    return problems


def table(rows: list[dict]) -> None:
    methods = ["mnemosyne", *BASELINES]
    print(
        f"{'lang':4} {'budget':>6} "
        + " ".join(f"{m:>14}" for m in methods)
        + "  budget use  repeats  missing"
    )
    for lang in ("en", "zh"):
        for budget in sorted({r["budget"] for r in rows}):
            by = {r["method"]: r for r in rows if r["lang"] == lang and r["budget"] == budget}
            if not by:
                continue
            m = by["mnemosyne"]
            print(
                f"{lang:4} {budget:>6} "
                + " ".join(f"{by[x]['kept']:>5}/{by[x]['facts']:<2} {by[x]['share']:>4.0%}" for x in methods)
                + f"  {m['tokens'] / budget:>9.1%}  {m['repeats'] if m['repeats'] is not None else '-':>7}  "
                + ", ".join(m["missing"])
            )
    for method in methods:
        mine = [r for r in rows if r["method"] == method]
        print(
            f"  {method}: {sum(r['kept'] for r in mine)}/{sum(r['facts'] for r in mine)} facts kept overall"
        )


def why(lang: str, budget: int, half: str = "tuning") -> None:
    """Each dropped fact's unit with its value, token cost and density, against the
    lowest density the selection took (what to study before changing the engine)."""
    from mnemosyne.context import coverage

    seen: list[coverage.Coverage] = []
    fill = coverage.Coverage.fill

    def spy(self: coverage.Coverage, room: int, turns: range | None = None) -> int:
        seen.append(self)
        return fill(self, room, turns)

    conv, facts = build(lang, 240, half)
    coverage.Coverage.fill = spy  # type: ignore[method-assign]
    try:
        text = build_context(conv, "chatgpt", budget=budget).text
    finally:
        coverage.Coverage.fill = fill  # type: ignore[method-assign]
    cov = seen[-1]
    density = {k: cov.base[k] / cov.rank_cost(k) for k in range(len(cov.pool)) if cov.base[k] > 0}
    taken = sorted(density[k] for k in cov.chosen if k in density)
    print(f"{lang} {budget}: {len(cov.chosen)} units chosen, lowest density {taken[0] if taken else 0:.2f}")
    for fact in facts:
        if fact.kept(text):
            continue
        for k in [k for k, u in enumerate(cov.pool) if fact.key in u.text][:2]:
            u = cov.pool[k]
            print(
                f"  {fact.key!r}: turn {u.turn} {u.role} {u.kind}, value {cov.base[k]:.0f}, cost {cov.cost(k)},"
                f" density {density.get(k, 0):.2f}, gain left {cov.gain(k):.0f}: {u.text[:80]!r}"
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--half", choices=("tuning", "dev", "fresh", "test", "test2", "all"), default="all")
    parser.add_argument(
        "--why", action="store_true", help="why each dropped fact was dropped (not for the test halves)"
    )
    parser.add_argument(
        "--budgets",
        default=",".join(map(str, BUDGETS)),
        help="comma-separated budgets; the tuning half saturates at 2k, so it is tuned at 1000,1300,1600,2000",
    )
    args = parser.parse_args()
    budgets = tuple(int(b) for b in args.budgets.split(","))
    if args.why:
        if args.half in ("test", "test2"):
            parser.error("a test half is scored, not studied: --why takes --half tuning, dev or fresh")
        for lang in ("en", "zh"):
            for budget in budgets:
                why(lang, budget, "tuning" if args.half == "all" else args.half)
        return 0
    halves = ["test2", "test", "fresh", "dev", "tuning"] if args.half == "all" else [args.half]
    problems: list[str] = []
    for half in halves:
        rows = [r for lang in ("en", "zh") for r in evaluate(lang, 240, budgets, half)]
        sizes = {r["lang"]: r["conversation_tokens"] for r in rows}
        label = {
            "test2": "SECOND TEST half (held out, reported)",
            "test": "TEST half (held out at first; scored once per batch of changes, five times)",
            "fresh": "FRESH half (made after the test half was scored; looked at while changing the engine)",
            "dev": "DEV half (looked at while tuning)",
            "tuning": "TUNING half (the engine was tuned on it)",
        }[half]
        print(
            f"\n{label}; conversation sizes (o200k tokens): "
            + ", ".join(f"{k} {v}" for k, v in sizes.items())
        )
        table(rows)
        problems += check(rows)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
