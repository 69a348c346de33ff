"""Replace secrets and personal contact details with typed placeholders.

One combined regular expression, one pass: at any position the earliest
alternative wins, so specific formats (sk-ant-, sk-proj-) come before general
ones (sk-). Only counts per type leave this module, never the values.

Redaction keeps nothing between calls: a caller that redacts the same texts again hands a Redactor the memo
it owns (prepare/redaction_memo.py, held by a host's Caches), where texts redacted before are found.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from .redact_needs import NEEDS, needs_of, needs_of_many

if TYPE_CHECKING:
    from pydantic import BaseModel  # (at run time only where parts are walked: recall redacts plain texts)

    from .model import Conversation

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
    (
        "gitlab_token",
        _B + r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z.]{2,})?",
    ),
    ("huggingface_token", _B + r"(?:hf_|api_org_)[A-Za-z0-9]{30,}" + _E),
    ("npm_token", _B + r"npm_[A-Za-z0-9]{36}" + _E),
    ("sendgrid_key", _B + r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}"),
    ("google_oauth_secret", _B + r"GOCSPX-[A-Za-z0-9_\-]{24,40}"),
    # Azure storage / Service Bus connection strings: only the key is replaced
    (
        "azure_account_key",
        r"(?P<azure_head>(?i:" + _B + r"(?:AccountKey|SharedAccessKey)\s*=\s*))"
        r"(?P<azure_value>[A-Za-z0-9+/]{30,}={0,2})",
    ),
    # Authorization: Bearer <token>; "the bearer of bad news" has no token-shaped word after it
    (
        "bearer_token",
        r"(?P<bearer_head>(?i:" + _B + r"bearer)\s+)"
        r"(?P<bearer_value>(?=[A-Za-z0-9\-._~+/]*[0-9])(?=[A-Za-z0-9\-._~+/]*[A-Za-z])[A-Za-z0-9\-._~+/]{16,}=*)",
    ),
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
        + r"(?:[A-Za-z0-9]+[_.\-])*(?:password|passwd|pwd|passphrase|secret(?:_key)?|api[_\-]?key|apikey"
        r"|access[_\-]?token|auth[_\-]?token|client[_\-]?secret|private[_\-]?key|secret[_\-]?access[_\-]?key)"
        + _E
        + r"[\"']?\s*[:=]\s*)[\"']?)"
        r"(?P<assign_value>(?!\[REDACTED)[^\s\"',;)}\]]{4,})",
    ),
    # 13-19 digits, whole or in groups; kept unless a card brand's prefix and the Luhn check both hold
    ("card_number", r"(?<![0-9\-.])[2-6](?:[ \-]?[0-9]){12,18}(?![0-9]|[\-.][0-9])"),
    # US SSN, dashed: area 001-899 but not 666, group 01-99, serial 0001-9999
    (
        "us_ssn",
        r"(?<![0-9\-.])(?!000|666|9[0-9][0-9])[0-9]{3}-(?!00)[0-9]{2}-(?!0000)[0-9]{4}(?![0-9]|[\-.][0-9])",
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

assert tuple(NEEDS) == REDACTION_TYPES  # the same order: at one position, the first alternative wins

# a text's redaction: the redacted text and the count per type found in it
Redacted = tuple[str, tuple[tuple[str, int], ...]]


class Memo(Protocol):
    """Texts redacted before, with their redactions (prepare/redaction_memo.py RedactionMemo)."""

    def get(self, text: str) -> Redacted | None: ...
    def put(self, text: str, done: Redacted) -> None: ...
    def __contains__(self, text: object) -> bool: ...


@lru_cache(maxsize=256)  # a few combinations recur; compiling one takes longer than most texts' search
def _combined(active: tuple[str, ...]) -> re.Pattern[str]:
    """The one expression of the alternatives `active`, in their order."""
    patterns = dict(_PATTERNS)
    return re.compile("|".join(f"(?P<{n}>{patterns[n]})" for n in active))


# token formats recognised inside an assignment (api_key = sk-...), so the count names the real type
_TOKEN_NAMES = (
    "anthropic_key",
    "openai_key",
    "github_token",
    "aws_access_key",
    "google_api_key",
    "slack_token",
    "stripe_key",
    "gitlab_token",
    "huggingface_token",
    "npm_token",
    "sendgrid_key",
    "google_oauth_secret",
    "jwt",
)
_TOKEN_TYPES = [(name, re.compile(pattern)) for name, pattern in _PATTERNS if name in _TOKEN_NAMES]
# an unquoted assignment value that is code, not a secret: os.environ["X"], getpass(), None, process.env.KEY
_CODE_VALUE = re.compile(
    r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:[(\[].*)?|None|null|nil|true|false|undefined", re.IGNORECASE
)
# a value that stands for a secret instead of being one: ${VAR}, $VAR, %VAR%, <password>, {{ secret }}, ***, xxxx
_PLACEHOLDER_VALUE = re.compile(r"[$%<{*]|(?i:x{3,}|\.{3}|your[_\-]|changeme$|example$|redacted)")
# an environment-style assignment head: upper-case name, "=", no spaces or quotes
_ENV_HEAD = re.compile(r"[A-Z][A-Z0-9_.\-]*=")
_GIT_HOSTS = ("git@",)  # SSH remotes such as git@github.com are addresses of repositories, not of people


# alternatives whose leading context ("aws secret: ", "AccountKey=", "Bearer ") stays and only the value goes
_HEAD_KEPT = {"aws_secret_key": "aws_head", "azure_account_key": "azure_head", "bearer_token": "bearer_head"}
_CARD_SEPARATORS = re.compile(r"[ \-]")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_brand_ok(digits: str) -> bool:
    """A prefix and length some card network issues (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay)."""
    n, two, four = len(digits), int(digits[:2]), int(digits[:4])
    return (
        (digits[0] == "4" and n in (13, 16, 19))
        or ((51 <= two <= 55 or 2221 <= four <= 2720) and n == 16)
        or (two in (34, 37) and n == 15)
        or ((digits.startswith(("6011", "65")) or 644 <= int(digits[:3]) <= 649) and n in (16, 19))
        or (3528 <= four <= 3589 and n == 16)
        or ((300 <= int(digits[:3]) <= 305 or two in (36, 38, 39)) and n in (14, 16))
        or (digits.startswith("62") and n in (16, 19))
    )


def is_card_number(text: str) -> bool:
    """Card-shaped: one kind of separator at most, a card brand's prefix and length, and a valid Luhn digit."""
    if " " in text and "-" in text:
        return False
    digits = _CARD_SEPARATORS.sub("", text)
    return 13 <= len(digits) <= 19 and _card_brand_ok(digits) and _luhn_ok(digits)


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


