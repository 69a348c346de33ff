"""Error text for the browser without local file paths.

A path names the user (/home/alice, C:\\Users\\alice) and the layout of their
disk; the extension may show an error inside a web page. Replies carry the
code and the message with every local path replaced; the full message stays in
the host log and in `mnemo doctor`."""

from __future__ import annotations

import os
import re

HIDDEN = "<local path>"

# an absolute POSIX path of 2+ segments, a home-relative path, a Windows drive or UNC path;
# not a URL (scheme://host/...), not a fraction or "and/or" (no leading slash).
_PATH = re.compile(
    r"""(?<![\w:/.\-~])(?:~|\$HOME|%\w+%)?/(?:[^\s'"`/<>|]+/)+[^\s'"`/<>|,;:)]*"""
    r"""|(?<![\w])[A-Za-z]:[\\/][^\s'"`<>|,;:]*"""
    r"""|\\\\[^\s\\'"`<>|]+\\[^\s'"`<>|,;]*"""
)


def _known_places() -> list[str]:
    """Folders that hold the user's name, longest first, so the most specific is replaced."""
    places = {os.path.expanduser("~")}
    for name in ("MNEMOSYNE_HOME", "MNEMOSYNE_KEY_FILE", "HOME", "USERPROFILE", "LOCALAPPDATA", "APPDATA"):
        value = os.environ.get(name)
        if value:
            places.add(value)
            places.add(os.path.abspath(os.path.expanduser(value)))
    return sorted((p for p in places if len(p) > 1), key=len, reverse=True)


def without_paths(message: str) -> str:
    for place in _known_places():
        message = message.replace(place, HIDDEN)
    message = _PATH.sub(HIDDEN, message)
    return re.sub(re.escape(HIDDEN) + r"[^\s'\"`,;:)]*", HIDDEN, message)
