"""Running `mnemo`: as a user does (`mnemo`: a real process, a chosen environment), or in this process
through `main(argv)` (`run_cli`: the fast tier, for commands whose process boundary is not under test)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock


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


def run_cli(
    env: dict[str, str] | None,
    *args: str | Path,
    check: bool = True,
    stdin: str | bytes | None = None,
    cwd: Path | None = None,
    text: bool = True,
) -> subprocess.CompletedProcess:
    """`mnemo ARGS` in this process through `main(argv)` (the fast tier): the same result as `mnemo()`,
    with `env` as the whole environment for the call (None: this process's) and stdout/stderr captured,
    as text or, with `text=False`, as the bytes a process would have written (`convert` writes bytes)."""
    from mnemosyne.cli.main import main

    argv = [str(a) for a in args]
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin or b""
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", write_through=True)
    with (
        mock.patch.dict(os.environ, env or {}, clear=env is not None),
        mock.patch("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")),
        redirect_stdout(out),
        redirect_stderr(err),
        contextlib.chdir(cwd or Path.cwd()),
    ):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help, bad arguments
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out.flush()
        err.flush()
    stdout, stderr = out_bytes.getvalue(), err_bytes.getvalue()
    done = subprocess.CompletedProcess(
        ["mnemo", *argv],
        code,
        stdout.decode("utf-8") if text else stdout,
        stderr.decode("utf-8") if text else stderr,
    )
    if check and code != 0:
        raise AssertionError(
            f"mnemo {' '.join(argv)} -> {code}\n{stdout.decode(errors='replace')}\n{stderr.decode(errors='replace')}"
        )
    return done
