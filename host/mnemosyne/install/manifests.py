"""Host manifests: rendered from the templates, written atomically, read back for doctor.

The templates ship inside the package (install/templates/, their only copy) so an
installed wheel finds them; manifests/README.md at the top of the repository explains them.
Placeholders are whole strings in the template ("{launcher_path}") filled after
JSON parsing, so a Windows path's backslashes are escaped by json.dumps, not by us.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..extension_ids import CHROMIUM_EXTENSION_ID, FIREFOX_ADDON_ID
from .launcher import write_file_atomic
from .locations import CHROMIUM_FAMILY, FIREFOX_FAMILY

HOST_NAME = "org.mnemosyne.host"
FILE_NAME = HOST_NAME + ".json"
# Chromium's and Firefox's rule for host names: dot-separated words, no empty parts.
HOST_NAME_RULE = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)*$")


def template_text(family: str) -> str:
    if family not in (CHROMIUM_FAMILY, FIREFOX_FAMILY):
        raise InputError(f"no manifest template for {family!r}")
    return (
        resources.files("mnemosyne.install")
        .joinpath("templates")
        .joinpath(f"{family}.json")
        .read_text("utf-8")
    )


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        for placeholder, text in values.items():
            value = value.replace("{" + placeholder + "}", text)
        return value
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    return value


def render(family: str, launcher: Path) -> dict[str, Any]:
    manifest = _fill(
        json.loads(template_text(family)),
        {
            "launcher_path": str(launcher),
            "chromium_extension_id": CHROMIUM_EXTENSION_ID,
            "firefox_addon_id": FIREFOX_ADDON_ID,
        },
    )
    if not HOST_NAME_RULE.match(manifest.get("name", "")) or manifest["name"] != HOST_NAME:
        raise InputError(f"manifest template for {family} has a bad host name {manifest.get('name')!r}")
    filled: dict[str, Any] = manifest
    return filled


def dumps(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def write(path: Path, manifest: dict[str, Any]) -> None:
    # 0644: the browser must read it; only the user may change it (doctor checks where it points).
    write_file_atomic(path, dumps(manifest).encode("utf-8"), 0o644)


def read(path: Path) -> dict[str, Any]:
    """The manifest at path, or InputError saying why it is unusable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} is not a JSON object")
    return data
