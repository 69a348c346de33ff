import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# tests/support and the fixtures' helpers, and the tiers' modules (a test may reuse another's data builders)
for folder in ("", "unit", "integration"):
    sys.path.insert(0, str(Path(__file__).parent / folder))

FIXTURES = Path(__file__).parent / "fixtures"
_SESSION_HOME = tempfile.mkdtemp(prefix="mnemo-tests-")


def pytest_configure(config):
    """Every test runs over a throwaway data folder unless it makes its own (`mnemo_home`): no test writes the
    user's data folder, the tokenizer's rank cache included."""
    os.environ["MNEMOSYNE_HOME"] = _SESSION_HOME


def pytest_unconfigure(config):
    shutil.rmtree(_SESSION_HOME, ignore_errors=True)


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def host(tmp_path):
    """A real host process (`python -m mnemosyne.nativehost`) over a fresh data folder."""
    from support.hostproc import HostProcess, host_env

    proc = HostProcess(host_env(tmp_path / "home"))
    yield proc
    proc.kill()


@pytest.fixture
def mnemo_home(tmp_path, monkeypatch):
    """An empty data folder with a key-file opt-in, so no test touches a real archive or keyring."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("MNEMOSYNE_HOME", str(home))
    monkeypatch.setenv("MNEMOSYNE_KEY_FILE", str(home / "archive.key"))
    return home


@pytest.fixture
def host_session(mnemo_home):
    """The host's session in this process, over an empty data folder: its actions are called directly."""
    from mnemosyne.nativehost.session import HostSession

    session = HostSession()
    yield session
    session.close()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The "Robustness figures" table: every figure any test recorded with robustness.figures.record()."""
    from robustness import figures

    lines = figures.table()
    if not lines:
        return
    terminalreporter.section("Robustness figures")
    for line in lines:
        terminalreporter.write_line(line)
    path = figures.write_artifact(lines)
    terminalreporter.write_line(f"(written to {path})")
