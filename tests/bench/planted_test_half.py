"""The planted-fact benchmark's test half: templates and filler that tuning never saw.

Other kinds of facts than the tuning and dev halves (a person's role, a decision with its reason, a
version number, a postal address, configuration values, a deadline that is then moved) in other settings
(a community radio station moving its stream; a guesthouse's booking system), and other kinds of filler:
real user requests of the kinds code help, travel plans, long lists and tables, research and reports,
with a strong model's answers (LLaMA-Factory's DPO demos, English and Chinese, and its Chinese Alpaca
demo; tests/fixtures/planted_filler, selection rule in its SOURCE.txt). They share no text with the
other halves (tests/unit/test_planted_test_half.py).
"""

from __future__ import annotations

from planted_fact import Fact

EN_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "I'm the volunteer tech person at Marsh Lane Radio, a community station with about forty presenters. "
        "We're moving the stream and the music log off a dying PC under the studio desk.",
        (Fact("Marsh Lane Radio", "user fact"),),
    ),
    (
        "assistant",
        "A move like that goes smoothly if the new machine runs next to the old one for a while. What does "
        "the current setup do, and who has to approve changes?",
        (),
    ),
    (
        "user",
        "Anything that touches the transmitter link needs sign-off from our station manager, Ifeoma "
        "Adeyinka-Ross. Callum Brierley handles the Ofcom paperwork.",
        (Fact("Ifeoma Adeyinka-Ross", "role"), Fact("Callum Brierley", "role")),
    ),
    (
        "user",
        "We've decided to keep streaming through our own Icecast server rather than pay for a hosted service, "
        "because the PRS returns need the raw listener logs and the hosted plans only give monthly totals.",
        (Fact("Icecast", "decision"), Fact("raw listener logs", "reason")),
    ),
    (
        "user",
        "The playout machine runs Rivendell 3.6.7 and has to stay on it: the cart-chain plugin the drive-time "
        "show relies on breaks on anything newer.",
        (Fact("Rivendell 3.6.7", "version"),),
    ),
    (
        "assistant",
        "For the stream I'd use the mount /live-128 at 128 kbps, keep the burst size at its default and cap "
        "listeners with <clients>250</clients> until we know what the uplink can carry.",
        (Fact("/live-128", "configuration"), Fact("<clients>250</clients>", "configuration")),
    ),
    (
        "user",
        "The new server goes in the rack at the studio: Unit 9, Ropewalk Yard, 14 Tanner Street, Bridport "
        "DT6 3QA. Deliveries must come there, not to the PO box.",
        (Fact("Ropewalk Yard", "address"), Fact("DT6 3QA", "address")),
    ),
    ("user", "The licence renewal has to reach Ofcom by 14 November.", ()),
    (
        "assistant",
        "Here's how the two quotes you pasted compare:\n\n| supplier | what you get | monthly |\n|---|---|---|\n"
        "| Tamar Hosting | 4 vCPU, 8 GB RAM, 1 Gbit | £23.50 |\n| Wessex Colo | 2U rack slot, your own box | "
        "£41.00 |",
        (Fact("Tamar Hosting", "table"), Fact("£23.50", "table")),
    ),
    (
        "user",
        "Presenters who need logins on the new box first:\n- Saturday folk hour: Rhiannon Teague\n"
        "- Drive time: Oskar Lindqvist\n- Late jazz: Bernadette Achebe",
        (Fact("Rhiannon Teague", "list"), Fact("Oskar Lindqvist", "list")),
    ),
    (
        "assistant",
        "A first go at exporting the music log for the returns:\n\n```python\nPLAYLOG_KEEP_DAYS = 400\n\n"
        "def export_playlog(rows, since):\n    kept = [r for r in rows if r.played_at >= since]\n"
        "    return sorted(kept, key=lambda r: r.played_at)\n```",
        (Fact("PLAYLOG_KEEP_DAYS", "code"),),
    ),
    (
        "assistant",
        "I'll call the nightly backup job playlog-offsite and run it at 02:40, after the overnight sustainer "
        "playlist has started.",
        (Fact("playlog-offsite", "assistant fact"), Fact("02:40", "assistant fact")),
    ),
    (
        "user",
        "Please give me shell commands rather than GUI steps, I do all of this over SSH from the library.",
        (Fact("from the library", "preference"),),
    ),
    (
        "user",
        "Correction from Callum: Ofcom wants the renewal by 7 November, a week earlier than we thought.",
        (Fact("7 November", "correction", stale="14 November"),),
    ),
]
EN_LATE = [
    (
        "user",
        "Back to the station server: export_playlog is slow on a year of data, should it page through the rows?",
    ),
    ("assistant", "Yes: read the rows in date order in chunks and write each chunk out as you go."),
    ("user", "Should the backup also copy the jingles folder?"),
    ("assistant", "Yes, it changes rarely, so an incremental copy costs almost nothing."),
]
EN_LAST = (
    "Can you draft the email to the presenters about the move weekend, saying what changes for them, and list what "
    "we still need before the licence renewal?"
)

