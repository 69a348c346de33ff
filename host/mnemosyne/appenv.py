"""Settings for Mnemosyne's own processes (the CLI and the native host), made before a library reads them."""

from __future__ import annotations

import os


def apply() -> None:
    """pydantic looks for plugins in the entry points of every installed distribution when it builds the
    first model: 40-50 ms of a `mnemo context` call, and a plugin found that way would be handed every
    transcript Mnemosyne validates. Mnemosyne uses none; a user who sets the variable still decides."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
