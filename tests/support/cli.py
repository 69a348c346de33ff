"""Running `mnemo` as a user does: a real process, the installed module, a chosen environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def mnemo(
    env: dict[str, str] | None,
    *args: str | Path,
    check: bool = True,
    stdin: str | bytes | None = None,
    cwd: Path | None = None,
    text: bool = True,
    timeout: float = 300,
) -> subprocess.CompletedProcess:
    """`mnemo ARGS` in a subprocess (env None: this process's environment). With `check`, a non-zero exit
    fails the test with the command's stderr; `text=False` gives bytes for byte-exact output checks."""
    argv = [str(a) for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "mnemosyne.cli.main", *argv],
        env=dict(os.environ) if env is None else env,
        input=stdin,
        capture_output=True,
        text=text,
        cwd=cwd,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"mnemo {' '.join(argv)} -> {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done
