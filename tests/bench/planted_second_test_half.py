"""The planted-fact benchmark's second test half: held out, scored once per engine.

Written after the first test half had been scored several times (so that it no longer measured data the
engine was not changed on), and scored once, on the engine as it was then. Other settings (a community repair
café; a cat rescue's adoptions) with the kinds of facts of the other halves in other words, and filler no
other half uses: LLaMA-Factory's KTO demo (its answers marked desirable) and the Alpaca and DPO demos' items
after those the other halves took; tests/fixtures/planted_filler, selection rule in its SOURCE.txt.
"""

from __future__ import annotations

from planted_fact import Fact

EN_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "I help run Fixit Fridays, a repair café in St Columba's church hall: people bring broken toasters, "
        "lamps and bikes and volunteers mend them for free. We need something better than a clipboard.",
        (Fact("St Columba's", "user fact"),),
    ),
    (
        "assistant",
        "A repair café mostly needs three things tracked: who is waiting, what was fixed, and which parts were "
        "used. How many repairs do you see in a session?",
        (),
    ),
    (
        "user",
        "About forty. Aurelio Fanshawe-Mbeki is the electrical safety lead and signs off anything with a plug; "
        "Wenonah Strickland keeps the donations and the accounts.",
        (Fact("Aurelio Fanshawe-Mbeki", "role"), Fact("Wenonah Strickland", "role")),
    ),
    (
        "user",
        "Bookings are moving off Eventbrite to a simple sign-up sheet, since its fees were eating a third of the "
        "donations.",
        (Fact("off Eventbrite", "decision"), Fact("a third of the donations", "reason")),
    ),
    (
        "assistant",
        "Then each repair gets a ticket number like RC-2291, and parts go in a parts_ledger table with a "
        "reorder_threshold of 3 for fuses, so the box never runs empty mid-session.",
        (Fact("parts_ledger", "configuration"), Fact("reorder_threshold", "configuration")),
    ),
    (
        "user",
        "The label printer is a Brother QL-820NWB and its driver has to stay at 2.1.4; newer ones print the "
        "labels half size.",
        (Fact("2.1.4", "version"),),
    ),
    ("user", "The public liability insurance certificate must be renewed by 30 September.", ()),
    (
        "user",
        "Donated parts should be sent to the workshop: Unit 4, Halyard Mews, 23 Quarry Lane, Sheffield S11 8RT.",
        (Fact("Halyard Mews", "address"), Fact("S11 8RT", "address")),
    ),
    (
        "assistant",
        "From the invoices you pasted:\n\n| part | supplier | price |\n|---|---|---|\n"
        "| 13 A fuses | Voltrex Supplies | £0.18 each |\n| lead-free solder | Kestrel Electronics | £9.40 a reel |\n"
        "| heat-shrink kit | Ampwise | £4.75 |",
        (Fact("Voltrex Supplies", "table"), Fact("£9.40", "table")),
    ),
    (
        "user",
        "Regular fixers and what they take:\n- toasters and kettles: Dilys Pemberton\n- bikes: Kwame Asante-Boateng\n"
        "- sewing machines: Marisol Echeverría",
        (Fact("Dilys Pemberton", "list"), Fact("Marisol Echeverría", "list")),
    ),
    (
        "assistant",
        "A first go at handing out the queue:\n\n```python\nMAX_QUEUE_PER_FIXER = 5\n\n"
        "def assign_fixer(ticket, fixers):\n    free = [f for f in fixers if f.skill == ticket.kind]\n"
        "    free = [f for f in free if len(f.queue) < MAX_QUEUE_PER_FIXER]\n"
        "    return min(free, key=lambda f: len(f.queue), default=None)\n```",
        (Fact("MAX_QUEUE_PER_FIXER", "code"),),
    ),
    (
        "assistant",
        "I'll write the weekly summary to repairs_weekly.csv and email it to Wenonah every Sunday at 18:00.",
        (Fact("repairs_weekly.csv", "assistant fact"), Fact("18:00", "assistant fact")),
    ),
    (
        "user",
        "Keep the volunteer emails in plain text, half the fixers read them on very old phones.",
        (Fact("very old phones", "preference"),),
    ),
    (
        "user",
        "Wenonah checked the policy: the insurance renewal date is 16 September, not the end of the month.",
        (Fact("16 September", "correction", stale="30 September"),),
    ),
]
EN_LATE = [
    (
        "user",
        "Back to the repair café: assign_fixer gives nothing when the only bike fixer is full, is that right?",
    ),
    ("assistant", "Yes, it returns None then; the ticket should wait on the list until someone frees up."),
    ("user", "Should the sign-up sheet ask whether the item has been opened before?"),
    ("assistant", "Yes, a home repair attempt changes what the fixer checks first."),
]
EN_LAST = (
    "Can you write the poster for next month's session saying what people can bring, and list what we still "
    "have to sort out before the insurance renewal?"
)

