"""Settings for Mnemosyne's own processes (the CLI and the native host), made before a library reads them."""

from __future__ import annotations

import os
import sys
import types

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

_LOADER = "pydantic.plugin._loader"
_ALL_OFF = ("__all__", "1", "true")  # the values pydantic reads as "no plugins at all"


def apply() -> None:
    """pydantic looks for plugins in the entry points of every installed distribution when it builds the
    first model: 40-50 ms of a `mnemo context` call, and a plugin found that way would be handed every
    transcript Mnemosyne validates. Mnemosyne uses none; a user who sets the variable still decides."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] in _ALL_OFF and _LOADER not in sys.modules:
        sys.modules[_LOADER] = _PluginsOff(_LOADER)


class _PluginsOff(types.ModuleType):
    """Stands in for pydantic's plugin loader while plugins are off. pydantic imports that module to build
    its first validator even when told there are no plugins, and with it importlib.metadata (about 15 ms
    of a fresh process: the email, zipfile and csv modules). get_plugins answers what pydantic's own
    answers then, (); plugins turned back on, or any other name, loads the real module."""

    def get_plugins(self) -> Any:
        if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in _ALL_OFF:
            return ()
        return self._real().get_plugins()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (__path__, ...)
            raise AttributeError(name)
        return getattr(self._real(), name)

    def _real(self) -> types.ModuleType:
        loaded = sys.modules.get(_LOADER)
        if loaded is not None and loaded is not self:
            return loaded
        import importlib.util  # (on the host's hello path: only once pydantic asks for its plugins)

        package = importlib.util.find_spec("pydantic.plugin")
        origin = package.origin if package is not None else None
        spec = origin and importlib.util.spec_from_file_location(
            _LOADER, os.path.join(os.path.dirname(origin), "_loader.py")
        )
        if not spec or spec.loader is None:
            raise ImportError(f"cannot find {_LOADER}")
        real = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(real)
        sys.modules[_LOADER] = real  # from now on, pydantic's own
        return real
