"""Replace secrets and personal contact details with typed placeholders.

One combined regular expression, one pass: at any position the earliest
alternative wins, so specific formats (sk-ant-, sk-proj-) come before general
ones (sk-). Only counts per type leave this module, never the values.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

PLACEHOLDER = "[REDACTED:{}]"

# ASCII word edges: Python's \b treats CJK characters as word characters, so "密钥sk-..." would slip through.
_B = r"(?<![A-Za-z0-9_])"
_E = r"(?![A-Za-z0-9_])"

# (type, pattern); groups are named per alternative so the match tells which one hit.
_PATTERNS: list[tuple[str, str]] = [
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    ("anthropic_key", _B + r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", _B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github_token", _B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    ("aws_access_key", _B + r"(?:AKIA|ASIA)[0-9A-Z]{16}" + _E),
    ("google_api_key", _B + r"AIza[0-9A-Za-z_\-]{35}"),
    ("slack_token", _B + r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", _B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    # AWS secret access keys have no prefix of their own: only a 40-character key near "aws ... secret" counts
    (
        "aws_secret_key",
        r"(?P<aws_head>(?i:" + _B + r"aws)[^\n]{0,30}?(?i:secret)[^\n]{0,30}?)"
        r"(?P<aws_value>(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])"
        r"(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    ),
    ("jwt", _B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # scheme://user:password@host -> only the password is replaced
    (
        "url_password",
        r"(?P<url_head>(?<![A-Za-z0-9+.\-])[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@]{1,128}:)"
        r"(?P<url_pass>[^\s@/]{1,256})(?=@[^\s@]+)",
    ),
    # password = "value", api_key: value ... -> only the value is replaced
    (
        "password_assignment",
        r"(?P<assign_head>(?i:"
        + _B
        + r"(?:password|passwd|pwd|passphrase|secret(?:_key)?|api[_\-]?key|apikey"
        r"|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key|secret[_\-]?access[_\-]?key)"
        + _E
        + r"[\"']?\s*[:=]\s*)[\"']?)"
        r"(?P<assign_value>(?!\[REDACTED)[^\s\"',;)}\]]{4,})",
    ),
    (
        "email",
        r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63})*"
        r"\.[A-Za-z]{2,24}" + _E,
    ),
    (
        "phone",
        r"(?<![A-Za-z0-9_+])(?:\+\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{1,4}(?:[ .\-]?\d{2,4}){2,4}"
        r"|\(\d{3}\)[ .\-]?\d{3}[ .\-]\d{4}|\d{3}[.\-]\d{3}[.\-]\d{4}|1[3-9]\d{9})(?![A-Za-z0-9_])",
    ),
]

REDACTION_TYPES: tuple[str, ...] = tuple(name for name, _ in _PATTERNS)

_COMBINED = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _PATTERNS))
# token formats recognised inside an assignment (api_key = sk-...), so the count names the real type
_TOKEN_NAMES = (
    "anthropic_key",
    "openai_key",
    "github_token",
    "aws_access_key",
    "google_api_key",
    "slack_token",
    "stripe_key",
    "jwt",
)
_TOKEN_TYPES = [(name, re.compile(pattern)) for name, pattern in _PATTERNS if name in _TOKEN_NAMES]
# an unquoted assignment value that is code, not a secret: os.environ["X"], getpass(), None, process.env.KEY
_CODE_VALUE = re.compile(
    r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:[(\[].*)?|None|null|nil|true|false|undefined", re.IGNORECASE
)
_GIT_HOSTS = ("git@",)  # SSH remotes such as git@github.com are addresses of repositories, not of people


def _placeholder(kind: str) -> str:
    return PLACEHOLDER.format(kind)


def _phone_digits_ok(value: str) -> bool:
    digits = sum(ch.isdigit() for ch in value)
    return 10 <= digits <= 15


def _looks_secret(value: str) -> bool:
    """Unquoted values: a token format, or 8+ characters mixing letters with digits or symbols, and not code."""
    if any(rx.fullmatch(value) for _, rx in _TOKEN_TYPES):
        return True
    if _CODE_VALUE.fullmatch(value):
        return False
    has_letter = any(ch.isalpha() for ch in value)
    has_other = any(ch.isdigit() or not ch.isalnum() for ch in value)
    return len(value) >= 8 and has_letter and has_other


@dataclass
class Redactor:
    """Redacts many texts and keeps the running count per type."""

    counts: Counter = field(default_factory=Counter)

    def _replace(self, match: re.Match[str]) -> str:
        kind = match.lastgroup
        if kind is None:  # the named group of a sub-pattern closed last: find the alternative that matched
            kind = next(name for name in REDACTION_TYPES if match.group(name) is not None)
        if kind == "url_password":
            self.counts[kind] += 1
            return match.group("url_head") + _placeholder(kind)
        if kind == "aws_secret_key":
            self.counts[kind] += 1
            return match.group("aws_head") + _placeholder(kind)
        if kind == "password_assignment":
            value = match.group("assign_value")
            quoted = match.group("assign_head").rstrip().endswith(('"', "'"))
            if not quoted and not _looks_secret(value):
                return match.group(0)
            kind = next((name for name, rx in _TOKEN_TYPES if rx.fullmatch(value)), kind)
            self.counts[kind] += 1
            return match.group("assign_head") + _placeholder(kind)
        if kind == "email" and match.group(0).lower().startswith(_GIT_HOSTS):
            return match.group(0)
        if kind == "phone" and not _phone_digits_ok(match.group(0)):
            return match.group(0)
        self.counts[kind] += 1
        return _placeholder(kind)

    def redact(self, text: str) -> str:
        if not text:
            return text
        return _COMBINED.sub(self._replace, text)

    def report(self) -> dict[str, int]:
        return {kind: self.counts[kind] for kind in REDACTION_TYPES if self.counts[kind]}


def redact(text: str) -> tuple[str, dict[str, int]]:
    """The text with secrets replaced, and how many of each type were found."""
    redactor = Redactor()
    return redactor.redact(text), redactor.report()
