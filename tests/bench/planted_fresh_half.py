"""The planted-fact benchmark's fresh half: a diagnosis set made after the test half was scored.

Templates written anew (a school's residential trip; a family's flat renovation) with the kinds of facts of
the test half in other words (roles, a decision with its reason, a version, an address, configuration,
a list, a table, code, a preference, a deadline moved with a change announced in new words), and filler
that no other half uses: LLaMA-Factory's Alpaca demos (short instructions) and the DPO demos' items the
test half left out (long requests, pasted passages, exercises); tests/fixtures/planted_filler, selection
rule in its SOURCE.txt. It is looked at while changing the engine: its figures are not held out.
"""

from __future__ import annotations

from planted_fact import Fact

EN_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "I coordinate the Year 6 residential trip at Hollybank Primary, 52 children and six staff, three nights in April. "
        "I want one place that keeps the bookings, the medical forms and the payments straight.",
        (Fact("Hollybank Primary", "user fact"),),
    ),
    (
        "assistant",
        "A shared spreadsheet with a form in front of it would do, or a tiny app if you want reminders. Who signs things off?",
        (),
    ),
    (
        "user",
        "Our head teacher, Marguerite Osei-Bonsu, approves every letter that goes home, and the bursar, Declan Farrow, "
        "reconciles the payments each Friday.",
        (Fact("Marguerite Osei-Bonsu", "role"), Fact("Declan Farrow", "role")),
    ),
    (
        "user",
        "We're going with Kingswood Ridge outdoor centre rather than the youth hostel because Kingswood does its own "
        "first-aid cover overnight and the hostel wanted two of our staff awake in shifts.",
        (Fact("Kingswood Ridge", "decision"), Fact("first-aid cover overnight", "reason")),
    ),
    (
        "user",
        "The coach leaves at 08:15 from the school gate; the deposit of £60 per child is due by 3 February.",
        (Fact("08:15", "user fact"),),
    ),
    (
        "assistant",
        "I'll store each child's record with a consent_status field and send reminders from a job called "
        "trip-nudge every Monday at 07:30 until the form is back.",
        (Fact("consent_status", "assistant fact"), Fact("trip-nudge", "assistant fact")),
    ),
    (
        "user",
        "The parents' payment portal is ParentPay and the school's MIS is Arbor, version 24.11.2; the export "
        "only works from that version up.",
        (Fact("24.11.2", "version"),),
    ),
    (
        "assistant",
        "Dorm plan from the centre's floor sheet:\n\n| dorm | beds | staff nearby |\n|---|---|---|\n"
        "| Oak | 10 | Mr Haldane |\n| Rowan | 12 | Ms Pritchard |\n| Hazel | 8 | Mrs Quaye |",
        (Fact("Rowan", "table"), Fact("Ms Pritchard", "table")),
    ),
    (
        "user",
        "Dietary needs so far:\n- nut allergy: Zainab and Ellis\n- vegetarian: Priya, Tom H, Maisie\n- coeliac: Ruairi",
        (Fact("Ruairi", "list"), Fact("Zainab and Ellis", "list")),
    ),
    (
        "assistant",
        "Here's a helper for the coach seating:\n\n```python\ndef seat_plan(children, seats_per_row=4):\n"
        "    rows = [children[i:i + seats_per_row] for i in range(0, len(children), seats_per_row)]\n    return {n + 1: row for n, row in enumerate(rows)}\n```",
        (Fact("seats_per_row", "code"),),
    ),
    (
        "user",
        "Deliveries of the kit bags go to the school office: Hollybank Primary, 2 Fennel Close, Stockport SK4 2BN.",
        (Fact("SK4 2BN", "address"),),
    ),
    (
        "user",
        "Please keep anything for parents under 150 words, they don't read long letters.",
        (Fact("150 words", "preference"),),
    ),
    (
        "user",
        "Update from the bursar: the deposit deadline is pushed back to 17 February because ParentPay was down for a week.",
        (Fact("17 February", "correction", stale="3 February"),),
    ),
]
EN_LATE = [
    (
        "user",
        "Back to the trip: seat_plan puts the two nut allergy children in different rows, can it keep friends together?",
    ),
    ("assistant", "Yes: pass pairs as single entries and split them only when a row would overflow."),
    ("user", "Should the consent form ask about travel sickness too?"),
    ("assistant", "Yes, it decides who sits at the front of the coach."),
]
EN_LAST = "Can you draft the letter to parents about the deposit and the kit list, and tell me what is still missing before we can confirm numbers with the centre?"
ZH_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "你好，我们家准备装修杭州的一套老房子，九十平米，预算三十万，想用一个表格把报价、工期和付款都管起来。",
        (Fact("九十平米", "user fact"),),
    ),
    (
        "assistant",
        "可以，先把工程拆成水电、泥瓦、木工、油漆几个阶段，每个阶段记报价和付款节点。谁来拍板？",
        (),
    ),
    (
        "user",
        "设计归我爱人林晓岚管，施工队的负责人是周国栋师傅，合同上签的是他。",
        (Fact("林晓岚", "role"), Fact("周国栋", "role")),
    ),
    (
        "user",
        "我们决定不做地暖，改用空调加暖气片，因为楼板太薄，地暖要垫高五厘米，门都关不上了。",
        (Fact("不做地暖", "decision"), Fact("楼板太薄", "reason")),
    ),
    (
        "user",
        "房子地址是西湖区文三路翠苑二区18幢302室，送货一定写清楚幢号。",
        (Fact("翠苑二区18幢302室", "address"),),
    ),
    (
        "assistant",
        "付款我建议按3-3-3-1分四次，最后一成等验收满三个月再付，表格里用 pay_stage 这一列记录。",
        (Fact("pay_stage", "assistant fact"), Fact("3-3-3-1", "assistant fact")),
    ),
    (
        "user",
        "智能开关用的是涂鸦的网关，固件版本 2.4.9，装修队说别升级，升级后场景联动会丢。",
        (Fact("2.4.9", "version"),),
    ),
    (
        "assistant",
        "按你发的报价整理：\n\n| 项目 | 单价 | 数量 |\n|---|---|---|\n| 木地板 | 268元/平 | 62平 |\n| 瓷砖 | 145元/平 | 40平 |\n| 乳胶漆 | 980元/桶 | 6桶 |",
        (Fact("268元/平", "table"), Fact("乳胶漆", "table")),
    ),
    (
        "user",
        "要买的主材：\n- 马桶：恒洁\n- 橱柜：欧派\n- 门：TATA木门",
        (Fact("恒洁", "list"), Fact("TATA木门", "list")),
    ),
    (
        "assistant",
        "工期可以这样算：\n\n```python\ndef schedule(stages, start, buffer_days=3):\n    day = start\n    plan = []\n    for name, days in stages:\n        plan.append((name, day))\n        day += days + buffer_days\n    return plan\n```",
        (Fact("buffer_days", "code"),),
    ),
    ("user", "油漆一定要用零甲醛的，孩子才两岁。", (Fact("零甲醛", "preference"),)),
    (
        "user",
        "物业规定施工只能在早上八点到晚上六点，周末不许打电钻。",
        (Fact("周末不许打电钻", "user fact"),),
    ),
    ("user", "水电验收原定12月5日。", ()),
    (
        "user",
        "周师傅刚打电话，水电验收改到12月12日了，开槽比预计慢。",
        (Fact("12月12日", "correction", stale="12月5日"),),
    ),
]
ZH_LATE = [
    ("user", "回到装修的表格：schedule 遇到下雨天要不要顺延？"),
    ("assistant", "油漆和防水遇雨要顺延，其他室内工序照常。"),
    ("user", "付款表要不要记每次付款的收据照片？"),
    ("assistant", "建议记，链接放在同一行就行。"),
]
ZH_LAST = "帮我写一条发给周师傅的消息，确认接下来两周的安排，再列一下开工前还缺哪些东西。"
HALF = {
    "en": (EN_EARLY, EN_LATE, EN_LAST, "Year 6 residential trip"),
    "zh": (ZH_EARLY, ZH_LATE, ZH_LAST, "老房装修预算表"),
}

# One file per kind of filler, the second spread through the first.
FILES = {
    "en": ("llamafactory_dpo_en_demo_fresh.json", "llamafactory_alpaca_en_demo_fresh.json"),
    "zh": ("llamafactory_dpo_zh_demo_fresh.json", "llamafactory_alpaca_zh_demo_fresh.json"),
}
