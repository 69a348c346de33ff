"""save: convert a raw site JSON or page capture and store it (idempotent). See service.save_payload."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import params as p

if TYPE_CHECKING:
    from ..session import HostSession


def run(params: dict, session: HostSession) -> dict:
    from ...service import PAGE_KINDS, save_payload

    kind = p.choice(params, "kind", tuple(PAGE_KINDS), default="auto")
    url = p.string(params, "source_url", default=None, max_len=4096)
    if url is not None and not url.startswith(("https://", "http://")):
        raise p.BadRequest("source_url must be an http(s) URL")
    payload = params.get("payload")
    if not isinstance(payload, (dict, list)):
        raise p.BadRequest("payload must be a JSON object")
    session.renders.clear()  # a kept render may be of the conversation this save changes
    return save_payload(session.archive(), payload, kind=kind, source_url=url).as_dict()
