"""Who may talk to the native host: the ids of Mnemosyne's own extension.

Chromium derives an unpacked extension's id from the "key" in its manifest.json
(first 32 hex digits of sha256 of the DER public key, 0-f spelled a-p), so
pinning the key pins the id that the host manifests allow. The private half of
this key is not in the repository: Chromium needs only the public key to load the
extension, and store builds drop the "key" and get the store's id instead.
Firefox takes the add-on id from browser_specific_settings.gecko.id.
"""

from __future__ import annotations

CHROMIUM_PUBLIC_KEY = (
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArcr9dZBMIQfS6G7B5Kt4HOJUi0khvB4kaSmDm1Zv/AWNyijX34OSYIh7"
    "H30gqmXxqxLpcmnMtPqFZyi77XK/aaEDFRv1ey0WibLB6Zhirr8saQhjzlG5B/wSnEkMvoYs9YZs3yKYZosVD7+O/8CB+jYROokx"
    "KT5kxPlTagiPEDVRxc+54lPn/I/jCyq0KInnW23OyXbd+c6GhFEcXaxWwwG/1m56gaoFZE8VNbbQGuAF6Bge+RT+12JUYaS3Z86e"
    "Bov5dQCRDOzQN0FQredEc5ZAOIhcLwiPFdAbuUhwCUO4MuHOaSUfXJZIUngFHHLF0c+HL6+Sk3E2AMr/qGGTSQIDAQAB"
)
CHROMIUM_EXTENSION_ID = "daahbnppmeeecgicdbddgnfjiigeoibb"
FIREFOX_ADDON_ID = "mnemosyne@mnemosyne.org"


def chromium_id_from_key(public_key_b64: str) -> str:
    """The extension id Chromium computes from a manifest "key" (base64 DER). Used by install and tests;
    the host's caller check compares against CHROMIUM_EXTENSION_ID, so its start-up imports no hashing."""
    import base64
    import hashlib  # (see the docstring)

    der = base64.b64decode(public_key_b64, validate=True)
    digest = hashlib.sha256(der).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def chromium_origin(extension_id: str = CHROMIUM_EXTENSION_ID) -> str:
    """The allowed_origins entry; the trailing slash is required by Chromium."""
    return f"chrome-extension://{extension_id}/"


_ORIGIN_SCHEMES = ("chrome-extension://", "moz-extension://")


def allowed_callers() -> frozenset[str]:
    return frozenset({chromium_origin(CHROMIUM_EXTENSION_ID), FIREFOX_ADDON_ID})


def caller_id(argv: list[str]) -> str | None:
    """Who started the host, from its arguments; None when no browser did (the CLI, tests).

    Chromium passes the caller origin first (then --parent-window=N on Windows). Firefox passes the
    manifest path, then the add-on id, email-like (name@domain) or a GUID in braces ({…}): whatever
    stands second is taken as the caller, so an id of any shape is checked (the check fails closed)."""
    origin = next((a for a in argv if a.startswith(_ORIGIN_SCHEMES)), None)
    if origin is not None:
        return origin
    if len(argv) >= 2 and not argv[1].startswith("--parent-window="):
        return argv[1]
    return None


def is_allowed_caller(argv: list[str]) -> bool:
    caller = caller_id(argv)
    return caller is None or caller in allowed_callers()
