"""What each kind of secret redaction knows cannot be matched without (redact.py builds, for a text, the
combined expression of only the kinds it could hold), for one text or for a conversation's texts at once."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

# What each alternative cannot match without: substrings of the text (or of its lower-cased form when
# the alternative's words are case-blind), or a short expression found in it. The combined expression
# tries every alternative at every position (0.6-0.8 us a character on real chats); built from only the
# alternatives a text could hold it gives the same matches (an alternative that matches nowhere never
# wins a position), several times faster.
Need = tuple[tuple[str, ...], bool] | re.Pattern[str]
_DIGITS_13 = re.compile(r"[0-9](?:[ \-]?[0-9]){12}")
NEEDS: dict[str, Need] = {
    "private_key": (("-----BEGIN",), False),
    "anthropic_key": (("sk-ant-",), False),
    "openai_key": (("sk-",), False),
    "github_token": re.compile(r"gh[pousr]_|github_pat_"),
    "aws_access_key": (("AKIA", "ASIA"), False),
    "google_api_key": (("AIza",), False),
    "slack_token": (("xox",), False),
    "stripe_key": (("_live_", "_test_"), False),
    # (the prefix with its dash: "gl" alone is in a fifth of English messages, "English", "glad", "single")
    "gitlab_token": re.compile(r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-"),
    "huggingface_token": (("hf_", "api_org_"), False),
    "npm_token": (("npm_",), False),
    "sendgrid_key": (("SG.",), False),
    "google_oauth_secret": (("GOCSPX-",), False),
    "azure_account_key": (("accountkey", "sharedaccesskey"), True),
    "bearer_token": (("bearer",), True),
    "aws_secret_key": (("aws",), True),
    "jwt": (("eyJ",), False),
    "url_password": (("://",), False),
    # every keyword ends in one of these, and the value follows ":" or "="
    "password_assignment": re.compile(r"(?i:pass(?:word|wd|phrase)|pwd|secret|key|token)[\"']?\s*[:=]"),
    "card_number": _DIGITS_13,
    "us_ssn": re.compile(r"[0-9]{3}-[0-9]{2}-[0-9]{4}"),
    "email": (("@",), False),
    "phone": re.compile(r"\+[0-9]|\([0-9]{3}\)|[0-9]{3}[.\-][0-9]{3}[.\-][0-9]{4}|1[3-9][0-9]{9}"),
}


def _could_match(need: Need, text: str, lower: str) -> bool:
    if isinstance(need, re.Pattern):
        return need.search(text) is not None
    needles, folded = need
    return any(needle in (lower if folded else text) for needle in needles)


# What each text of a conversation could match, worked out for all its texts at once (needs_of_many): one
# search of their joined text per need instead of one per text and need (2,000 texts of 1 MB: 104 ms of
# 46,000 searches -> ~70 ms), the case-blind keywords of an assignment looked for in lower-cased text (the
# case-blind search was a third of it).
_SEPARATOR = "\x00"  # no need matches it, so a need's match lies inside one text
# The expressions needs_of_many searches the joined text with, where they are faster than NEEDS' own:
# name -> (expressions, whether they search the lower-cased text). A text holds a match of one of them
# exactly when it holds a match of the need's expression; each opens with one character (the case-blind
# keywords of an assignment in lower-cased text, a phone number's "+", "(" or separator, the dashes of a
# social security number), which the regex engine finds by a fast scan for that character instead of
# trying every alternative at every position (1 MB of chat: 100 -> ~20 ms).
_DIGIT_SEP = "(?<=[0-9]{3}[.\\-])[0-9]{3}[.\\-][0-9]{4}"  # after the first separator of 123.456.7890
_JOINED_NEEDS: dict[str, tuple[tuple[re.Pattern[str], ...], bool]] = {
    "password_assignment": (
        tuple(
            re.compile(f"{word}[\"']?\\s*[:=]")
            for word in ("pass(?:word|wd|phrase)", "pwd", "secret", "key", "token")
        ),
        True,
    ),
    "us_ssn": ((re.compile(r"-[0-9]{2}-(?<=[0-9]{3}-[0-9]{2}-)[0-9]{4}"),), False),
    "phone": (
        (
            re.compile(r"\+[0-9]"),
            re.compile(r"\([0-9]{3}\)"),
            re.compile(r"\." + _DIGIT_SEP),
            re.compile(r"-" + _DIGIT_SEP),
            re.compile(r"1[3-9][0-9]{9}"),
        ),
        False,
    ),
}


def _folded(text: str) -> str:
    # lower() folds what a case-blind ASCII match folds, but for the long s, which matches "s" case-blind
    return text.lower().replace("\u017f", "s")


def _texts_with(found: Callable[[int], tuple[int, int] | None], starts: list[int]) -> list[int]:
    """The texts (by position) holding a match, given `found(pos)`: the next match's (start, end) from pos."""
    out: list[int] = []
    pos = 0
    while (span := found(pos)) is not None:
        first = bisect_right(starts, span[0]) - 1
        last = bisect_right(starts, max(span[0], span[1] - 1)) - 1
        out.extend(range(first, last + 1))
        if last + 1 == len(starts):
            break
        pos = starts[last + 1]  # the rest of this text is known: on to the next one
    return out


