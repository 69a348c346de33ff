"""Who may talk to the native host: the ids of Mnemosyne's own extension.

Chromium derives an unpacked extension's id from the "key" in its manifest.json
(first 32 hex digits of sha256 of the DER public key, 0-f spelled a-p), so
pinning the key pins the id that the host manifests allow. The private half of
this key is not in the repository: Chromium needs only the public key to load the
extension, and store builds drop the "key" and get the store's id instead.
Firefox takes the add-on id from browser_specific_settings.gecko.id.
"""

from __future__ import annotations

import base64
import hashlib

CHROMIUM_PUBLIC_KEY = (
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArcr9dZBMIQfS6G7B5Kt4HOJUi0khvB4kaSmDm1Zv/AWNyijX34OSYIh7"
    "H30gqmXxqxLpcmnMtPqFZyi77XK/aaEDFRv1ey0WibLB6Zhirr8saQhjzlG5B/wSnEkMvoYs9YZs3yKYZosVD7+O/8CB+jYROokx"
    "KT5kxPlTagiPEDVRxc+54lPn/I/jCyq0KInnW23OyXbd+c6GhFEcXaxWwwG/1m56gaoFZE8VNbbQGuAF6Bge+RT+12JUYaS3Z86e"
    "Bov5dQCRDOzQN0FQredEc5ZAOIhcLwiPFdAbuUhwCUO4MuHOaSUfXJZIUngFHHLF0c+HL6+Sk3E2AMr/qGGTSQIDAQAB"
)
CHROMIUM_EXTENSION_ID = "daahbnppmeeecgicdbddgnfjiigeoibb"
FIREFOX_ADDON_ID = "mnemosyne@mnemosyne.org"


def chromium_id_from_key(public_key_b64: str) -> str:
    """The extension id Chromium computes from a manifest "key" (base64 DER)."""
    der = base64.b64decode(public_key_b64, validate=True)
    digest = hashlib.sha256(der).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def chromium_origin(extension_id: str = CHROMIUM_EXTENSION_ID) -> str:
    """The allowed_origins entry; the trailing slash is required by Chromium."""
    return f"chrome-extension://{extension_id}/"
