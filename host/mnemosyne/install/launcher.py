"""The launcher the browser starts: a tiny script that pins the interpreter.

Browsers start hosts with a minimal environment (a macOS GUI app does not even
inherit the shell's PATH), so the launcher names the absolute interpreter that ran
`mnemo install` and, when MNEMOSYNE_HOME was set then, exports it too.

`mnemo install --system` writes a second, machine-wide launcher (root-owned, in
locations.system_launcher_dir) that exports nothing: each user's host then finds
that user's own data folder and key at run time, never the installer's.
sys.executable is kept as given, not resolved: resolving a venv's python symlink
would start the base interpreter, which cannot import mnemosyne.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

from ..paths import bin_dir
from .locations import WINDOWS, system_launcher_dir

HOST_MODULE = "mnemosyne.nativehost"
LAUNCHER_NAME = "mnemo-host"
# Settings the host needs to find the same archive and key as the CLI that installed it.
EXPORTED_ENV = ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE")

_POSIX_EXEC = re.compile(r"^exec (.+) -m " + re.escape(HOST_MODULE) + r' "\$@"\s*$', re.M)
_POSIX_VAR = re.compile(r"^(MNEMOSYNE_[A-Z_]+)=(.+)$", re.M)
_BAT_EXEC = re.compile(r'^"([^"]+)" -m ' + re.escape(HOST_MODULE) + r" %\*\s*$", re.M)
_BAT_VAR = re.compile(r'^set "(MNEMOSYNE_[A-Z_]+)=([^"]*)"\s*$', re.M)


def launcher_path(system: str, system_scope: bool = False) -> Path:
    folder = system_launcher_dir(system) if system_scope else bin_dir()
    return folder / (LAUNCHER_NAME + ".bat" if system == WINDOWS else LAUNCHER_NAME)


def current_interpreter() -> str:
    return os.path.abspath(sys.executable)


def current_env() -> dict[str, str]:
    """The exported settings as absolute paths (the browser starts the host in another folder)."""
    env = {}
    for name in EXPORTED_ENV:
        value = os.environ.get(name)
        if value:
            env[name] = os.path.abspath(os.path.expanduser(value))
    return env


SYSTEM_NOTE = "Machine-wide: sets no data folder, so each user's host uses that user's own archive and key."


def render(system: str, interpreter: str, env: dict[str, str], system_scope: bool = False) -> str:
    if system_scope:
        env = {}  # never one user's MNEMOSYNE_HOME / MNEMOSYNE_KEY_FILE for every user
    if system == WINDOWS:
        # In a .bat file % starts a variable, so literal percent signs are doubled.
        lines = ["@echo off", "rem Mnemosyne native-messaging host launcher, written by `mnemo install`."]
        lines += [f"rem {SYSTEM_NOTE}"] if system_scope else []
        lines += [f'set "{name}={value.replace("%", "%%")}"' for name, value in env.items()]
        lines.append(f'"{interpreter.replace("%", "%%")}" -m {HOST_MODULE} %*')
        return "\r\n".join(lines) + "\r\n"
    lines = [
        "#!/bin/sh",
        "# Mnemosyne native-messaging host launcher, written by `mnemo install`.",
        "# Run `mnemo install` again after moving or upgrading the Python it names.",
    ]
    lines += [f"# {SYSTEM_NOTE}"] if system_scope else []
    for name, value in env.items():
        lines += [f"{name}={shlex.quote(value)}", f"export {name}"]
    lines.append(f'exec {shlex.quote(interpreter)} -m {HOST_MODULE} "$@"')
    return "\n".join(lines) + "\n"


def write_file_atomic(path: Path, content: bytes, mode: int) -> None:
    """Temp file in the same folder, then os.replace: a reader sees the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(path: Path, text: str, system_scope: bool = False) -> None:
    if system_scope and not path.parent.exists():
        path.parent.mkdir(parents=True, mode=0o755)
        os.chmod(path.parent, 0o755)  # whatever the umask: only root may write the folder
    write_file_atomic(path, text.encode("utf-8"), 0o755)


def parse(text: str) -> tuple[str | None, dict[str, str]]:
    """(interpreter, exported settings) of a launcher we wrote; None when it names no interpreter."""
    match = _POSIX_EXEC.search(text)
    if match:
        words = shlex.split(match.group(1))
        env = {}
        for name, value in _POSIX_VAR.findall(text):
            value_words = shlex.split(value)
            env[name] = value_words[0] if len(value_words) == 1 else value
        return (words[0] if len(words) == 1 else None), env
    match = _BAT_EXEC.search(text)
    if match:
        env = {name: value.replace("%%", "%") for name, value in _BAT_VAR.findall(text)}
        return match.group(1).replace("%%", "%"), env
    return None, {}
