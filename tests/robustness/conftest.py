"""Shared pieces of the robustness suite: a host data folder per test. The "Robustness figures" table
is printed by tests/conftest.py, so figures recorded outside this folder (tests/browser) print too."""

from __future__ import annotations

import pytest

from support.hostproc import host_env


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def env(home, tmp_path):
    """Host / CLI environment: its own data folder, key file and temp folder."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return host_env(home, TMPDIR=str(tmp))