def free_texts(conv: Conversation) -> set[str]:
    """Every free text of `conv` redact_conversation redacts (what a memo holds of it)."""
    texts = set(_texts_of(part for msg in conv.messages for part in msg.parts))
    texts.update(x for ins in conv.instructions for x in (ins.text, ins.title) if x)
    texts.update(msg.author for msg in conv.messages if msg.author)
    texts.add(conv.title or "")
    texts.add(conv.source.project or "")
    return texts


@dataclass
class Redactor:
    """Redacts many texts and keeps the running count per type; with a `memo`, a text redacted before is
    read from it, and each text redacted now is put there."""

    counts: Counter[str] = field(default_factory=Counter)
    memo: Memo | None = None
    # What each text about to be redacted could match, worked out for all of them at once (screen,
    # redact_needs.needs_of_many), until the next screen.
    _screened: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def screen(self, texts: Iterable[str]) -> None:
        """What each of `texts` not redacted yet could match, worked out at once ahead of their redaction
        (only the texts about to be redacted are held)."""
        memo = self.memo
        todo = [t for t in dict.fromkeys(texts) if t and (memo is None or t not in memo)]
        self._screened = dict(zip(todo, needs_of_many(todo)))

    def _pattern_for(self, text: str) -> re.Pattern[str] | None:
        """The combined expression of the alternatives `text` could match; None when it could match none."""
        active = self._screened.get(text)
        if active is None:
            active = needs_of(text)
        return _combined(active) if active else None

    def _replace(self, match: re.Match[str]) -> str:
        kind = match.lastgroup
        if kind is None:  # the named group of a sub-pattern closed last: find the alternative that matched
            groups = match.re.groupindex
            kind = next(name for name in REDACTION_TYPES if name in groups and match.group(name) is not None)
        if kind == "url_password":
            self.counts[kind] += 1
            return match.group("url_head") + _placeholder(kind)
        if kind in _HEAD_KEPT:
            if kind == "bearer_token":  # "Bearer ghp_..." counts as the token's own type
                value = match.group("bearer_value")
                kind = next((name for name, rx in _TOKEN_TYPES if rx.fullmatch(value)), kind)
                self.counts[kind] += 1
                return match.group("bearer_head") + _placeholder(kind)
            self.counts[kind] += 1
            return match.group(_HEAD_KEPT[kind]) + _placeholder(kind)
        if kind == "card_number" and not is_card_number(match.group(0)):
            return match.group(0)
        if kind == "password_assignment":
            value = match.group("assign_value")
            head = match.group("assign_head")
            quoted = head.rstrip().endswith(('"', "'"))
            if _PLACEHOLDER_VALUE.match(value) or value.endswith(("...", "…")):  # "sk-ant-..." is elided
                return match.group(0)
            if _ENV_HEAD.fullmatch(head):  # NAME_PASSWORD=value (shell, .env): the value is literal, not code
                if len(value) < 6:
                    return match.group(0)
            elif not quoted and not _looks_secret(value):
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
        memo = self.memo
        done = None if memo is None else memo.get(text)
        if done is None:
            rx = self._pattern_for(text)
            if rx is None:
                done = (text, ())
            else:
                found = Redactor()
                done = (rx.sub(found._replace, text), tuple(found.counts.items()))
            if memo is not None:
                memo.put(text, done)
        for kind, n in done[1]:
            self.counts[kind] += n
        return done[0]

    def redact_all(self, texts: list[str]) -> list[str]:
        """`redact` of each of `texts`, what each could match worked out for all of them at once (screen):
        2,000 texts of 1 MB took 46,000 searches one at a time."""
        self.screen(texts)
        return [self.redact(text) for text in texts]

    def report(self) -> dict[str, int]:
        return {kind: self.counts[kind] for kind in REDACTION_TYPES if self.counts[kind]}


