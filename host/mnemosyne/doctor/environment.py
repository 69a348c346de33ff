"""Doctor checks of what the host needs besides its registration: the keyring that
holds the archive key, the archive itself, and the tokenizer files. Each module
is imported inside its check, so a broken one becomes a failed check, not a traceback.
"""

from __future__ import annotations

import os

from ..errors import MnemosyneError
from ..paths import archive_path
from .checks import FAIL, OK, WARN, Check

KEY_FILE_FIX = (
    "start your desktop keyring, or opt in to a key file: export MNEMOSYNE_KEY_FILE=~/.config/mnemosyne/archive.key "
    "(created 0600 on first use), then run `mnemo install` again so the browser's host uses it too"
)


def check_keyring() -> Check:
    key_file = os.environ.get("MNEMOSYNE_KEY_FILE")
    if key_file:
        path = os.path.abspath(os.path.expanduser(key_file))
        if os.path.exists(path) and os.stat(path).st_mode & 0o077:
            return Check(
                "keyring", WARN, f"MNEMOSYNE_KEY_FILE={path} is readable by other users", f"chmod 600 {path}"
            )
        state = "exists" if os.path.exists(path) else "will be created on first save"
        return Check(
            "keyring", OK, f"using the key file MNEMOSYNE_KEY_FILE={path} ({state}), not the OS keyring"
        )
    try:
        import keyring

        from ..archive import keys  # (see the module)
    except Exception as exc:  # an ImportError or a backend that breaks at import time
        return Check(
            "keyring",
            FAIL,
            f"cannot load the keyring: {type(exc).__name__}: {exc}",
            "reinstall mnemosyne (pip install mnemosyne) to get the keyring package",
        )
    try:
        backend = keyring.get_keyring()
    except Exception as exc:
        return Check("keyring", FAIL, f"no keyring backend: {type(exc).__name__}: {exc}", KEY_FILE_FIX)
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if keys.backend_name() == "none":
        # fail.Keyring means no desktop keyring; plaintext or stdin-prompting backends are refused too.
        return Check("keyring", FAIL, f"no usable OS keyring (backend {name})", KEY_FILE_FIX)
    return Check("keyring", OK, f"backend {name} ({getattr(backend, 'name', name)})")


def check_archive() -> Check:
    path = archive_path()
    if not path.exists():
        return Check("archive", OK, f"{path} does not exist yet; the first save creates it")
    try:
        from ..archive import open_archive  # (see the module)

        with open_archive(create=False) as arc:
            stats = arc.stats()
    except MnemosyneError as exc:
        return Check("archive", FAIL, f"{path}: {exc.message} [{exc.code}]", _archive_fix(exc.code))
    except Exception as exc:  # a damaged file or a driver error must still give a report
        return Check(
            "archive",
            FAIL,
            f"{path}: {type(exc).__name__}: {exc}",
            "check the file; restore it from a backup if it is damaged",
        )
    return Check(
        "archive",
        OK,
        f"{path}: {stats.get('conversations', 0)} conversations, {stats.get('messages', 0)} messages",
    )


def _archive_fix(code: str) -> str:
    if code == "KEYRING_UNAVAILABLE":
        return KEY_FILE_FIX
    if code in ("ARCHIVE_KEY_MISMATCH", "ARCHIVE_KEY_MISSING", "ARCHIVE_KEY_INVALID"):
        return (
            "the archive needs the key it was created with: restore it in the OS keyring or MNEMOSYNE_KEY_FILE; "
            "nothing was changed"
        )
    return "see the message above; the archive was not modified"


def check_tokenizer() -> Check:
    """tokens.files_status(): {"dir", "files": {name: {"path", "present", "valid"}}, "ok", "error"?}."""
    fix = "run `mnemo install` again (it copies the tokenizer files into the cache)"
    try:
        from .. import tokens  # (see the module)

        status = tokens.files_status()
    except Exception as exc:  # a broken tokens module must not stop the other checks
        return Check("tokenizer", FAIL, f"cannot check the tokenizer files: {type(exc).__name__}: {exc}", fix)
    files = status.get("files", {})
    if status.get("ok"):
        return Check("tokenizer", OK, f"{', '.join(files)} ready in {status.get('dir')}")
    bad = [
        f"{name} ({'invalid' if info.get('present') else 'missing'})"
        for name, info in files.items()
        if not (info.get("present") and info.get("valid"))
    ]
    why = "; ".join(filter(None, [", ".join(bad), status.get("error")])) or "the tokenizer does not load"
    # The host still works without them: token counts become estimates (bytes/4).
    return Check("tokenizer", WARN, f"{why}; token counts fall back to estimates", fix)
