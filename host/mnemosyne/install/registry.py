"""Windows registry: the default value of ...\\NativeMessagingHosts\\<host name> is the
manifest's path. HKCU for the user, HKLM for the machine. winreg is imported on
use, so this module loads anywhere and tests can put a fake winreg in sys.modules.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from . import InstallError
from .manifests import HOST_NAME

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any


def _winreg() -> ModuleType:
    try:
        return importlib.import_module("winreg")
    except ImportError:
        raise InstallError("the Windows registry is not available on this system") from None


def _root(winreg: ModuleType, root: str) -> Any:
    return winreg.HKEY_LOCAL_MACHINE if root == "HKLM" else winreg.HKEY_CURRENT_USER


def host_key(key: str) -> str:
    return f"{key}\\{HOST_NAME}"


def set_manifest_path(root: str, key: str, manifest_path: str) -> None:
    winreg = _winreg()
    try:
        with winreg.CreateKeyEx(_root(winreg, root), host_key(key), 0, winreg.KEY_WRITE) as handle:
            winreg.SetValueEx(handle, "", 0, winreg.REG_SZ, manifest_path)
    except OSError as exc:
        raise InstallError(f"cannot write {root}\\{host_key(key)}: {exc}") from None


def get_manifest_path(root: str, key: str) -> str | None:
    winreg = _winreg()
    try:
        with winreg.OpenKey(_root(winreg, root), host_key(key), 0, winreg.KEY_READ) as handle:
            value, _kind = winreg.QueryValueEx(handle, "")
    except OSError:
        return None
    return value if isinstance(value, str) else None


def delete(root: str, key: str) -> bool:
    """Remove our host's key; False when it was not there."""
    winreg = _winreg()
    try:
        winreg.DeleteKey(_root(winreg, root), host_key(key))
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InstallError(f"cannot remove {root}\\{host_key(key)}: {exc}") from None
    return True