def _regex_span(rx: re.Pattern[str], hay: str) -> Callable[[int], tuple[int, int] | None]:
    def found(pos: int) -> tuple[int, int] | None:
        m = rx.search(hay, pos)
        return None if m is None else m.span()

    return found


def _needle_span(needle: str, hay: str) -> Callable[[int], tuple[int, int] | None]:
    def found(pos: int) -> tuple[int, int] | None:
        at = hay.find(needle, pos)
        return None if at < 0 else (at, at + len(needle))

    return found


def _starts(texts: list[str]) -> list[int]:
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + len(_SEPARATOR)
    return starts


def needs_of(text: str) -> tuple[str, ...]:
    """The kinds `text` could match, in NEEDS' order."""
    lower = text.lower()
    return tuple(name for name, need in NEEDS.items() if _could_match(need, text, lower))


# Texts joined per search, in characters: a conversation's whole text joined took 4 bytes a character as
# soon as one emoji was in it (its lower-cased copy too: 39 MB at the peak of a 5 MB conversation's first
# redacted context); a window of texts costs a search per kind each, not per text.
JOIN_CHARS = 1 << 20


def needs_of_many(texts: list[str]) -> list[tuple[str, ...]]:
    """needs_of for each of `texts`, worked out a window of texts at a time (about JOIN_CHARS characters):
    one search of their joined text per kind."""
    out: list[tuple[str, ...]] = []
    start = size = 0
    for end, text in enumerate(texts):
        if size and size + len(text) > JOIN_CHARS:
            out += _needs_of_joined(texts[start:end])
            start, size = end, 0
        size += len(text) + len(_SEPARATOR)
    return out + _needs_of_joined(texts[start:]) if start < len(texts) else out


def _needs_of_joined(texts: list[str]) -> list[tuple[str, ...]]:
    """needs_of for each of `texts` (at least one), by one search of their joined text per kind."""
    folded = [_folded(t) for t in texts]
    hay, folded_hay = _SEPARATOR.join(texts), _SEPARATOR.join(folded)
    starts, folded_starts = _starts(texts), _starts(folded)  # (lower() may lengthen a text: İ -> i̇)
    active: list[list[str]] = [[] for _ in texts]
    for name, need in NEEDS.items():
        if name in _JOINED_NEEDS:
            expressions, blind = _JOINED_NEEDS[name]
            where, at = (folded_hay, folded_starts) if blind else (hay, starts)
            hits = [i for rx in expressions for i in _texts_with(_regex_span(rx, where), at)]
        elif isinstance(need, re.Pattern):
            hits = _texts_with(_regex_span(need, hay), starts)
        else:
            needles, blind = need
            where, at = (folded_hay, folded_starts) if blind else (hay, starts)
            hits = [i for needle in needles for i in _texts_with(_needle_span(needle, where), at)]
        for i in dict.fromkeys(hits):
            active[i].append(name)
    return [tuple(names) for names in active]
