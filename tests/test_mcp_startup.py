"""`mnemo mcp` imports only the SDK modules its low-level server uses, and the whole SDK when the SDK's
packages are not laid out as expected: either way the server module loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HOST = Path(__file__).resolve().parent.parent / "host"

LEAN = """
import sys
from mnemosyne.mcpserver import startup
startup.import_lean()
from mnemosyne.mcpserver import server
assert server.Server is not None
print("client" if "mcp.client" in sys.modules else "lean")
"""

# another SDK layout: `mcp.server` is no package the lean import can register
OTHER_LAYOUT = (
    """
import importlib.util
found = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "mcp.server" else found(name, *a)
"""
    + LEAN
)


def run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HOST), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_server_loads_without_the_sdk_client():
    assert run(LEAN) == "lean"


def test_another_sdk_layout_imports_the_whole_sdk():
    assert run(OTHER_LAYOUT) == "client"
