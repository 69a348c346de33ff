"""The archive key: 32 random bytes (os.urandom, the OS CSPRNG that `secrets` wraps; importing
`secrets` would cost hello its random and hmac modules) used as a raw SQLCipher key.

It lives in the OS keyring (service "mnemosyne", user "archive-key"). Machines
without a desktop keyring (headless Linux, WSL, CI) must opt in to a key file
named by MNEMOSYNE_KEY_FILE (created 0600; one that others can read, or a
symlink, is refused with ARCHIVE_KEY_UNSAFE). We never fall back to plaintext and
never prompt: the native host's stdin is the message pipe.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .. import paths
from ..errors import ArchiveError, KeyringUnavailableError, UnsafeKeyFileError

TYPE_CHECKING = False  # typing is not imported on the host's hello path; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any

SERVICE = "mnemosyne"
USERNAME = "archive-key"
KEY_BYTES = 32

NO_KEYRING_HELP = (
    "no usable OS keyring (no Secret Service / Keychain / Credential Manager session). "
    "Start your desktop keyring, or opt in to a key file: export MNEMOSYNE_KEY_FILE=~/.config/mnemosyne/archive.key "
    "(it is created with mode 0600; keep it as safe as the archive), then run `mnemo install` again"
)
# Backends that would prompt on stdin or store the key in plain text.
_REFUSED_BACKENDS = ("keyrings.alt", "keyrings.cryptfile", "keyring.backends.fail", "keyring.backends.null")


def _parse(hex_key: str, where: str) -> bytes:
    try:
        key = bytes.fromhex(hex_key.strip())
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ArchiveError(
            f"the archive key in {where} is not {KEY_BYTES} bytes of hex", code="ARCHIVE_KEY_INVALID"
        )
    return key


def _read_key_file(path: Path) -> bytes:
    """Read the key file, refusing one that is a symlink, not a plain file, or readable by anyone else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if path.is_symlink():
            raise UnsafeKeyFileError(f"the key file {path} is a symbolic link; refusing to use it") from None
        raise ArchiveError(f"cannot read the key file {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeKeyFileError(f"the key file {path} is not a regular file; refusing to use it")
        if os.name == "posix":
            if info.st_uid != os.geteuid():
                raise UnsafeKeyFileError(
                    f"the key file {path} belongs to another user (uid {info.st_uid}); refusing to use it"
                )
            if info.st_mode & 0o077:
                raise UnsafeKeyFileError(
                    f"the key file {path} has mode {stat.S_IMODE(info.st_mode):04o}: others may read it. "
                    f"Check nobody else has, then run: chmod 600 {path}"
                )
        data = fh.read(4096)
    return _parse(data.decode("ascii", errors="replace"), str(path))


def _from_file(path: Path, create: bool) -> bytes | None:
    if path.exists() or path.is_symlink():
        return _read_key_file(path)
    if not create:
        return None
    paths.ensure_private_dir(path.parent)
    key = os.urandom(KEY_BYTES)
    # write a private temp file, then link it into place: a kill never leaves an empty key file,
    # and of two processes creating it at once, the second reads the first one's key.
    # O_EXCL|O_NOFOLLOW and a random name: a planted file or symlink is never written through.
    tmp = path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(key.hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
    except FileExistsError:
        return _read_key_file(path)
    finally:
        tmp.unlink(missing_ok=True)
    return key


def _backend() -> Any:
    import keyring  # costs ~100 ms; only paid when the archive is opened

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if name.startswith(_REFUSED_BACKENDS) or getattr(backend, "priority", 1) <= 0:
        raise KeyringUnavailableError(NO_KEYRING_HELP)
    return backend


def backend_name() -> str:
    try:
        backend = _backend()
    except KeyringUnavailableError:
        return "none"
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _from_keyring(create: bool) -> bytes | None:
    backend = _backend()
    try:
        stored = backend.get_password(SERVICE, USERNAME)
        if stored:
            return _parse(stored, "the OS keyring")
        if not create:
            return None
        key = os.urandom(KEY_BYTES)
        backend.set_password(SERVICE, USERNAME, key.hex())
        return key
    except KeyringUnavailableError:
        raise
    except ArchiveError:
        raise
    except Exception as exc:  # keyring backends raise many types (InitError, PasswordSetError, dbus errors)
        raise KeyringUnavailableError(
            f"the OS keyring refused ({type(exc).__name__}: {exc}); {NO_KEYRING_HELP}"
        ) from None


def load_key(create: bool) -> bytes | None:
    """The archive key, created when `create` (a new archive) and missing."""
    key_file = os.environ.get("MNEMOSYNE_KEY_FILE")
    if key_file:
        return _from_file(Path(key_file).expanduser(), create)
    return _from_keyring(create)


def where() -> str:
    key_file = os.environ.get("MNEMOSYNE_KEY_FILE")
    return f"key file {key_file}" if key_file else "OS keyring"
