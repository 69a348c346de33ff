"""What `mnemo mcp` does before the MCP SDK is imported, to answer its first tool call sooner.

Importing the SDK takes a fresh process 1-3 s, most of it the protocol's pydantic models. The work the first
tool call needs besides (recall's modules, the whole tokenizer) starts in a thread first, so it overlaps the
import. And the server imports only the SDK modules it uses: the `mcp` and `mcp.server` packages' own
__init__ modules import the SDK's client and its high-level server as well (about a third of the import),
which a low-level stdio server never touches.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types

from ..errors import MnemosyneError

_LEAN_PACKAGES = ("mcp", "mcp.server")  # packages whose __init__ imports more than the server uses


def _warm_up() -> None:
    """Load what the first tool call needs (recall's modules, the tokenizer) while the SDK is imported and
    the client shakes hands: a first `recall` then answers about as fast as the later ones."""
    from .. import tokens
    from ..recall import build  # noqa: F401  (the context engine's counting and markers)

    try:
        tokens.encoding("o200k_base")
    except MnemosyneError:
        pass  # the call that needs it reports it


def start_warm_up() -> threading.Thread:
    thread = threading.Thread(target=_warm_up, name="mnemo-mcp-warm-up", daemon=True)
    thread.start()
    return thread


def import_lean() -> None:
    """Register the SDK's packages without running their __init__ modules, so importing the low-level
    server's modules loads only those. When the SDK's layout is not the one expected (another version),
    the packages are imported whole instead."""
    if any(name in sys.modules for name in _LEAN_PACKAGES):
        return
    try:
        for name in _LEAN_PACKAGES:
            spec = importlib.util.find_spec(name)
            if spec is None or not spec.submodule_search_locations:
                raise ImportError(name)
            package = types.ModuleType(name)
            package.__spec__ = spec
            package.__path__ = list(spec.submodule_search_locations)
            package.__file__ = spec.origin
            package.__package__ = name
            sys.modules[name] = package
        from . import server  # noqa: F401  (the SDK modules it uses, through the lean packages)
    except (ImportError, AttributeError):
        for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
            del sys.modules[name]
        sys.modules.pop(f"{__package__}.server", None)