ZH_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "你好，我在拱墅区帮忙运营一个小型流浪猫救助站，叫“猫屿”，现在有三十多只猫等领养，想把领养登记和回访管起来。",
        (Fact("猫屿", "user fact"),),
    ),
    ("assistant", "可以，先把猫的档案、领养申请和回访记录分成三张表。现在谁来审核领养？", ()),
    (
        "user",
        "领养审核由志愿者负责人蒋一帆把关，医疗这块归合作宠物医院的顾医生管。",
        (Fact("蒋一帆", "role"), Fact("顾医生", "role")),
    ),
    (
        "user",
        "以后领养不收押金了，改成签协议加三次回访，押金退来退去太费人力，还有人嫌麻烦直接放弃。",
        (Fact("不收押金", "decision"), Fact("太费人力", "reason")),
    ),
    (
        "user",
        "登记用的小程序是云开发做的，基础库版本要固定在 3.4.10，升级后相册上传会报错。",
        (Fact("3.4.10", "version"),),
    ),
    (
        "assistant",
        "每只猫建一条档案，状态字段叫 adopt_status，疫苗提醒设成打完第一针后 21 天。",
        (Fact("adopt_status", "configuration"), Fact("21 天", "configuration")),
    ),
    ("user", "年度防疫检查定在3月20日。", ()),
    (
        "user",
        "救助站地址是拱墅区祥符街道和睦新村12幢底商，快递和捐赠物资都寄这里。",
        (Fact("和睦新村12幢", "address"),),
    ),
    (
        "assistant",
        "按你发的名单整理了一下：\n\n| 猫名 | 年龄 | 状态 |\n|---|---|---|\n| 橘子 | 2岁 | 待领养 |\n"
        "| 可颂 | 8个月 | 治疗中 |\n| 雪球 | 3岁 | 已预约 |",
        (Fact("可颂", "table"), Fact("8个月", "table")),
    ),
    (
        "user",
        "常用物资：\n- 猫粮：网易严选\n- 猫砂：pidan 豆腐砂\n- 驱虫：大宠爱",
        (Fact("pidan", "list"), Fact("大宠爱", "list")),
    ),
    (
        "assistant",
        "回访提醒可以这样算：\n\n```python\nfrom datetime import timedelta\n\n"
        "def schedule_followups(adopt_date, followup_days=(7, 30, 90)):\n"
        "    return [adopt_date + timedelta(days=d) for d in followup_days]\n```",
        (Fact("followup_days", "code"),),
    ),
    ("user", "每周六下午两点到五点开放参观，其他时间要预约。", (Fact("两点到五点", "user fact"),)),
    ("user", "给领养人的消息别用太多表情符号，有些阿姨看不清。", (Fact("看不清", "preference"),)),
    (
        "user",
        "街道刚来电话，防疫检查提前到3月9日了。",
        (Fact("3月9日", "correction", stale="3月20日"),),
    ),
]
ZH_LATE = [
    ("user", "回到救助站的系统：schedule_followups 算出来的日子要是碰上周末，要不要顺延？"),
    ("assistant", "顺延到下周一就行，回访电话周末很少有人接。"),
    ("user", "领养申请表要不要加一栏问家里有没有别的宠物？"),
    ("assistant", "要加，审核时最先看的就是这个。"),
]
ZH_LAST = "帮我写一条发给新领养人的欢迎消息，说清楚回访怎么安排、有问题找谁，再列一下防疫检查前还要准备什么。"

HALF = {
    "en": (EN_EARLY, EN_LATE, EN_LAST, "Repair café sign-ups and parts"),
    "zh": (ZH_EARLY, ZH_LATE, ZH_LAST, "猫屿领养登记"),
}

# One file per kind of filler, the second spread through the first.
FILES = {
    "en": ("llamafactory_kto_en_demo_second.json", "llamafactory_alpaca_en_demo_second.json"),
    "zh": ("llamafactory_dpo_zh_demo_second.json", "llamafactory_alpaca_zh_demo_second.json"),
}
