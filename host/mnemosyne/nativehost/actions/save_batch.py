"""save-batch: up to 50 saves in one transaction; a bad item never fails the others. See service.save_batch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import MnemosyneError
from ...service.save import SaveItem, save_batch
from ..pathfree import without_paths
from . import params as p
from .save import save_item

if TYPE_CHECKING:
    from ..session import HostSession

MAX_ITEMS = 50
MAX_TEXT = 300  # a title or message in a result: 50 results always fit one reply frame


def run(params: dict[str, Any], session: HostSession) -> dict[str, Any]:
    items = params.get("items")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_ITEMS:
        raise p.BadRequest(f"items must be a list of 1 to {MAX_ITEMS} saves")
    checked: list[SaveItem | MnemosyneError] = []
    for n, item in enumerate(items):
        try:
            if not isinstance(item, dict):
                raise p.BadRequest(f"items[{n}] must be an object")
            checked.append(save_item(item))
        except MnemosyneError as exc:
            checked.append(exc)
    arc = session.archive()
    session.renders.clear()  # a kept render may be of a conversation this batch changes
    results = []
    for result in save_batch(arc, checked):
        if isinstance(result, MnemosyneError):
            error = {"code": result.code, "message": without_paths(result.message)[:MAX_TEXT]}
            results.append({"ok": False, "error": error})
        else:
            data = result.as_dict()
            if data["title"]:
                data["title"] = data["title"][:MAX_TEXT]
            results.append({"ok": True, **data})
    return {"results": results}
