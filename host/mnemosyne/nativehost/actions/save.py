"""save: convert a raw site JSON or page capture and store it (idempotent; a partial capture never replaces a
complete copy). See service.save_payload."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...archive.sync import ORIGINS, SyncMark
from ...service import save_payload
from ...service.save import PAGE_KINDS, SaveItem
from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def save_item(params: dict[str, Any]) -> SaveItem:
    """The parameters of one save (the request of `save`, or one item of `save-batch`), checked."""

    kind = p.choice(params, "kind", tuple(PAGE_KINDS), default="auto")
    url = p.string(params, "source_url", default=None, max_len=4096)
    if url is not None and not url.startswith(("https://", "http://")):
        raise p.BadRequest("source_url must be an http(s) URL")
    list_updated = p.string(params, "list_updated", default=None, max_len=100)
    origin = p.choice(params, "origin", ORIGINS, default="export")
    payload = params.get("payload")
    if not isinstance(payload, (dict, list)):
        raise p.BadRequest("payload must be a JSON object")
    return SaveItem(payload, kind, url, SyncMark(list_updated, origin))


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    item = save_item(params)
    session.renders.clear()  # a kept render may be of the conversation this save changes
    return save_payload(
        session.archive(),
        item.payload,
        kind=item.kind,
        source_url=item.source_url,
        list_updated=item.mark.list_updated,
        origin=item.mark.origin,
        preparation=session.preparation,
    ).as_dict()
