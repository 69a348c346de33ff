"""What `mnemo install` writes and `mnemo uninstall` removes.

A Target is one manifest file (and, on Windows, the registry key pointing at it).
Install records what it wrote in the data folder (install.json), so uninstall and
doctor also find manifests written for a custom --user-data-dir profile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..paths import data_dir
from . import launcher, locations, manifests, registry
from .locations import CHROMIUM_FAMILY, WINDOWS, Browser

TYPE_CHECKING = False  # typing stays out of start-up; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

ALL = "all"


@dataclass(frozen=True)
class Target:
    family: str
    manifest: Path
    browsers: tuple[str, ...]  # labels, for the summary
    registry: tuple[str, str] | None = None  # (HKCU|HKLM, key) on Windows
    system_scope: bool = False

    def describe(self) -> str:
        where = f"{self.registry[0]}\\{registry.host_key(self.registry[1])} -> " if self.registry else ""
        return f"{where}{self.manifest} ({', '.join(self.browsers)})"


def record_path() -> Path:
    return data_dir() / "install.json"


def select_browsers(choice: str, system: str) -> list[Browser]:
    if choice != ALL:
        return [locations.browser(choice)]
    return [b for b in locations.BROWSERS.values() if locations.is_present(b, system)]


def merge_targets(targets: list[Target]) -> list[Target]:
    """One entry per (manifest, registry key); browsers sharing it are listed together."""
    merged: dict[tuple[Path, tuple[str, str] | None], Target] = {}
    for t in targets:
        key = (t.manifest, t.registry)
        old = merged.get(key)
        browsers = old.browsers + tuple(b for b in t.browsers if b not in old.browsers) if old else t.browsers
        merged[key] = Target(t.family, t.manifest, browsers, t.registry, t.system_scope)
    return list(merged.values())


def standard_targets(browsers: list[Browser], system: str, *, system_scope: bool) -> list[Target]:
    targets = []
    for b in browsers:
        if system == WINDOWS:
            manifest = locations.windows_manifest_dir(b.family) / manifests.FILE_NAME
            reg = locations.registry_location(b, system_scope=system_scope)
            targets.append(Target(b.family, manifest, (b.label,), reg, system_scope))
            continue
        for folder in locations.manifest_dirs(b, system, system_scope=system_scope):
            targets.append(Target(b.family, folder / manifests.FILE_NAME, (b.label,), None, system_scope))
    return merge_targets(targets)


def profile_target(choice: str, user_data_dir: Path, system: str, *, system_scope: bool) -> Target:
    if system_scope:
        raise InputError("--user-data-dir names one profile of one user; it cannot be combined with --system")
    if system == WINDOWS:
        raise InputError("on Windows browsers find hosts only through the registry; drop --user-data-dir")
    chosen = locations.browser("chromium" if choice == ALL else choice)
    if chosen.family != CHROMIUM_FAMILY:
        raise InputError(f"--user-data-dir is for Chromium-family profiles, not {chosen.label}")
    folder = locations.profile_manifest_dir(user_data_dir)
    return Target(CHROMIUM_FAMILY, folder / manifests.FILE_NAME, (f"{chosen.label} profile {folder.parent}",))


def install_targets(
    choice: str, system: str, *, system_scope: bool, user_data_dir: Path | None
) -> list[Target]:
    if user_data_dir is not None:
        return [profile_target(choice, user_data_dir, system, system_scope=system_scope)]
    browsers = select_browsers(choice, system)
    if not browsers:
        raise InputError(
            "no supported browser profile folder found; name one with --browser (e.g. --browser chrome)"
        )
    return standard_targets(browsers, system, system_scope=system_scope)


def write_target(target: Target, launcher_file: Path) -> None:
    manifests.write(target.manifest, manifests.render(target.family, launcher_file))
    if target.registry:
        registry.set_manifest_path(target.registry[0], target.registry[1], str(target.manifest))


def remove_target(target: Target, keep_files: set[Path]) -> bool:
    """Remove the registry key and the manifest file; keep a file another kept key still uses."""
    removed = False
    if target.registry:
        removed = registry.delete(*target.registry)
    if target.manifest not in keep_files and target.manifest.exists():
        target.manifest.unlink()
        removed = True
    return removed


# --- the install record -------------------------------------------------------


def _to_json(t: Target) -> dict[str, Any]:
    return {
        "family": t.family,
        "manifest": str(t.manifest),
        "browsers": list(t.browsers),
        "registry": list(t.registry) if t.registry else None,
        "system": t.system_scope,
    }


def read_record() -> list[Target]:
    try:
        data = json.loads(record_path().read_text("utf-8"))
        return [
            Target(
                d["family"],
                Path(d["manifest"]),
                tuple(d["browsers"]),
                tuple(d["registry"]) if d["registry"] else None,
                bool(d.get("system")),
            )
            for d in data["targets"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        # A missing or damaged record only means uninstall and doctor fall back to the standard places.
        return []


def write_record(targets: list[Target]) -> None:
    path = record_path()
    if not targets:
        path.unlink(missing_ok=True)
        return
    text = json.dumps({"targets": [_to_json(t) for t in merge_targets(targets)]}, indent=2) + "\n"
    launcher.write_file_atomic(path, text.encode("utf-8"), 0o644)


def recorded_plus(targets: list[Target]) -> list[Target]:
    return merge_targets(read_record() + targets)


def recorded_minus(targets: list[Target]) -> list[Target]:
    gone = {(t.manifest, t.registry) for t in targets}
    return [t for t in read_record() if (t.manifest, t.registry) not in gone]
