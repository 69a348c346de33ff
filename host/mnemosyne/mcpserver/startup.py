"""What `mnemo mcp` does before the MCP SDK is imported, to answer its first tool call sooner.

Importing the SDK takes a fresh process 1-3 s, most of it the protocol's pydantic models. The work the first
tool call needs besides (recall's modules, the tokenizer's) starts in a thread first, so it overlaps the
import. The whole o200k_base encoding is not built before the first answer: building it holds the
interpreter's lock for its whole 0.3-0.4 s of CPU (tiktoken's encoder is made in Rust without letting it
go), which stopped the SDK's import as long. The first call counts with an encoder made for its own texts,
as a one-off `mnemo recall` does (tokens.subset: about 0.1 s CPU); the whole encoding is built once the
session is idle (before the first call, or between two), for the calls after it.

And the server imports only the SDK modules it uses: the `mcp` and `mcp.server` packages' own __init__
modules import the SDK's client and its high-level server as well (about a third of the import), which a
low-level stdio server never touches.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
import types
from typing import TYPE_CHECKING

from .. import tokens
from ..errors import MnemosyneError

if TYPE_CHECKING:
    from .server import Session

_LEAN_PACKAGES = ("mcp", "mcp.server")  # packages whose __init__ imports more than the server uses
IDLE_SECONDS = 1.0  # without a tool call, before the whole encoding is built


def _warm_up() -> None:
    """Import what the first tool call needs (recall's modules, the tokenizer's) while the SDK is imported
    and the client shakes hands."""
    import tiktoken  # noqa: F401  (what tokens.encoder_for builds its encoder with)

    from ..recall import build  # noqa: F401  (the context engine's counting and markers)
    from ..tokens import subset  # noqa: F401  (the first call's encoder)


def start_warm_up() -> threading.Thread:
    tokens.one_off = True  # until the whole encoding is built (load_whole_encoding_when_idle): see the module
    thread = threading.Thread(target=_warm_up, name="mnemo-mcp-warm-up", daemon=True)
    thread.start()
    return thread


def load_whole_encoding_when_idle(session: Session) -> None:
    """Once no tool call has run for IDLE_SECONDS (since the last one, or since the session began: a client
    often starts its server long before its first call), build the whole o200k_base encoding: the calls
    after it count with it, as a long-lived process does. Not before the first answer nor at once after
    an answer: a call arriving while it is built waits for it (its build holds the interpreter's lock),
    and clients often call right after the handshake and again right after an answer; each call meanwhile
    makes an encoder for its own texts."""
    while (idle := session.idle_for()) < IDLE_SECONDS:
        time.sleep(IDLE_SECONDS - idle if idle else IDLE_SECONDS / 4)  # (0: a call is under way)
    try:
        tokens.encoding("o200k_base")
    except MnemosyneError:
        pass  # a call that needs it reports it


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
