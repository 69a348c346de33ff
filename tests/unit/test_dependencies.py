"""Dependency pins: every requirement has an upper bound, and requirements.lock pins each one to a version inside
its range with hashes (regenerate it with the command in docs/install.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

tomllib = pytest.importorskip("tomllib")  # Python 3.11+, as on the CI and test machines

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
REQUIREMENTS = [Requirement(r) for r in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"]]


def lock_entries() -> dict[str, tuple[str, list[str]]]:
    """name -> (pinned version, its hashes), from the pip-compile output."""
    text = (ROOT / "requirements.lock").read_text("utf-8")
    entries = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        head = re.match(r"([A-Za-z0-9._\-]+)==([^\s\\;]+)", block)
        if head:
            entries[canonicalize_name(head.group(1))] = (
                head.group(2),
                re.findall(r"--hash=sha256:[0-9a-f]{64}", block),
            )
    return entries


def test_every_dependency_has_an_upper_bound():
    unbounded = [
        str(r) for r in REQUIREMENTS if not any(s.operator in ("<", "<=", "==", "~=") for s in r.specifier)
    ]
    assert not unbounded, f"no upper bound: {unbounded}"


def test_the_lock_pins_every_dependency_inside_its_range():
    entries = lock_entries()
    for req in REQUIREMENTS:
        name = canonicalize_name(req.name)
        assert name in entries, f"{req.name} is missing from requirements.lock"
        version = entries[name][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"lock pins {req.name}=={version}, outside {req}"
        )


def test_every_locked_package_is_pinned_with_hashes():
    entries = lock_entries()
    assert len(entries) >= len(REQUIREMENTS)
    assert all(hashes for _, hashes in entries.values()), [n for n, (_, h) in entries.items() if not h]