ZH_EARLY: list[tuple[str, str, tuple[Fact, ...]]] = [
    (
        "user",
        "你好，我和朋友在大理古城外合开了一家民宿，叫“栖云小筑”，一共九间房，想做一个管预订和打扫排班的小系统。",
        (Fact("栖云小筑", "user fact"),),
    ),
    ("assistant", "可以，九间房的规模用一个小程序加一张数据库表就够了。现在订单从哪些渠道来？", ()),
    (
        "user",
        "地址是大理市银桥镇磻溪村三组47号，客人经常找不到，导航要填这个。",
        (Fact("磻溪村三组47号", "address"),),
    ),
    (
        "user",
        "前台和订房都是阿朵在管，携程的商家账号也在她手上；打扫归杨师傅负责。",
        (Fact("阿朵", "role"), Fact("杨师傅", "role")),
    ),
    (
        "user",
        "我们商量好了，不接入美团的房态同步，只用携程和自己的小程序，因为美团那边改价要隔天才生效，上次差点超卖。",
        (Fact("不接入美团", "decision"), Fact("隔天才生效", "reason")),
    ),
    (
        "user",
        "门锁网关的固件是 3.8.17，厂家说低于这个版本不支持远程发密码。",
        (Fact("3.8.17", "version"),),
    ),
    (
        "assistant",
        "那门锁就用临时密码：每个订单生成一个六位密码，入住当天下午两点生效，配置项 lock_code_ttl 我先设成 46 小时。",
        (Fact("lock_code_ttl", "configuration"), Fact("46 小时", "configuration")),
    ),
    ("user", "消防验收要在11月30日之前办完，不然备案下不来。", ()),
    (
        "user",
        "打扫先这样排：\n- 一楼四间：杨师傅\n- 二楼五间：和丽琼\n- 床单被套：送喜洲的洗涤厂",
        (Fact("和丽琼", "list"), Fact("喜洲", "list")),
    ),
    (
        "assistant",
        "按你发的价目整理了一下：\n\n| 房型 | 平日 | 周末 |\n|---|---|---|\n| 洱海景观大床房 | 468元 | 588元 |\n"
        "| 庭院双床房 | 328元 | 398元 |\n| 亲子套房 | 688元 | 828元 |",
        (Fact("庭院双床房", "table"), Fact("468元", "table")),
    ),
    (
        "assistant",
        "打扫任务可以这样生成：\n\n```python\ndef cleaning_rota(checkouts, staff, rooms_per_person=5):\n"
        "    rota = {name: [] for name in staff}\n    for i, room in enumerate(sorted(checkouts)):\n"
        "        rota[staff[i // rooms_per_person % len(staff)]].append(room)\n    return rota\n```",
        (Fact("rooms_per_person", "code"),),
    ),
    ("user", "客房热水器统一调到52度，太烫了有客人投诉过。", (Fact("52度", "configuration"),)),
    ("user", "早餐只做到十点，过了点的客人送一份鲜花饼。", (Fact("鲜花饼", "user fact"),)),
    (
        "user",
        "消防那边来通知了，验收提前到11月18日之前办完。",
        (Fact("11月18日", "correction", stale="11月30日"),),
    ),
]
ZH_LATE = [
    ("user", "回到民宿的系统：cleaning_rota 遇到连住的客人，要不要跳过那间房？"),
    ("assistant", "要跳过，只给当天退房的房间排打扫，连住的按客人需要另外安排。"),
    ("user", "订单表要不要记客人预计到店的时间？"),
    ("assistant", "建议记，可以为空，前台据此安排接待。"),
]
ZH_LAST = (
    "帮我写一条发给下周入住客人的提醒，说清楚怎么找到我们、怎么拿到门锁密码，再告诉我消防验收还差哪些材料。"
)

HALF = {
    "en": (EN_EARLY, EN_LATE, EN_LAST, "Community radio server move"),
    "zh": (ZH_EARLY, ZH_LATE, ZH_LAST, "民宿预订和打扫系统"),
}

# One file per language (Chinese: the DPO demo's requests and the Alpaca demo's, interleaved).
FILES = {
    "en": ("llamafactory_dpo_en_demo_selected.json",),
    "zh": ("llamafactory_dpo_zh_demo_selected.json", "llamafactory_alpaca_zh_demo_selected.json"),
}
