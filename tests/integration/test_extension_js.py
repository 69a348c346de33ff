"""The extension's JavaScript checks, run from pytest so the README's test command covers them:
the committed content-script bundles are what the pinned esbuild makes from the sources, eslint passes
(its rules forbid HTML-parsing and eval sinks, and imports across layers), tsc type-checks the JSDoc-typed
sources (tsconfig.json: checkJs; every relative import must resolve), and the JS unit tests (`node --test`: Markdown pairs, DOM sweep, targets, transcript, MESSAGES.md) pass.

They need Node.js and `npm ci` in extension/ (the test job, .ci/test-job, does both). Without them these
tests fail and say so: a check that silently skips could hide a stale bundle.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[2] / "extension"


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js is missing: install it (apt-get install nodejs npm), then `cd extension && npm ci`"
    assert (EXT / "node_modules" / "esbuild").is_dir(), (
        "extension tools are missing: run `cd extension && npm ci`"
    )
    return found


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=EXT, capture_output=True, text=True, timeout=300)


def test_committed_bundles_are_what_the_sources_build(node):
    result = run(node, "build.mjs", "--check")
    assert result.returncode == 0, result.stderr + result.stdout


def test_eslint_passes_on_the_extension(node):
    result = run(node, str(EXT / "node_modules" / "eslint" / "bin" / "eslint.js"), ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_tsc_type_checks_the_extension(node):
    result = run(node, str(EXT / "node_modules" / "typescript" / "bin" / "tsc"), "-p", ".")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_js_unit_tests_pass(node):
    files = sorted(str(p.relative_to(EXT)) for p in (EXT / "test").glob("*.test.mjs"))
    assert len(files) >= 5, files
    result = run(node, "--test", *files)
    print(result.stdout[-3000:])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass " in result.stdout
