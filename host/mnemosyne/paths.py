"""Where Mnemosyne keeps things. Everything lives under one data folder:
MNEMOSYNE_HOME when set (tests, portable installs), else the platform's user-data
folder (~/.local/share/mnemosyne, ~/Library/Application Support/mnemosyne,
%LOCALAPPDATA%\\mnemosyne)."""

from __future__ import annotations

import os
from pathlib import Path

APP = "mnemosyne"


def data_dir() -> Path:
    home = os.environ.get("MNEMOSYNE_HOME")
    if home:
        return Path(home).expanduser()
    import platformdirs  # imported late: the host's hello path does not need it when MNEMOSYNE_HOME is set

    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def ensure_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def archive_path() -> Path:
    return data_dir() / "archive.db"


def cache_dir() -> Path:
    """Tokenizer files and other derived data that can be rebuilt."""
    return data_dir() / "cache"


def log_dir() -> Path:
    return data_dir() / "logs"


def bin_dir() -> Path:
    """The launcher script the browser starts."""
    return data_dir() / "bin"
