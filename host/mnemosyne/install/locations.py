"""Where each browser looks for native-messaging host manifests, per OS and scope.

Linux and macOS read a manifest file from fixed folders; Windows reads the
manifest's path from a registry key (HKCU for the user, HKLM for the machine), so
there the manifest itself lives in our data folder. Chromium-family browsers keep
user-level hosts inside their user-data-dir, which is why a custom
`--user-data-dir` profile needs its own `DIR/NativeMessagingHosts`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..paths import data_dir

LINUX, MACOS, WINDOWS = "linux", "macos", "windows"
CHROMIUM_FAMILY, FIREFOX_FAMILY = "chromium", "firefox"


@dataclass(frozen=True)
class Browser:
    name: str  # the --browser value
    label: str
    family: str  # which manifest template it takes
    linux_config: str  # user config folder; under XDG_CONFIG_HOME for the Chromium family
    macos_support: str  # folder under ~/Library/Application Support (its NativeMessagingHosts)
    windows_data: str  # folder under %LOCALAPPDATA% (Chromium) or %APPDATA% (Firefox family), '/'-separated
    windows_key: str  # registry key, under HKCU or HKLM, holding one subkey per host
    linux_system: tuple[str, ...] = ()
    macos_system: str | None = None


BROWSERS: dict[str, Browser] = {
    b.name: b
    for b in (
        Browser(
            "chrome",
            "Google Chrome",
            CHROMIUM_FAMILY,
            "google-chrome",
            "Google/Chrome",
            "Google/Chrome/User Data",
            r"Software\Google\Chrome\NativeMessagingHosts",
            ("/etc/opt/chrome/native-messaging-hosts",),
            "/Library/Google/Chrome/NativeMessagingHosts",
        ),
        Browser(
            "chromium",
            "Chromium",
            CHROMIUM_FAMILY,
            "chromium",
            "Chromium",
            "Chromium/User Data",
            r"Software\Chromium\NativeMessagingHosts",
            ("/etc/chromium/native-messaging-hosts",),
            "/Library/Application Support/Chromium/NativeMessagingHosts",
        ),
        Browser(
            "edge",
            "Microsoft Edge",
            CHROMIUM_FAMILY,
            "microsoft-edge",
            "Microsoft Edge",
            "Microsoft/Edge/User Data",
            r"Software\Microsoft\Edge\NativeMessagingHosts",
            ("/etc/opt/edge/native-messaging-hosts",),
            "/Library/Microsoft/Edge/NativeMessagingHosts",
        ),
        # Brave and Vivaldi on Windows read Chrome's registry key (as KeePassXC's installer relies on).
        Browser(
            "brave",
            "Brave",
            CHROMIUM_FAMILY,
            "BraveSoftware/Brave-Browser",
            "BraveSoftware/Brave-Browser",
            "BraveSoftware/Brave-Browser/User Data",
            r"Software\Google\Chrome\NativeMessagingHosts",
            ("/etc/opt/brave/native-messaging-hosts",),
            "/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        ),
        Browser(
            "vivaldi",
            "Vivaldi",
            CHROMIUM_FAMILY,
            "vivaldi",
            "Vivaldi",
            "Vivaldi/User Data",
            r"Software\Google\Chrome\NativeMessagingHosts",
            ("/etc/opt/vivaldi/native-messaging-hosts",),
            "/Library/Application Support/Vivaldi/NativeMessagingHosts",
        ),
        Browser(
            "firefox",
            "Firefox",
            FIREFOX_FAMILY,
            ".mozilla",
            "Mozilla",
            "Mozilla/Firefox",
            r"Software\Mozilla\NativeMessagingHosts",
            ("/usr/lib/mozilla/native-messaging-hosts", "/usr/lib64/mozilla/native-messaging-hosts"),
            "/Library/Application Support/Mozilla/NativeMessagingHosts",
        ),
        Browser(
            "librewolf",
            "LibreWolf",
            FIREFOX_FAMILY,
            ".librewolf",
            "LibreWolf",
            "LibreWolf",
            r"Software\LibreWolf\NativeMessagingHosts",
            ("/usr/lib/librewolf/native-messaging-hosts", "/usr/lib64/librewolf/native-messaging-hosts"),
            "/Library/Application Support/LibreWolf/NativeMessagingHosts",
        ),
    )
}


# Where `mnemo install --system` puts the launcher every user's browser starts: root-owned, outside any home.
SYSTEM_LAUNCHER_DIRS = {
    LINUX: "/usr/local/lib/mnemosyne",
    MACOS: "/Library/Application Support/Mnemosyne",
}


def system_launcher_dir(system: str) -> Path:
    if system == WINDOWS:
        return _windows_dir("ProgramData", r"C:\ProgramData") / "Mnemosyne"
    return Path(SYSTEM_LAUNCHER_DIRS[system])


def current_os() -> str:
    """linux, macos or windows; the BSDs use the Linux layout. Tests monkeypatch this."""
    if sys.platform == "darwin":
        return MACOS
    if sys.platform.startswith(("win", "cygwin")):
        return WINDOWS
    return LINUX


def browser(name: str) -> Browser:
    try:
        return BROWSERS[name]
    except KeyError:
        raise InputError(f"unknown browser {name!r}; choose from {', '.join(BROWSERS)}") from None


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _xdg_config_home() -> Path:
    value = os.environ.get("XDG_CONFIG_HOME")
    return Path(value) if value and os.path.isabs(value) else _home() / ".config"


def _windows_dir(variable: str, fallback: str) -> Path:
    value = os.environ.get(variable)
    return Path(value) if value else _home() / fallback


def config_dirs(b: Browser, system: str) -> list[Path]:
    """Folders whose presence means the browser is used on this machine."""
    if system == LINUX:
        if b.family == CHROMIUM_FAMILY:
            return [_xdg_config_home() / b.linux_config]
        return [_home() / b.linux_config]
    if system == MACOS:
        support = _home() / "Library" / "Application Support"
        extra = [support / "Firefox"] if b.name == "firefox" else []
        return [support / b.macos_support, *extra]
    if b.family == CHROMIUM_FAMILY:
        return [_windows_dir("LOCALAPPDATA", "AppData/Local") / b.windows_data]
    return [_windows_dir("APPDATA", "AppData/Roaming") / b.windows_data]


def is_present(b: Browser, system: str) -> bool:
    return any(d.is_dir() for d in config_dirs(b, system))


def manifest_dirs(b: Browser, system: str, *, system_scope: bool) -> list[Path]:
    """Folders the browser reads a manifest from (empty on Windows: it uses the registry)."""
    if system == WINDOWS:
        return []
    if system_scope:
        if system == LINUX:
            return [Path(p) for p in b.linux_system]
        return [Path(b.macos_system)] if b.macos_system else []
    if system == LINUX:
        sub = "NativeMessagingHosts" if b.family == CHROMIUM_FAMILY else "native-messaging-hosts"
        return [config_dirs(b, system)[0] / sub]
    return [_home() / "Library" / "Application Support" / b.macos_support / "NativeMessagingHosts"]


def profile_manifest_dir(user_data_dir: Path) -> Path:
    """A Chromium profile started with --user-data-dir reads user-level hosts here."""
    return Path(user_data_dir).expanduser().absolute() / "NativeMessagingHosts"


def windows_manifest_dir(family: str) -> Path:
    """On Windows the manifest may live anywhere; the registry value points at it."""
    return data_dir() / "native-messaging" / family


def registry_location(b: Browser, *, system_scope: bool) -> tuple[str, str]:
    """(root, key) of the registry key whose default value is the manifest's path."""
    return ("HKLM" if system_scope else "HKCU"), b.windows_key
