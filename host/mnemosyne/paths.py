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


def ensure_private_dir(path: Path, tighten_existing: bool = False) -> Path:
    """Create `path` (and missing parents) as 0700; with `tighten_existing`, also make an existing folder of ours
    0700 when others can enter it (the data folder of an older install was 0755)."""
    existed = path.is_dir()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix" and (tighten_existing or not existed):
        info = path.stat()
        if info.st_uid == os.geteuid() and info.st_mode & 0o077:
            os.chmod(path, 0o700)
    return path


def ensure_dir(path: Path) -> Path:
    """A folder inside the data folder; the data folder itself is made private (0700) first."""
    root = data_dir()
    if path == root or root in path.parents:
        ensure_private_dir(root, tighten_existing=True)
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


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read (0600), atomically: a private temp file, then os.replace.

    The temp name is random and opened O_EXCL|O_NOFOLLOW, so a planted file or symlink is never written through."""
    tmp = path.with_name(f".{path.name[:200]}.{os.urandom(6).hex()}.part")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
