"""ChatGPT: the site's GET /backend-api/conversation/{id} JSON, a bare `mapping`
object, and the official export (conversations.json, conversations-NNN.json,
the zip that holds them).

The whole node tree is kept: every node that carries a message becomes a
Message whose parent is the nearest ancestor that also became one, so edits
and regenerations survive; `current_node` names the active leaf.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from ..errors import InputError
from ..ids import conversation_id
from ..model import ArtifactPart, CaptureMethod, Conversation, Instruction, InstructionKind, Message, TextPart
from .base import RawInput, ReadContext, ReadFailure, Warnings, build, parse_time
from .chatgpt_library import apply_side_files
from .chatgpt_markers import START as MARKER_START
from .chatgpt_markers import resolve_markers
from .chatgpt_parts import context_texts, message_parts, recipient_of
from .chatgpt_refs import link_assets, parts_text
from .json_values import as_dict, as_list, as_role, as_str
from .loading import ASSETS

NAME = "chatgpt"
DESCRIPTION = "ChatGPT conversation JSON (site API, bare mapping) and official export (json, split json, zip)"

_EXPORT_NAME = re.compile(r"(^|[/:\\])conversations(-\d+)?\.json$")
_CONTEXT_KINDS: dict[str, InstructionKind] = {
    "user_editable_context": "custom_instructions",
    "model_editable_context": "memory",
}


# ---------------------------------------------------------------- detection


def _is_node(value: Any) -> bool:
    return isinstance(value, dict) and ("message" in value or "children" in value or "parent" in value)


def _is_bare_mapping(data: Any) -> bool:
    """A mapping without its wrapper: every value is a node whose `id` is its key."""
    if not isinstance(data, dict) or not data:
        return False
    sample = list(data.items())[:50]
    return all(_is_node(v) and v.get("id") == k for k, v in sample)


def _is_conversation(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("mapping"), dict):
        return False
    sample = list(data["mapping"].items())[:50]
    return bool(sample) and all(_is_node(v) for _, v in sample)


def _is_message_window(data: Any) -> bool:
    """The plural GET /backend-api/conversations/{id}: a window of `messages`, no `mapping`."""
    if not isinstance(data, dict) or data.get("mapping") or not isinstance(data.get("messages"), list):
        return False
    sample = data["messages"][:20]
    return bool(sample) and all(
        isinstance(m, dict) and isinstance(m.get("author"), dict) and isinstance(m.get("content"), dict)
        for m in sample
    )


def detect(raw: RawInput) -> bool:
    data = raw.data
    if isinstance(data, list):
        return any(_is_conversation(item) for item in data[:10])
    return _is_conversation(data) or _is_bare_mapping(data) or _is_message_window(data)


# ---------------------------------------------------------------- texts ahead


def texts_ahead(data: Any) -> tuple[str, list[str]] | None:
    """The id of a site conversation (the extension's save) and a guess of the texts its context splits,
    made from the JSON before it is read (readers.texts_ahead): each visible user or assistant text
    message on the current path, oldest first, its parts joined and markers resolved as the reader does.
    None for anything else (an export, a window, a bare mapping). It runs before the save's own work: a
    few field lookups a message: 2,000 messages, a MB, in about 6 ms."""
    if not _is_conversation(data) or not (source_id := _source_id(data)):
        return None
    mapping = data["mapping"]
    texts: list[str] = []
    unreported = Warnings()  # (a guess reports nothing: the read does)
    node = mapping.get(as_str(data.get("current_node")) or "")
    for _ in range(len(mapping)):  # (a cycle of parents ends the walk)
        if not isinstance(node, dict):
            break
        msg = node.get("message")
        if isinstance(msg, dict) and msg.get("recipient") in (None, "all"):
            content, author, metadata = msg.get("content"), msg.get("author"), msg.get("metadata")
            if (
                isinstance(content, dict)
                and content.get("content_type") == "text"
                and isinstance(author, dict)
                and author.get("role") in ("user", "assistant")
                and not (isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"))
            ):
                text = parts_text(content)
                if MARKER_START in text:  # (a C-level find: the reader's own check costs 6 ms a MB here)
                    text = resolve_markers(text, as_dict(metadata), unreported)
                if text := text.strip():
                    texts.append(text)
        parent = node.get("parent")
        node = mapping.get(parent) if isinstance(parent, str) else None
    texts.reverse()
    return conversation_id("chatgpt", source_id), texts


# ---------------------------------------------------------------- reading


def read(raw: RawInput, ctx: ReadContext) -> Iterator[Conversation | ReadFailure]:
    data = raw.data
    export = isinstance(data, list) or bool(_EXPORT_NAME.search(raw.name))
    method: CaptureMethod = "official_export" if export else "site_api"
    items: Iterator[tuple[str, Any, Callable[[], bytes], Callable[[], bytes | None]]]
    if isinstance(data, list):
        count = len(data)
        items = (
            (
                _label(raw.name, raw.first_index + i, item),
                item,
                partial(raw.item_bytes, i, item),
                partial(raw.item_identity, i, item, _source_id(item) is not None),
            )
            for i, item in enumerate(data)
        )
    else:
        count = 1
        items = iter([(raw.name, _single(raw), lambda: raw.raw, lambda: None)])
    window = _is_message_window(raw.data)
    assets = as_dict(raw.members.get(ASSETS))
    for label, item, item_raw, identity in items:
        try:
            conversation = _convert(item, item_raw(), method, ctx, window, identity())
            if assets:
                link_assets(conversation, assets)
            apply_side_files(conversation, raw.members, assets)
            result: Conversation | ReadFailure = conversation
        except (InputError, TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
            error = (
                exc
                if isinstance(exc, InputError)
                else InputError(f"not a valid ChatGPT conversation ({type(exc).__name__}: {exc})")
            )
            # a lone conversation fails the input, as other readers do (not a streamed batch of one)
            if count == 1 and raw.progress is None:
                raise InputError(f"{label}: {error.message}", code=error.code) from None
            result = ReadFailure(label=label, error=error)
        yield result


def _label(name: str, index: int, item: Any) -> str:
    title = item.get("title") if isinstance(item, dict) else None
    return f"{name}[{index}]" + (f" {title!r}" if isinstance(title, str) else "")


def _single(raw: RawInput) -> dict[str, Any]:
    if _is_message_window(raw.data):
        return _window_as_mapping(raw.data)
    if isinstance(raw.data, dict) and "mapping" in raw.data:
        return raw.data
    if _is_bare_mapping(raw.data):
        return {"mapping": raw.data}
    raise InputError(f"{raw.name}: not a ChatGPT conversation (no `mapping` of message nodes)")


def _window_as_mapping(data: dict[str, Any]) -> dict[str, Any]:
    """The plural endpoint's messages as a chain. That endpoint returns only the latest turns of the
    active branch (older ones page in with `before`), so what it gives is marked partial."""
    mapping: dict[str, dict[str, Any]] = {}
    previous = None
    for n, msg in enumerate(m for m in data["messages"] if isinstance(m, dict)):
        key = as_str(msg.get("id")) or f"message-{n}"
        while key in mapping:
            key += "~"
        mapping[key] = {"id": key, "parent": previous, "children": [], "message": msg}
        if previous is not None:
            mapping[previous]["children"].append(key)
        previous = key
    return {**data, "mapping": mapping, "current_node": data.get("current_node") or previous}


def _listed_project(conv: dict[str, Any], gizmo: str | None) -> tuple[str | None, list[Instruction]]:
    """The project's name and instructions, which the conversation JSON does not carry: a backup adds them from
    the projects sidebar as `mnemosyne_project` (see extension/background/backup.js). Used only when its id is
    the project this conversation names, so a stray object never files a chat under another project."""
    listed = as_dict(conv.get("mnemosyne_project"))
    if not listed or as_str(listed.get("id")) != gizmo:
        return None, []
    name = as_str(listed.get("name"))
    text = as_str(listed.get("instructions"))
    return name, [Instruction(kind="project_instructions", text=text, title=name)] if text else []


def _source_id(conv: Any) -> str | None:
    return (as_str(conv.get("conversation_id")) or as_str(conv.get("id"))) if isinstance(conv, dict) else None


def _convert(
    conv: Any,
    raw: bytes,
    method: CaptureMethod,
    ctx: ReadContext,
    window: bool = False,
    identity: bytes | None = None,
) -> Conversation:
    if not isinstance(conv, dict):
        raise InputError(f"expected a conversation object, got {type(conv).__name__}")
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise InputError("conversation has no `mapping` (its messages are missing)")
    warnings = Warnings()
    if window:
        warnings.add(
            "PARTIAL_CONVERSATION",
            "read from the plural conversations endpoint: only the turns it returned, no other branches",
        )
    tree = _Tree(mapping, warnings)
    messages, alias = tree.messages()
    source_id = _source_id(conv)
    # a project chat names its project in conversation_template_id ("g-p-..."), a custom GPT in gizmo_id
    gizmo = as_str(conv.get("gizmo_id")) or as_str(conv.get("conversation_template_id")) or tree.gizmo_id()
    project_name, project_instructions = _listed_project(conv, gizmo)
    url = None
    if source_id:
        url = (
            f"https://chatgpt.com/g/{gizmo}/c/{source_id}" if gizmo else f"https://chatgpt.com/c/{source_id}"
        )
    return build(
        site="chatgpt",
        source_id=source_id,
        reader="chatgpt.export" if method == "official_export" else "chatgpt.api",
        method=method,
        raw=raw,
        ctx=ctx,
        messages=messages,
        title=as_str(conv.get("title")),
        url=url,
        created_at=parse_time(conv.get("create_time")),
        updated_at=parse_time(conv.get("update_time")),
        default_model=as_str(conv.get("default_model_slug"))
        or next((m.model for m in messages if m.model), None),
        active_leaf=tree.active_leaf(conv.get("current_node"), messages, alias),
        instructions=tree.instructions + project_instructions,
        project=project_name or gizmo,
        warnings=warnings,
        partial=window,
        identity=identity,
    )


class _Tree:
    """The mapping as a tree: parent links, child order, and the walk that turns nodes into messages."""

    def __init__(self, mapping: dict[str, Any], warnings: Warnings):
        self.nodes = {k: v for k, v in mapping.items() if isinstance(v, dict)}
        self.warnings = warnings
        self.instructions: list[Instruction] = []
        self.kids: dict[str | None, list[str]] = {}
        listed_parent: dict[str, str] = {}
        for key, node in self.nodes.items():
            for child in as_list(node.get("children")):
                if isinstance(child, str):
                    listed_parent.setdefault(child, key)
        for key, node in self.nodes.items():
            parent = node.get("parent") if isinstance(node.get("parent"), str) else listed_parent.get(key)
            if parent is not None and parent not in self.nodes:
                warnings.add("DANGLING_PARENT", "a node's parent is not in the mapping; it starts a new root")
                parent = None
            self.kids.setdefault(parent, []).append(key)
        for parent_key, kids in self.kids.items():  # the site's own child order first, then the rest as found
            if len(kids) == 1:  # most nodes: one child, already in order
                continue
            listed = [c for c in as_list(self.nodes.get(parent_key or "", {}).get("children")) if c in kids]
            kids[:] = list(dict.fromkeys(listed + kids))

    def gizmo_id(self) -> str | None:
        """Custom-GPT chats from the site API name their GPT only in message metadata."""
        for node in self.nodes.values():
            msg = node.get("message")  # as_dict / as_str spelled out: this runs for every node of most chats
            metadata = msg.get("metadata") if isinstance(msg, dict) else None
            gizmo = metadata.get("gizmo_id") if isinstance(metadata, dict) else None
            if isinstance(gizmo, str) and gizmo:
                return gizmo
        return None

    def messages(self) -> tuple[list[Message], dict[str, str]]:
        """Depth-first, parents before children; iterative so a deep tree cannot overflow the stack."""
        out: list[Message] = []
        by_id: dict[str, Message] = {}
        alias: dict[str, str] = {}  # node id -> the message that stands for it (merged or message-less nodes)
        seen: set[str] = set()
        stack: list[tuple[str, str | None]] = [(k, None) for k in reversed(self.kids.get(None, []))]
        while stack or len(seen) < len(self.nodes):
            if not stack:  # what is left hangs in a parent cycle: cut it at its first node, keep it all
                self.warnings.add("PARENT_CYCLE", "nodes formed a parent cycle; it was cut to keep them")
                stack.append((next(k for k in self.nodes if k not in seen), None))
            key, parent_msg = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            node = self.nodes[key]
            msg = node.get("message") if isinstance(node.get("message"), dict) else None
            current = parent_msg
            if msg is not None:
                merged_into = self._continues(key, msg, by_id.get(parent_msg or ""))
                if merged_into:
                    current = merged_into.id
                else:
                    made = self._message(key, msg, parent_msg)
                    out.append(made)
                    by_id[key] = made
                    current = key
            if current:
                alias[key] = current
            stack.extend((child, current) for child in reversed(self.kids.get(key, [])))
        self._link_canvas(out, by_id)
        return out, alias

    def _message(self, key: str, msg: dict[str, Any], parent: str | None) -> Message:
        author = as_dict(msg.get("author"))
        given_role = author.get("role")
        name = as_str(author.get("name"))
        role = as_role(given_role)
        if role is None:
            self.warnings.add("UNKNOWN_ROLE", f"author role {given_role!r} read as a tool message")
            name, role = name or as_str(given_role), "tool"
        metadata = as_dict(msg.get("metadata"))
        content = as_dict(msg.get("content"))
        kind = content.get("content_type")
        if kind in _CONTEXT_KINDS:
            self._add_instructions(_CONTEXT_KINDS[kind], content)
        hidden = bool(
            metadata.get("is_visually_hidden_from_conversation")
            or metadata.get("is_user_system_message")
            or kind in _CONTEXT_KINDS
        )
        return Message(
            id=key,
            parent=parent,
            role=role,
            author=name if role == "tool" or name else None,
            # on a user turn model_slug is only the model picker's state, not who wrote it
            model=as_str(metadata.get("model_slug")) if role != "user" else None,
            hidden=hidden,
            status=_status(msg),
            created_at=parse_time(msg.get("create_time")),
            updated_at=parse_time(msg.get("update_time")),
            parts=message_parts(msg, role, name, self.warnings),
        )

    def _continues(self, key: str, msg: dict[str, Any], previous: Message | None) -> Message | None:
        """Merge a "Continue generating" node into the answer it continues (pionxzh mergeContinuationNodes).

        pionxzh merges every run of assistant text nodes on the path; with the whole tree kept that
        would fuse separate turns, so we merge only when it is provably one answer: the previous
        node is an assistant text answer to the user that stopped at the length limit
        (finish_details.type == "max_tokens"), it has exactly this one child, and this node is
        visible assistant text to the user on the same channel. The text is appended as-is, because a
        continuation resumes mid-sentence.
        """
        if previous is None or previous.role != "assistant":
            return None
        prev_node = self.nodes.get(previous.id, {})
        prev_msg = as_dict(prev_node.get("message"))
        if self.kids.get(previous.id) != [key]:
            return None
        if (
            _finish(prev_msg) != "max_tokens"
            or _kind(prev_msg) != "text"
            or _kind(msg) != "text"
            or recipient_of(prev_msg)
            or recipient_of(msg)
            or as_dict(msg.get("author")).get("role") != "assistant"
            or prev_msg.get("channel") != msg.get("channel")
            or as_dict(msg.get("metadata")).get("is_visually_hidden_from_conversation")
        ):
            return None
        texts = [p for p in previous.parts if isinstance(p, TextPart)]
        addition = "".join(p for p in as_list(as_dict(msg.get("content")).get("parts")) if isinstance(p, str))
        if texts:
            texts[-1].text += addition
        elif addition:
            previous.parts.append(TextPart(text=addition))
        previous.status = _status(msg)
        finished = parse_time(msg.get("update_time")) or parse_time(msg.get("create_time"))
        previous.updated_at = finished or previous.updated_at
        return previous

    def _add_instructions(self, kind: InstructionKind, content: dict[str, Any]) -> None:
        for title, text in context_texts(content):
            item = Instruction(kind=kind, text=text, title=title)
            if item not in self.instructions:
                self.instructions.append(item)

    def _link_canvas(self, messages: list[Message], by_id: dict[str, Message]) -> None:
        """The canmore tool's reply names the document id and version the model's call produced."""
        for m in messages:
            msg = self.nodes[m.id].get("message")  # every message is looked at: no helper calls on the way
            metadata = msg.get("metadata") if isinstance(msg, dict) else None
            canvas = metadata.get("canvas") if isinstance(metadata, dict) else None
            parent = by_id.get(m.parent or "")
            if not isinstance(canvas, dict) or parent is None:
                continue
            for part in parent.parts:
                if isinstance(part, ArtifactPart):
                    part.artifact_id = part.artifact_id or as_str(canvas.get("textdoc_id"))
                    version = canvas.get("version")
                    part.version = part.version or (str(version) if version is not None else None)
                    part.title = as_str(canvas.get("title")) or part.title  # the title the site shows

    def active_leaf(self, current: Any, messages: list[Message], alias: dict[str, str]) -> str | None:
        if isinstance(current, str) and current in alias:
            return alias[current]
        if isinstance(current, str) and current:
            self.warnings.add(
                "MISSING_CURRENT_NODE", "current_node is not a message in the mapping; newest leaf used"
            )
        parents = {m.parent for m in messages}
        leaves = [m for m in messages if m.id not in parents]
        if not leaves:
            return None
        newest = max(leaves, key=lambda m: m.created_at.timestamp() if m.created_at else float("-inf"))
        return newest.id if newest.created_at else leaves[-1].id


def _kind(msg: dict[str, Any]) -> Any:
    return as_dict(msg.get("content")).get("content_type")


def _finish(msg: dict[str, Any]) -> Any:
    return as_dict(as_dict(msg.get("metadata")).get("finish_details")).get("type")


def _status(msg: dict[str, Any]) -> str | None:
    """`finished`, `in_progress`, or how it stopped early (`interrupted`, `max_tokens`) as the site says."""
    finish = _finish(msg)
    if finish == "interrupted" or finish == "max_tokens":
        return str(finish)
    status = as_str(msg.get("status"))
    return "finished" if status == "finished_successfully" else status