def redact(text: str, memo: Memo | None = None) -> tuple[str, dict[str, int]]:
    """The text with secrets replaced, and how many of each type were found."""
    redactor = Redactor(memo=memo)
    return redactor.redact(text), redactor.report()


# the free-text fields of a message part (a name too: an attachment's file name is the user's, as is a tool's
# a site lets anyone name); ids, roles, types, languages and MIME types are structure, not text
_PART_TEXT_FIELDS = frozenset(
    {
        "text",
        "code",
        "extracted_text",
        "output",
        "summary",
        "content",
        "title",
        "snippet",
        "arguments",
        "raw",
        "name",
    }
)


def _map_value(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_value(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map_value(v, fn) for k, v in value.items()}
    return value


def _map_part(part: BaseModel, fn: Callable[[str], str]) -> BaseModel:
    """`part` (a message part, or a citation in one) with `fn` applied to each of its free texts: the same
    object when none changes, else a copy with the changed fields. Walks the models' fields as they are:
    dumping a conversation to JSON and validating it back cost more than the redaction of its texts."""
    from pydantic import BaseModel  # (see the imports: recall redacts plain texts)

    changed: dict[str, Any] = {}
    for key, value in part.__dict__.items():
        if key in _PART_TEXT_FIELDS:
            new = _map_value(value, fn)
        elif isinstance(value, list) and value and isinstance(value[0], BaseModel):  # citations
            new = [_map_part(v, fn) if isinstance(v, BaseModel) else v for v in value]
        else:
            continue
        if new != value:
            changed[key] = new
    return part.model_copy(update=changed) if changed else part


def _texts_of(parts: Iterable[BaseModel]) -> list[str]:
    texts: list[str] = []

    def kept(text: str) -> str:
        texts.append(text)
        return text

    for part in parts:
        _map_part(part, kept)
    return texts


def redact_conversation(
    conv: Conversation, redactor: Redactor | None = None, memo: Memo | None = None
) -> tuple[Conversation, Redactor]:
    """A copy of `conv` with every free text redacted: the title, the project, the instructions (their titles: a
    project's or a document's name), and every message's author and texts (an attachment's name among them).

    The one redaction policy for everything that leaves the archive: context, get (copy, export, download),
    `mnemo show/export/convert --redact`. The copy shares the messages and parts that hold no secret with
    `conv` (models are not changed in place once read). `memo`: where the texts redacted before are (unless
    `redactor` is given: its own memo)."""
    redactor = redactor or Redactor(memo=memo)
    update: dict[str, Any] = {}
    if conv.title:
        update["title"] = redactor.redact(conv.title)
    update["instructions"] = [
        ins.model_copy(
            update={"text": redactor.redact(ins.text), "title": ins.title and redactor.redact(ins.title)}
        )
        for ins in conv.instructions
    ]
    if conv.source.project:
        update["source"] = conv.source.model_copy(update={"project": redactor.redact(conv.source.project)})
    redactor.screen(_texts_of(part for msg in conv.messages for part in msg.parts))
    messages = []
    for msg in conv.messages:
        parts = [_map_part(part, redactor.redact) for part in msg.parts]
        author = redactor.redact(msg.author) if msg.author else msg.author
        changed = any(new is not old for new, old in zip(parts, msg.parts))
        if changed or author != msg.author:
            msg = msg.model_copy(update={"parts": parts, "author": author})
        messages.append(msg)
    update["messages"] = messages
    return conv.model_copy(update=update), redactor


def merge_reports(*reports: dict[str, int]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for report in reports:
        total.update(report)
    return {kind: total[kind] for kind in REDACTION_TYPES if total[kind]}


WARM_MESSAGES = 100  # messages screened and redacted between two looks at keep_going (~50 KB: ~3 ms)


def warm(conv: Conversation, keep_going: Callable[[], bool], memo: Memo | None = None) -> bool:
    """Redact the message texts of `conv` into `memo` ahead of a redact_conversation (a host does it after a
    save's reply), WARM_MESSAGES at a time, stopping when `keep_going()` says so; whether it got through.
    Without a memo there is nothing to keep the redactions in: nothing is done."""
    if memo is None:
        return True
    redactor = Redactor(memo=memo)
    messages = conv.messages
    for start in range(0, len(messages), WARM_MESSAGES):
        if not keep_going():
            return False
        parts = [part for m in messages[start : start + WARM_MESSAGES] for part in m.parts]
        redactor.screen(_texts_of(parts))
        for part in parts:
            _map_part(part, redactor.redact)
    return True
