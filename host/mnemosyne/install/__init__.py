"""Registering the native host with browsers: `mnemo install` and `uninstall`.

locations: where each browser looks, per OS and scope. launcher: the script that
pins the interpreter. manifests: templates, rendering, atomic writes. registry:
Windows. plan: what install writes and uninstall removes. The checks of what
these write are in mnemosyne.doctor.
"""

from ..errors import MnemosyneError


class InstallError(MnemosyneError):
    """A manifest, launcher or registry key could not be written or removed.
    Only the CLI raises it; it never travels in a native-messaging reply."""

    code = "INSTALL_FAILED"
