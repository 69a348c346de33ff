"""Reading the JSON fixtures the tests send."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load(fixtures: Path, rel: str) -> Any:
    """The parsed JSON of `fixtures/rel`."""
    return json.loads((fixtures / rel).read_text(encoding="utf-8"))
