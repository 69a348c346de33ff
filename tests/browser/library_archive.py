"""An archive of 10,000 conversations for the library's filter and sort tests, imported with `mnemo import` from
two generated files (the sites' conversation JSON, one list a site, as a user imports an export), and what the
library must show for each filter and order, worked out here from the generated data alone (never from the
archive's answers, except the archive id each conversation got).

Every facet is spread so that each filter picks a few hundred conversations out of the 10,000, and the
orders disagree: creation order is i, last activity is shuffled, titles are a permutation of i in mixed case,
lengths vary."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from support.cli import mnemo

COUNT = 10_000
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
WORDS = ["tide", "Crucible", "HARBOUR", "Lantern", "ember"]
PROJECTS = {5: "Alpha", 6: "Beta"}  # i % 16
MODELS = {"chatgpt": "gpt-4o", "claude": "claude-sonnet-4-5"}


@dataclass
class Conv:
    i: int
    site: str
    title: str
    created: str  # ISO 8601 UTC, as the host stores it
    updated: str
    project: str | None
    model: str
    has_code: bool
    has_attachments: bool
    length: int  # characters of message text (and an attachment's extracted text)
    archive_id: str = ""


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _texts(i: int, code: bool) -> tuple[str, str]:
    question = f"question {i} about the {WORDS[i % 5].lower()}"
    answer = f"answer {i}: " + "lorem " * ((i * 31) % 97) + f"zq{i:05d}"
    if code:
        answer += f"\n\n```python\nprint({i})\n```"
    return question, answer


def conversation(i: int) -> Conv:
    site = "claude" if i % 10 == 7 else "chatgpt"
    created = T0 + timedelta(hours=i)
    updated = created + timedelta(hours=(i * 7919) % 5000)
    code = i % 13 == 0
    attached = i % 45 == 4
    question, answer = _texts(i, code)
    extracted = "see the notes" if attached and site == "claude" else ""
    model = "o3" if site == "chatgpt" and i % 50 == 3 else MODELS[site]
    return Conv(
        i=i,
        site=site,
        title=f"{WORDS[i % 5]} {(i * 7919) % 10007:05d}",  # a permutation of i: every title differs
        created=_iso(created),
        updated=_iso(updated),
        project=PROJECTS.get(i % 16),
        model=model,
        has_code=code,
        has_attachments=attached,
        length=len(question) + len(answer) + len(extracted),
    )


def _chatgpt_payload(c: Conv) -> dict:
    question, answer = _texts(c.i, c.has_code)
    created = datetime.fromisoformat(c.created).timestamp()
    updated = datetime.fromisoformat(c.updated).timestamp()
    metadata = {"attachments": [{"id": f"file-{c.i}", "name": "notes.pdf", "mime_type": "application/pdf"}]}

    def node(node_id, parent, children, role, text, extra):
        message = {
            "id": node_id,
            "author": {"role": role},
            "create_time": created,
            "content": {"content_type": "text", "parts": [text]},
            "metadata": extra,
        }
        return {"id": node_id, "parent": parent, "children": children, "message": message}

    payload = {
        "title": c.title,
        "create_time": created,
        "update_time": updated,
        "conversation_id": source_id(c),
        "default_model_slug": c.model,
        "current_node": f"a{c.i}",
        "mapping": {
            "root": {"id": "root", "message": None, "parent": None, "children": [f"u{c.i}"]},
            f"u{c.i}": node(
                f"u{c.i}", "root", [f"a{c.i}"], "user", question, metadata if c.has_attachments else {}
            ),
            f"a{c.i}": node(f"a{c.i}", f"u{c.i}", [], "assistant", answer, {"model_slug": c.model}),
        },
    }
    if c.project:
        gizmo = f"g-p-{c.project.lower()}"
        payload["gizmo_id"] = gizmo
        payload["mnemosyne_project"] = {"id": gizmo, "name": c.project}
    return payload


def _claude_payload(c: Conv) -> dict:
    question, answer = _texts(c.i, c.has_code)
    uuid = source_id(c)
    user = {
        "uuid": f"{uuid}-u",
        "sender": "human",
        "content": [{"type": "text", "text": question}],
        "created_at": c.created,
        "parent_message_uuid": "00000000-0000-4000-8000-000000000000",
    }
    if c.has_attachments:
        user["attachments"] = [{"file_name": "notes.txt", "extracted_content": "see the notes"}]
    assistant = {
        "uuid": f"{uuid}-a",
        "sender": "assistant",
        "content": [{"type": "text", "text": answer}],
        "created_at": c.created,
        "parent_message_uuid": f"{uuid}-u",
    }
    payload = {
        "uuid": uuid,
        "name": c.title,
        "model": c.model,
        "created_at": c.created,
        "updated_at": c.updated,
        "current_leaf_message_uuid": f"{uuid}-a",
        "chat_messages": [user, assistant],
    }
    if c.project:
        payload["project"] = {"uuid": f"project-{c.project.lower()}", "name": c.project}
    return payload


def source_id(c: Conv) -> str:
    """The site's conversation id (the one each payload names)."""
    return (
        f"11111111-0000-4000-8000-{c.i:012d}" if c.site == "claude" else f"00000000-0000-4000-8000-{c.i:012d}"
    )


def build(env: dict[str, str], count: int = COUNT) -> list[Conv]:
    """Import `count` conversations into the archive of `env` with `mnemo import` (a real process, the same
    readers as a save); each Conv gets the archive id `mnemo list` gives for its site conversation."""
    convs = [conversation(i) for i in range(count)]
    folder = Path(env["MNEMOSYNE_HOME"]).parent / "library-import"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for site, payload in (("chatgpt", _chatgpt_payload), ("claude", _claude_payload)):
        path = folder / f"{site}-conversations.json"
        path.write_text(json.dumps([payload(c) for c in convs if c.site == site]), encoding="utf-8")
        files.append(path)
    mnemo(env, "import", "--no-tokens", *files, timeout=900)
    mnemo(env, "search", "zq00001")  # the search index is written before the browser starts
    listed = json.loads(mnemo(env, "list", "--limit", "0", "--json").stdout)
    ids = {(item["site"], item["source_id"]): item["id"] for item in listed}
    for c in convs:
        c.archive_id = ids[(c.site, source_id(c))]
    assert len(listed) == count
    return convs


def title_key(c: Conv) -> str:
    return " ".join(c.title.casefold().split())


# each order as the library's sort menu names it: (key, newest/largest first?); ties by archive id the same way
ORDERS: dict[str, tuple[Callable[[Conv], object], bool]] = {
    "newest": (lambda c: c.updated, True),
    "oldest": (lambda c: c.updated, False),
    "created": (lambda c: c.created, True),
    "title": (title_key, False),
    "length": (lambda c: c.length, True),
}


def expected(convs: list[Conv], order: str, keep: Callable[[Conv], bool] = lambda c: True) -> list[str]:
    """The archive ids the library must show, in order, for a filter (`keep`) and an order."""
    key, reverse = ORDERS[order]
    chosen = [c for c in convs if keep(c)]
    return [c.archive_id for c in sorted(chosen, key=lambda c: (key(c), c.archive_id), reverse=reverse)]
