"""Claude: the site's chat_conversations/{uuid}?tree=True&rendering_mode=messages
JSON (one object, the whole tree) and the official export's conversations.json
(an array; projects.json from the same zip adds project instructions)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..ids import conversation_id
from ..model import CaptureMethod, Conversation, Instruction, Message, Role, ToolResultPart
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, parse_time
from .claude_parts import PartContext, message_parts, resolve_artifact_edits

NAME = "claude"
DESCRIPTION = "Claude chat_conversations tree JSON (site API) and official export (conversations.json, zip)"

ROOT_PARENT = "00000000-0000-4000-8000-000000000000"  # claude.ai's parent of the first message
CHAT_URL = "https://claude.ai/chat/{}"
_ROLES: dict[str, Role] = {"human": "user", "user": "user", "assistant": "assistant", "system": "system"}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _is_conversation(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("chat_messages"), list) and "uuid" in item


def _looks_like_conversation(item: Any) -> bool:
    """A Claude conversation, even one whose chat_messages is corrupt (reported, not mistaken)."""
    return isinstance(item, dict) and "chat_messages" in item and "uuid" in item


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, list):
        return any(_looks_like_conversation(item) for item in data[:10])
    return _looks_like_conversation(data)


def _not_a_conversation(item: Any) -> str:
    if isinstance(item, dict) and "chat_messages" in item:
        kind = type(item["chat_messages"]).__name__
        return f"chat_messages is corrupt (a {kind}, not a list of messages)"
    return "not a Claude conversation (no uuid/chat_messages)"


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    projects = project_index(raw.members.get("projects.json"))
    memories = raw.members.get("memories.json")
    if isinstance(raw.data, dict):
        if not _is_conversation(raw.data):
            raise InputError(f"{raw.name}: {_not_a_conversation(raw.data)}")
        yield convert(raw.data, raw.raw, ctx, method="site_api", projects=projects, memories=memories)
        return
    if not isinstance(raw.data, list):
        raise InputError(f"{raw.name}: not a Claude export (expected a list of conversations)")
    for i, item in enumerate(raw.data):
        label = f"{raw.name}[{raw.first_index + i}]"
        try:
            if not _is_conversation(item):
                raise InputError(f"{label}: {_not_a_conversation(item)}")
            yield convert(
                item,
                raw.item_bytes(i, item),
                ctx,
                method="official_export",
                projects=projects,
                memories=memories,
                identity=raw.item_identity(i, item, bool(str(item["uuid"]))),
            )
        except InputError as exc:
            yield ReadFailure(label=label, error=exc)
        except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
            yield ReadFailure(label=label, error=InputError(f"{label}: {type(exc).__name__}: {exc}"))


def convert(
    data: dict[str, Any],
    raw: bytes,
    ctx: ReadContext,
    *,
    method: CaptureMethod,
    projects: dict[str, dict[str, Any]] | None = None,
    memories: Any = None,
    identity: bytes | None = None,
) -> Conversation:
    """One Claude conversation object -> Mnemosyne conversation."""
    uuid = str(data["uuid"])
    warnings = Warnings()
    part_ctx = PartContext(warnings=warnings)
    listed = data["chat_messages"]
    if not isinstance(listed, list):
        raise InputError(f"conversation {uuid}: chat_messages is not a list")
    records = [m for m in listed if isinstance(m, dict)]
    if len(records) < len(listed):
        warnings.add("SKIPPED_MESSAGES", "chat_messages entries that are not objects were skipped")
        if not records:  # a changed site shape must not be reported as a successful empty save
            raise InputError(f"conversation {uuid}: none of its {len(listed)} chat_messages is an object")
    messages, list_leaf = build_tree(records, part_ctx, warnings)
    resolve_artifact_edits(messages, part_ctx)
    ids = {m.id for m in messages}
    leaf = data.get("current_leaf_message_uuid")
    project_uuid, project = conversation_project(data, projects or {})
    return build(
        site="claude",
        source_id=uuid,
        reader="claude.api" if method == "site_api" else "claude.export",
        method=method,
        raw=raw,
        ctx=ctx,
        messages=messages,
        title=_text(data.get("name")),
        url=CHAT_URL.format(uuid),
        created_at=parse_time(data.get("created_at")),
        updated_at=parse_time(data.get("updated_at")),
        default_model=_text(data.get("model")),
        active_leaf=leaf if leaf in ids else list_leaf,
        instructions=instructions(data, project) + memory_instructions(memories, project_uuid),
        project=(project or {}).get("name") or project_uuid,
        warnings=warnings,
        identity=identity,
    )


# ---------------------------------------------------------------- texts ahead


def texts_ahead(data: Any) -> tuple[str, list[str]] | None:
    """The id of a site conversation (the extension's save) and a guess of the texts its context splits,
    made from the JSON before it is read (readers.texts_ahead): the text blocks of each human or assistant
    message on the path to the current leaf (the list's order without parent links), oldest first."""
    if not _is_conversation(data):
        return None
    records = [r for r in data["chat_messages"] if isinstance(r, dict)]
    by_id = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    node = by_id.get(data.get("current_leaf_message_uuid"))
    if node is not None and all("parent_message_uuid" in r for r in records):
        path = []
        for _ in range(len(records)):  # (a cycle of parents ends the walk)
            if node is None:
                break
            path.append(node)
            parent = node.get("parent_message_uuid")
            node = by_id.get(parent) if isinstance(parent, str) else None
        path.reverse()
    else:
        path = records
    texts = []
    for record in path:
        if record.get("sender") not in ("human", "assistant"):
            continue
        content = record.get("content")
        if isinstance(content, list) and content:
            pieces = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        else:
            pieces = [content if isinstance(content, str) and content else record.get("text")]
        text = "\n\n".join(p.strip("\n") for p in pieces if isinstance(p, str) and p.strip()).strip()
        if text:
            texts.append(text)
    return conversation_id("claude", str(data["uuid"])), texts


# ---------------------------------------------------------------- tree


def build_tree(
    records: list[dict[str, Any]], part_ctx: PartContext, warnings: Warnings
) -> tuple[list[Message], str | None]:
    """Messages parents-first, and the fallback active leaf (the last message of the list).

    Parent links come from parent_message_uuid; older exports have none, so the
    messages are chained in `index` order, or list order.
    """
    unique: list[dict[str, Any]] = []
    seen: set[str] = set()
    kept: dict[str, dict[str, Any]] = {}
    for n, record in enumerate(records):
        uuid = str(record.get("uuid") or "")
        if uuid in kept and kept[uuid] == record:
            warnings.add("DUPLICATE_MESSAGE", "a message listed twice was read once")
            continue
        if not uuid or uuid in seen:  # keep its content under an id of its own
            warnings.add(
                "MISSING_MESSAGE_ID", "a message without a uuid (or a reused one) got an id of its own"
            )
            uuid = f"{uuid or 'message'}-{n}"
            record = dict(record, uuid=uuid)
        seen.add(uuid)
        kept[uuid] = record
        unique.append(record)
    if unique and all("parent_message_uuid" in r for r in unique):
        parents = {str(r["uuid"]): _parent(r, seen, warnings) for r in unique}
        ordered = parents_first(unique, parents, warnings)
        list_leaf = str(unique[-1]["uuid"]) if unique else None
    else:
        ordered = linear_order(unique, warnings)
        parents, previous = {}, None
        for record in ordered:
            parents[str(record["uuid"])] = previous
            previous = str(record["uuid"])
        list_leaf = previous
    messages = [to_message(r, parents[str(r["uuid"])], part_ctx, warnings) for r in ordered]
    return messages, list_leaf


def _parent(record: dict[str, Any], known: set[str], warnings: Warnings) -> str | None:
    parent = record.get("parent_message_uuid")
    if not parent or parent == ROOT_PARENT:
        return None
    if str(parent) not in known:
        warnings.add("DANGLING_PARENT", "a message's parent is not in the conversation; it starts a new root")
        return None
    return str(parent)


def parents_first(
    records: list[dict[str, Any]], parents: dict[str, str | None], warnings: Warnings
) -> list[dict[str, Any]]:
    """Depth-first from the roots, siblings in list order; a cycle is cut at a root."""
    kids: dict[str | None, list[dict[str, Any]]] = {}
    for record in records:
        kids.setdefault(parents[str(record["uuid"])], []).append(record)
    ordered: list[dict[str, Any]] = []
    placed: set[str] = set()
    roots = list(kids.get(None, []))
    while len(placed) < len(records):
        if not roots:  # everything left hangs in a cycle: cut it at the first unplaced message
            loose = next(r for r in records if str(r["uuid"]) not in placed)
            parents[str(loose["uuid"])] = None
            warnings.add("PARENT_CYCLE", "messages formed a parent cycle; it was cut")
            roots = [loose]
        stack = list(reversed(roots))
        roots = []
        while stack:
            record = stack.pop()
            uuid = str(record["uuid"])
            if uuid in placed:
                continue
            placed.add(uuid)
            ordered.append(record)
            stack.extend(reversed(kids.get(uuid, [])))
    return ordered


def linear_order(records: list[dict[str, Any]], warnings: Warnings) -> list[dict[str, Any]]:
    if records and all(isinstance(r.get("index"), int) for r in records):
        return sorted(records, key=lambda r: r["index"])
    # Without parent links or index, list order is all there is. Some older exports
    # list messages out of time order (a stored tree flattened); only then, and
    # only for such a linear chat, a stable sort by created_at restores the turns.
    times = [t for t in (parse_time(r.get("created_at")) for r in records) if t is not None]
    if len(times) == len(records) and any(b < a for a, b in zip(times, times[1:])):
        warnings.add("ORDER_FROM_TIMESTAMPS", "messages were listed out of time order; ordered by created_at")
        return [records[i] for i in sorted(range(len(records)), key=lambda i: (times[i], i))]
    return records


def to_message(
    record: dict[str, Any], parent: str | None, part_ctx: PartContext, warnings: Warnings
) -> Message:
    sender = str(record.get("sender") or "")
    role = _ROLES.get(sender)
    if role is None:
        warnings.add("UNKNOWN_SENDER", f"Claude sender {sender!r} read as user")
        role = "user"
    parts = message_parts(record, role == "assistant", part_ctx)
    if role == "user" and parts and all(isinstance(p, ToolResultPart) for p in parts):
        role = "tool"  # a human turn that only carries tool results (API-style transcripts)
    return Message(
        id=str(record["uuid"]),
        parent=parent,
        role=role,
        created_at=parse_time(record.get("created_at")),
        updated_at=parse_time(record.get("updated_at")),
        status=record.get("stop_reason") if isinstance(record.get("stop_reason"), str) else None,
        parts=parts,
    )


# ---------------------------------------------------------------- projects


def project_index(projects: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(projects, list):
        return {}
    return {str(p["uuid"]): p for p in projects if isinstance(p, dict) and p.get("uuid")}


def conversation_project(
    data: dict[str, Any], projects: dict[str, dict[str, Any]]
) -> tuple[str | None, dict[str, Any] | None]:
    """The conversation's project uuid and its projects.json entry (or the inline project object)."""
    inline = data.get("project") if isinstance(data.get("project"), dict) else None
    uuid = data.get("project_uuid") or (inline or {}).get("uuid")
    if not uuid:
        return None, None
    return str(uuid), projects.get(str(uuid)) or inline


def instructions(data: dict[str, Any], project: dict[str, Any] | None) -> list[Instruction]:
    found: list[Instruction] = []
    for key in ("system_prompt", "prompt_template"):
        text = data.get(key)
        if isinstance(text, str) and text.strip():
            found.append(Instruction(kind="system_prompt", text=text))
    if not project:
        return found
    name = project.get("name") if isinstance(project.get("name"), str) else None
    template = project.get("prompt_template")
    if isinstance(template, str) and template.strip():
        found.append(Instruction(kind="project_instructions", text=template, title=name))
    for doc in project.get("docs") or []:
        if isinstance(doc, dict) and isinstance(doc.get("content"), str) and doc["content"].strip():
            title = doc.get("filename") if isinstance(doc.get("filename"), str) else None
            found.append(Instruction(kind="project_instructions", text=doc["content"], title=title or name))
    return found


def memory_instructions(memories: Any, project_uuid: str | None) -> list[Instruction]:
    """memories.json: what Claude remembers about the account, and about the conversation's project."""
    found: list[Instruction] = []
    for entry in memories if isinstance(memories, list) else [memories]:
        if not isinstance(entry, dict):
            continue
        account = entry.get("conversations_memory")
        if isinstance(account, str) and account.strip():
            found.append(Instruction(kind="memory", text=account, title="Claude memory"))
        by_project = entry.get("project_memories")
        text = by_project.get(project_uuid) if isinstance(by_project, dict) and project_uuid else None
        if isinstance(text, str) and text.strip():
            found.append(Instruction(kind="memory", text=text, title="Project memory"))
    return found
