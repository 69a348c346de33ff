"""Shared pieces of the robustness suite: a host data folder per test and the
"Robustness figures" table at the end of the pytest run."""

from __future__ import annotations

import pytest

from robustness import figures
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


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = figures.table()
    if not lines:
        return
    terminalreporter.section("Robustness figures")
    for line in lines:
        terminalreporter.write_line(line)
    path = figures.write_artifact(lines)
    terminalreporter.write_line(f"(written to {path})")
