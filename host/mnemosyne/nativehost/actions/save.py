"""save: convert a raw site JSON or page capture and store it (idempotent; a partial capture never replaces a
complete copy). See service.save_payload. With `export`, the reply also carries the first page of the saved
conversation in a writer's format (what `get` would give), so an Export click that copies or downloads makes
one round trip."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...archive.sync import ORIGINS, SyncMark
from ...service import save_payload
from ...service.save import PAGE_KINDS, SaveItem
from .. import paging
from . import params as p
from .get import FORMATS, first_page

if TYPE_CHECKING:
    from ..session import HostSession

MAX_TITLE = (
    1000  # characters of the title in the reply (the archive keeps it whole): the reply fits one frame
)


def save_item(params: dict[str, Any]) -> SaveItem:
    """The parameters of one save, checked."""

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


def export_wanted(params: dict[str, Any]) -> tuple[str, bool] | None:
    """(format, redact) of the `export` parameter, checked before anything is saved; None without it."""
    wanted = params.get("export")
    if wanted is None:
        return None
    if not isinstance(wanted, dict):
        raise p.BadRequest("export must be an object {format, redact?}")
    return p.choice(wanted, "format", FORMATS), p.boolean(wanted, "redact", False)


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    item = save_item(params)
    wanted = export_wanted(params)
    session.renders.clear()  # a kept render may be of the conversation this save changes
    data = save_payload(
        session.archive(),
        item.payload,
        kind=item.kind,
        source_url=item.source_url,
        list_updated=item.mark.list_updated,
        origin=item.mark.origin,
        preparation=session.preparation,
    ).as_dict()
    if data["title"]:
        data["title"] = data["title"][:MAX_TITLE]
    if wanted is not None:
        data["export"] = _export(session, data, *wanted)
    return data


def _export(session: HostSession, saved: dict[str, Any], fmt: str, redact: bool) -> dict[str, Any]:
    """The first page of the saved conversation in `fmt`, sized so that the whole reply fits one frame."""
    budget = paging.CHUNK_BYTES - paging.encoded_len(saved)  # (a title is cut: at most a few KiB)
    return first_page(session, saved["conversation_id"], fmt, redact, budget)
