"""`mnemo doctor` and the host's `doctor` action: is Mnemosyne registered with the browsers
(registration.py: manifests, launcher), can the host work (environment.py: keyring, archive,
tokenizer files), and which MCP clients run `mnemo mcp` (mcp_entries.py). checks.py is what both return, so neither imports the other.
"""

from __future__ import annotations

from ..install import launcher, locations
from . import environment  # (its checks import the heavier modules inside them: see environment.py)
from .checks import FAIL, OK, WARN, Check
from .mcp_entries import check_clients
from .registration import check_launcher, check_manifests, installed_targets

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FAIL", "OK", "WARN", "Check", "check_launcher", "check_manifests", "report", "run_checks"]


def run_checks() -> list[Check]:
    system = locations.current_os()
    checks = check_manifests(system)
    checks.append(check_launcher(system))
    machine_wide = any(t.system_scope for t in installed_targets(system))
    if machine_wide or launcher.launcher_path(system, True).exists():
        checks.append(check_launcher(system, system_scope=True))
    checks += [environment.check_keyring(), environment.check_archive(), environment.check_tokenizer()]
    checks += check_clients(system)
    return checks


def report() -> dict[str, Any]:
    """What the native host's `doctor` action returns."""
    checks = run_checks()
    return {"ok": all(c.status != FAIL for c in checks), "checks": [c.as_dict() for c in checks]}
