"""Who could change a file the browser runs or reads: the launcher, the manifests,
and (for a machine-wide install) the Python and the package the launcher starts.

A manifest or launcher that another user can write is a hijack of the channel
(nativemessaging-mitm): they repoint it and read every transcript. A file is safe
when it and every folder above it belong to trusted users (you, or root) and no
one else may write them; a world-writable folder with the sticky bit (/tmp) only
lets each user replace their own files, so it does not count against a file of ours.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _owner(uid: int) -> str:
    try:
        import pwd  # (POSIX only: Windows has no pwd module)

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _writers(mode: int) -> str:
    who = [w for w, bit in (("its group", stat.S_IWGRP), ("every user", stat.S_IWOTH)) if mode & bit]
    return " and ".join(who)


def trusted_uids(*, machine_wide: bool = False) -> set[int]:
    """Root always; the current user too unless the file serves every user of the machine."""
    return {0} if machine_wide else {0, os.geteuid()}


def problems(path: Path, trusted: set[int]) -> list[str]:
    """Why someone outside `trusted` could change `path`: the file, what a symlink points at, a folder above."""
    if os.name != "posix":
        return []  # Windows ACLs are not modelled here
    try:
        os.lstat(path)
    except FileNotFoundError:
        return []
    found: list[str] = []
    files = [path] if not path.is_symlink() else [path, path.resolve()]
    folders: list[Path] = []
    for item in files:
        info = os.lstat(item)
        if info.st_uid not in trusted:
            found.append(f"{item} is owned by {_owner(info.st_uid)}")
        if not stat.S_ISLNK(info.st_mode) and info.st_mode & 0o022:
            found.append(f"{item} is writable by {_writers(info.st_mode)}")
        parent = Path(os.path.abspath(item)).parent.resolve()
        folders += [parent, *parent.parents]
    for folder in dict.fromkeys(folders):
        info = os.stat(folder)
        if info.st_uid not in trusted:
            found.append(f"folder {folder} is owned by {_owner(info.st_uid)}")
        elif info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            found.append(f"folder {folder} is writable by {_writers(info.st_mode)}")
    return list(dict.fromkeys(found))
