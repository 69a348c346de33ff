"""The service layer: what Mnemosyne does, once, for both front ends.

The CLI (`mnemo ...`) and the native host's actions are thin adapters over these functions: they parse
their own arguments, call one of these, and render the result their own way. Nothing here prints, reads
argv or knows about frames.

- save_payload(arc, payload, kind=..., preparation=...) one page/site payload -> the archive (host `save`)
- export_folder(arc, out, fmt, ids, ...)                 conversations + held attachments -> a folder (`mnemo export`)
- import_paths(arc, paths, fmt=..., ...)                 files, folders, export zips -> the archive (`mnemo import`)
- conversation_from_file(path, pick)                     one conversation read from a file (`mnemo context FILE`)
- context_for(conv, target, ..., arc=..., caches=...)    a token-trimmed context (`mnemo context`, host `context`)
- preparation.Preparation                                a host's caches, split worker and work after each reply
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

    from .context import context_for, conversation_from_file
    from .imports import ImportTotals, import_paths
    from .save import PAGE_KINDS, save_payload

# which module has each name: a caller imports only the one it uses (`mnemo context` does not load the
# import and save machinery, nor the archive modules they bring)
_MODULES = {
    "context_for": "context",
    "conversation_from_file": "context",
    "ImportTotals": "imports",
    "import_paths": "imports",
    "PAGE_KINDS": "save",
    "save_payload": "save",
}
__all__ = [
    "ImportTotals",
    "PAGE_KINDS",
    "context_for",
    "conversation_from_file",
    "import_paths",
    "save_payload",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
