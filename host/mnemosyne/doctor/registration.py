"""Doctor checks of the registration: is every manifest ours and pointing at our
launcher, and does the launcher start an interpreter that imports mnemosyne.
Each check says what to fix.

A manifest whose path points elsewhere, or a manifest or launcher that another
user could rewrite (group/world-writable, owned by someone else, in a folder
others can write), is how a local attacker would hijack the channel
(nativemessaging-mitm), so each is a failure, not a warning.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import mnemosyne

from ..errors import InputError
from ..extension_ids import CHROMIUM_EXTENSION_ID, FIREFOX_ADDON_ID, chromium_origin
from ..install import launcher, locations, manifests, ownership, plan, registry
from ..install.locations import CHROMIUM_FAMILY, WINDOWS
from .checks import FAIL, OK, RANK, WARN, Check

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any


def _same_path(a: str | Path, b: str | Path) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _is_executable(path: Path, system: str) -> bool:
    if system == WINDOWS:
        return path.is_file() and path.suffix.lower() in (".bat", ".cmd", ".exe")
    return path.is_file() and os.access(path, os.X_OK)


def _manifest_problems(
    data: dict[str, Any], family: str, manifest: Path, expected: Path, system: str
) -> list[tuple[str, str]]:
    """(status, problem) pairs; empty when the manifest is exactly what install writes."""
    problems: list[tuple[str, str]] = []
    if data.get("name") != manifests.HOST_NAME:
        problems.append((FAIL, f"name is {data.get('name')!r}, expected {manifests.HOST_NAME!r}"))
    if data.get("type") != "stdio":
        problems.append((FAIL, f"type is {data.get('type')!r}, expected 'stdio'"))
    host = data.get("path")
    if not isinstance(host, str) or not host:
        problems.append((FAIL, "has no path"))
    else:
        # Windows allows a path relative to the manifest; Linux and macOS require an absolute one.
        host_path = Path(host) if os.path.isabs(host) or system != WINDOWS else manifest.parent / host
        if not host_path.is_absolute():
            problems.append((FAIL, f"path {host!r} is not absolute"))
        elif not _same_path(host_path, expected):
            problems.append((FAIL, f"path points to {host}, not to our launcher {expected}"))
        elif not _is_executable(host_path, system):
            problems.append((FAIL, f"path {host} is missing or not executable"))
    if family == CHROMIUM_FAMILY:
        origins = data.get("allowed_origins")
        if not isinstance(origins, list) or not origins:
            problems.append((FAIL, "has no allowed_origins"))
        else:
            if any(not isinstance(o, str) or not o.endswith("/") for o in origins):
                problems.append((FAIL, "an allowed_origins entry lacks the trailing '/' Chromium requires"))
            if chromium_origin() not in origins:
                problems.append((FAIL, f"does not allow the Mnemosyne extension {CHROMIUM_EXTENSION_ID}"))
            others = [o for o in origins if o != chromium_origin()]
            if others:
                problems.append((FAIL, f"also allows other extensions: {', '.join(map(str, others))}"))
    else:
        if "allowed_origins" in data:
            problems.append((FAIL, "has allowed_origins, which Firefox rejects in its manifests"))
        allowed = data.get("allowed_extensions")
        if not isinstance(allowed, list) or FIREFOX_ADDON_ID not in allowed:
            problems.append((FAIL, f"allowed_extensions does not list {FIREFOX_ADDON_ID}"))
        elif len(allowed) > 1:
            others = [a for a in allowed if a != FIREFOX_ADDON_ID]
            problems.append((FAIL, f"also allows other add-ons: {', '.join(map(str, others))}"))
    return problems


def _tamper_problems(path: Path, machine_wide: bool) -> list[tuple[str, str]]:
    """Another user could rewrite it: FAIL, whatever it says now."""
    return [(FAIL, p) for p in ownership.problems(path, ownership.trusted_uids(machine_wide=machine_wide))]


def check_manifest(target: plan.Target, system: str) -> Check:
    name = f"manifest: {', '.join(target.browsers)}"
    fix = "run `mnemo install` again to rewrite it"
    try:
        data = manifests.read(target.manifest)
    except InputError as exc:
        return Check(name, FAIL, exc.message, fix)
    expected = launcher.launcher_path(system, target.system_scope)
    problems = _manifest_problems(data, target.family, target.manifest, expected, system)
    problems += _tamper_problems(target.manifest, target.system_scope)
    if not problems:  # the launcher it names is checked by check_launcher; a writable one is a hijack too
        problems += _tamper_problems(expected, target.system_scope)
    if not problems:
        return Check(name, OK, str(target.manifest))
    status = max((s for s, _ in problems), key=RANK.__getitem__)
    return Check(name, status, f"{target.manifest}: " + "; ".join(p for _, p in problems), fix)


def _registered_targets(system: str) -> list[plan.Target]:
    """Windows: the manifests the registry names for our host, user and machine scope."""
    found = []
    for b in locations.BROWSERS.values():
        for system_scope in (False, True):
            root, key = locations.registry_location(b, system_scope=system_scope)
            value = registry.get_manifest_path(root, key)
            if value:
                found.append(
                    plan.Target(b.family, Path(value), (f"{b.label} ({root})",), (root, key), system_scope)
                )
    return plan.merge_targets(found)


def installed_targets(system: str) -> list[plan.Target]:
    """Every manifest of ours that a browser could read: recorded, standard places, registry."""
    candidates = list(plan.read_record())
    if system == WINDOWS:
        candidates = [t for t in candidates if not t.registry] + _registered_targets(system)
    else:
        for system_scope in (False, True):
            for t in plan.standard_targets(
                list(locations.BROWSERS.values()), system, system_scope=system_scope
            ):
                if t.manifest.exists():
                    scope = "system" if system_scope else "user"
                    candidates.append(
                        plan.Target(
                            t.family,
                            t.manifest,
                            tuple(f"{b} ({scope})" for b in t.browsers),
                            system_scope=system_scope,
                        )
                    )
    seen, unique = set(), []
    for t in candidates:
        key = (os.path.normcase(os.path.abspath(t.manifest)), t.registry)
        if key not in seen:
            seen.add(key)
            unique.append(t)
    return unique


def check_manifests(system: str) -> list[Check]:
    targets = installed_targets(system)
    checks = [check_manifest(t, system) for t in targets]
    covered = {entry.split(" (")[0] for t in targets for entry in t.browsers}
    for b in locations.BROWSERS.values():
        if locations.is_present(b, system) and b.label not in covered:
            checks.append(
                Check(
                    f"manifest: {b.label}",
                    WARN,
                    f"{b.label} is installed but has no Mnemosyne host manifest",
                    f"run `mnemo install --browser {b.name}`",
                )
            )
    if not targets:
        checks.append(
            Check(
                "manifests",
                FAIL,
                "no Mnemosyne host manifest is installed for any browser",
                "run `mnemo install` (or `mnemo install --browser chrome`)",
            )
        )
    return checks


def _imports_mnemosyne(interpreter: str) -> str | None:
    """None when the interpreter imports mnemosyne, else why not."""
    try:
        done = subprocess.run(
            [interpreter, "-c", "import mnemosyne.nativehost"],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run {interpreter}: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"{interpreter} cannot import mnemosyne.nativehost ({last})"
    return None


def check_launcher(system: str, system_scope: bool = False) -> Check:
    path = launcher.launcher_path(system, system_scope)
    name = "machine-wide launcher" if system_scope else "launcher"
    fix = "run `mnemo install` again from the Python environment where mnemosyne is installed"
    if system_scope:
        fix = "run `sudo mnemo install --system` again from a root-owned Python"
    if not path.exists():
        return Check(name, FAIL, f"{path} does not exist", fix)
    tampered = ownership.problems(path, ownership.trusted_uids(machine_wide=system_scope))
    if tampered:
        return Check(name, FAIL, "another user could rewrite it: " + "; ".join(tampered), fix)
    if not _is_executable(path, system):
        return Check(name, FAIL, f"{path} is not executable", fix)
    try:
        interpreter, env = launcher.parse(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Check(name, FAIL, f"cannot read {path}: {exc}", fix)
    if not interpreter:
        return Check(name, FAIL, f"{path} was not written by `mnemo install` (no interpreter line)", fix)
    if not Path(interpreter).is_file():
        return Check(name, FAIL, f"{path} starts {interpreter}, which does not exist", fix)
    if system_scope:
        runs = ownership.problems(Path(interpreter), {0})
        runs += ownership.problems(Path(mnemosyne.__file__).resolve().parent, {0})
        if runs:
            return Check(name, FAIL, f"{path} starts code other users can change: " + "; ".join(runs), fix)
    failure = _imports_mnemosyne(interpreter)
    if failure:
        return Check(name, FAIL, failure, fix)
    if system_scope:
        if env:
            return Check(name, FAIL, f"{path} sets {', '.join(env)} for every user", fix)
        return Check(name, OK, f"{path} -> {interpreter}")
    notes = []
    if not _same_path(interpreter, launcher.current_interpreter()):
        notes.append(f"it starts {interpreter}, not this mnemo's {launcher.current_interpreter()}")
    for var, value in launcher.current_env().items():
        if env.get(var) and not _same_path(env[var], value):
            notes.append(f"it sets {var}={env[var]} but this shell has {value}")
        elif not env.get(var):
            notes.append(f"this shell sets {var} but the launcher does not")
    if notes:
        return Check(name, WARN, f"{path}: " + "; ".join(notes), "run `mnemo install` again from this shell")
    return Check(name, OK, f"{path} -> {interpreter}")
