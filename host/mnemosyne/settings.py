"""The user's settings file: `config.toml` in the data folder (paths.py), optional.

One setting so far:

    [mcp]
    redact = false   # `mnemo mcp` returns transcripts unredacted (default true: secrets, e-mail addresses
                     # and phone numbers replaced, as `mnemo context --redact` does)

A file that is not valid TOML, or a setting of the wrong type, is a BAD_CONFIG error: a setting that
protects the user is never silently ignored.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .errors import InputError
from .paths import data_dir

FILE_NAME = "config.toml"


class ConfigError(InputError):
    code = "BAD_CONFIG"


def config_path() -> Path:
    return data_dir() / FILE_NAME


def load(path: Path | None = None) -> dict[str, Any]:
    """The settings file as a table; empty when there is none."""
    path = path or config_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    return parse_toml(data, path)


def parse_toml(data: bytes, path: Path) -> dict[str, Any]:
    """A TOML file's table (Python 3.11's tomllib); a file that is not TOML is a BAD_CONFIG error."""
    if sys.version_info < (3, 11):  # pragma: no cover - no TOML reader without a dependency
        raise ConfigError(f"reading {path} needs Python 3.11 or later (tomllib)")
    import tomllib  # (Python 3.11 or later: see the check above)

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def mcp_redacts(path: Path | None = None) -> bool:
    """Whether `mnemo mcp` redacts what it returns (the default), from `[mcp] redact`."""
    table = load(path).get("mcp", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path or config_path()}: [mcp] must be a table")
    value = table.get("redact", True)
    if not isinstance(value, bool):
        raise ConfigError(f"{path or config_path()}: mcp.redact must be true or false, not {value!r}")
    return value
