"""Does the context keep what the conversation established? A benchmark.

Long conversations are built from real fixture dialogues (English: glaive tool-call
demo + axolotl; Chinese: glaive tool-call zh demo) with facts planted early, the
way people state them: things the user says about themselves and their
constraints, decisions settled with the assistant, names and numbers, code
identifiers defined early and used late. The engine never sees the fact keys.

For each budget the share of planted facts whose key appears in the context is
measured for Mnemosyne and two baselines: keep-the-last-messages-that-fit, and
drop-oldest-first truncation. Every context is checked to be within budget and
to contain the last user message.

Run: python tests/bench/context_quality.py
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from mnemosyne import tokens
from mnemosyne.context import build_context
from mnemosyne.context.turns import render_message
from mnemosyne.model import Conversation, Message, Provenance, Source, TextPart

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "interop_sharegpt"
ENCODING = "o200k_base"  # the "chatgpt" target counts exactly with it, so all three methods share one ruler


@dataclass(frozen=True)
class Fact:
    key: str  # must appear verbatim in the context to count as kept
    kind: str


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
]
ZH_LATE = [
    ("user", "回到奶茶店的小程序：calcMemberPoints 在周末双倍积分的时候要怎么改？"),
    ("assistant", "可以在调用时传入一个倍数参数，周末传2就行。"),
    ("user", "orders_v2 表要不要再加一个备注字段，记录少冰之类的要求？"),
    ("assistant", "建议加一个可为空的备注字段。"),
]
ZH_LAST = "帮我写一条通知发给供应商，说下周二的送货改到周三，另外这笔货款要怎么记到账上？"


def _filler(lang: str) -> list[tuple[str, str]]:
    """(user, assistant) pairs from real dialogues, in file order."""
    names = (
        ["llamafactory_glaive_toolcall_en_demo.json", "axolotl_conversation.json"]
        if lang == "en"
        else ["llamafactory_glaive_toolcall_zh_demo.json"]
    )
    pairs: list[tuple[str, str]] = []
    for name in names:
        data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        for item in data if isinstance(data, list) else [data]:
            turns = [(t["from"], t["value"]) for t in item["conversations"] if t["from"] in ("human", "gpt")]
            for (r1, a), (r2, b) in zip(turns, turns[1:]):
                if r1 == "human" and r2 == "gpt" and a.strip() and b.strip():
                    pairs.append((a, b))
    return pairs


def build(lang: str, filler_pairs: int) -> tuple[Conversation, list[Fact]]:
    """A conversation: planted set-up spread over the first fifth, filler, late callbacks, filler, last question."""
    early, late, last = (EN_EARLY, EN_LATE, EN_LAST) if lang == "en" else (ZH_EARLY, ZH_LATE, ZH_LAST)
    filler = _filler(lang)[:filler_pairs]
    spread = max(1, filler_pairs // 5 // len(early))
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
        id=f"bench-{lang}",
        title="Bakery invoicing tool" if lang == "en" else "奶茶店小程序",
        source=Source(site="chatgpt"),
        messages=messages,
        active_leaf=parent,
        provenance=Provenance(method="manual", reader="bench", reader_version="0", raw_sha256="0" * 64),
    )
    return conv, facts


def _lines(conv: Conversation) -> list[str]:
    return [f"{m.role}: {render_message(m)}" for m in conv.messages if render_message(m)]


def keep_last_messages(conv: Conversation, budget: int) -> str:
    """Baseline 1: the most recent whole messages that fit."""
    kept: list[str] = []
    used = 0
    for line in reversed(_lines(conv)):
        cost = tokens.count(line, ENCODING) + 2
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return "\n\n".join(reversed(kept))


def drop_oldest(conv: Conversation, budget: int) -> str:
    """Baseline 2: the whole transcript, cut from the start to the last `budget` tokens."""
    enc = tokens.encoding(ENCODING)
    ids = enc.encode_ordinary("\n\n".join(_lines(conv)))
    text = enc.decode(ids[-budget:])
    while tokens.count(text, ENCODING) > budget:  # a cut inside a character can re-tokenise longer
        text = text[1:]
    return text


def evaluate(lang: str, filler_pairs: int, budgets: tuple[int, ...]) -> list[dict]:
    conv, facts = build(lang, filler_pairs)
    last = conv.messages[-1].parts[0].text
    total = tokens.count("\n\n".join(_lines(conv)), ENCODING)
    rows = []
    for budget in budgets:
        contexts = {
            "mnemosyne": build_context(conv, "chatgpt", budget=budget).text,
            "last-messages": keep_last_messages(conv, budget),
            "drop-oldest": drop_oldest(conv, budget),
        }
        for method, text in contexts.items():
            used = tokens.count(text, ENCODING)
            kept = [f.key for f in facts if f.key in text]
            rows.append(
                {
                    "lang": lang,
                    "budget": budget,
                    "method": method,
                    "tokens": used,
                    "conversation_tokens": total,
                    "kept": len(kept),
                    "facts": len(facts),
                    "share": len(kept) / len(facts),
                    "missing": [f.key for f in facts if f.key not in text],
                    "within_budget": used <= budget,
                    "last_user_present": last in text,
                }
            )
    return rows


def check(rows: list[dict]) -> list[str]:
    """Broken guarantees: over budget, or the last user message missing."""
    problems = []
    for r in rows:
        if not r["within_budget"]:
            problems.append(f"{r['method']} {r['lang']} {r['budget']}: {r['tokens']} tokens over budget")
        if not r["last_user_present"]:
            problems.append(f"{r['method']} {r['lang']} {r['budget']}: last user message missing")
    return problems


def main() -> int:
    rows = evaluate("en", 240, (2000, 4000, 8000)) + evaluate("zh", 240, (2000, 4000, 8000))
    print(f"{'lang':4} {'budget':>6} {'method':14} {'tokens':>6} {'kept':>9}  missing")
    for r in rows:
        print(
            f"{r['lang']:4} {r['budget']:>6} {r['method']:14} {r['tokens']:>6} "
            f"{r['kept']:>3}/{r['facts']:<2} {r['share']:4.0%}  {', '.join(r['missing'])}"
        )
    sizes = {r["lang"]: r["conversation_tokens"] for r in rows}
    print("conversation sizes (o200k tokens): " + ", ".join(f"{k} {v}" for k, v in sizes.items()))
    problems = check(rows)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
