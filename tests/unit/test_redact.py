"""Secrets and contact details become typed placeholders; only counts come back."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mnemosyne.prepare.redaction_memo import RedactionMemo
from mnemosyne.redact import Redactor, redact, redact_conversation

# Each value is shaped like the real format (documented example keys, or random-looking strings of the right length).
SECRETS = {
    "openai_key": ["sk-proj-Xb3kLm9QwErTyUiOpAsDfGhJkL1234567890", "sk-4fGh7JkL9mNbVcXzQwErTyUiOp0987654321"],
    "anthropic_key": ["sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1GfEdCbA"],
    "github_token": [
        "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
    ],
    "aws_access_key": ["AKIAIOSFODNN7EXAMPLE"],
    "google_api_key": ["AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"],
    "slack_token": ["xoxb-2048-1024-aBcDeFgHiJkLmNoP"],
    "stripe_key": ["sk_live_4eC39HqLyjWDarjtT1zdp7dc"],
    "jwt": [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    ],
    "email": ["jane.doe@example.co.uk", "ops+alerts@bakery-leeds.com"],
    "phone": ["+44 20 7946 0958", "(555) 123-4567", "555-123-4567", "13812345678"],
}


@pytest.mark.parametrize("kind,value", [(k, v) for k, vs in SECRETS.items() for v in vs])
def test_each_format_is_replaced_by_its_typed_placeholder(kind, value):
    text = f"here it is: {value} - thanks"
    out, counts = redact(text)
    assert value not in out
    assert f"[REDACTED:{kind}]" in out
    assert counts == {kind: 1}
    assert out.startswith("here it is: ") and out.endswith(" - thanks")


def test_pem_block_url_password_and_assignments():
    text = (
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
        "db: postgres://admin:hunter2horse@db.internal:5432/app\n"
        'config: password = "correct horse battery"\n'
        "env: API_KEY=9f8e7d6c5b4a39281706\n"
        "openai: api_key: sk-abcdefghijklmnopqrstuvwxyz123456\n"
    )
    out, counts = redact(text)
    for secret in ("b3BlbnNzaC1rZXkt", "hunter2horse", "correct", "9f8e7d6c5b4a39281706", "sk-abcdef"):
        assert secret not in out
    assert "postgres://admin:[REDACTED:url_password]@db.internal:5432/app" in out
    assert counts == {"private_key": 1, "url_password": 1, "password_assignment": 2, "openai_key": 1}


def test_benign_text_is_left_alone():
    text = (
        "Released 2024-01-15, version 1.2.3; pi is 3.14159 and order 1234567890123 shipped.\n"
        "def risk_score(user_id: int) -> float:  # password handling lives in auth.py\n"
        "See https://example.com/docs?page=2 and the sk- prefix rule; ticket ABC-1234."
    )
    assert redact(text) == (text, {})


def test_counts_accumulate_across_texts_and_never_hold_values():
    r = Redactor()
    r.redact("mail a@b.io")
    r.redact("mail c@d.io and AKIAIOSFODNN7EXAMPLE")
    assert r.report() == {"aws_access_key": 1, "email": 2}
    assert all(isinstance(v, int) for v in r.report().values())


def test_chinese_text_with_a_phone_number():
    out, counts = redact("我的电话是13812345678，邮箱 wang.li@example.cn，有事联系。")
    assert out == "我的电话是[REDACTED:phone]，邮箱 [REDACTED:email]，有事联系。"
    assert counts == {"email": 1, "phone": 1}


def test_secrets_glued_to_chinese_text_are_found_whole():
    out, counts = redact("密钥sk-proj-abcdefghijklmnopqrstuvwx，邮箱wang.li@example.cn")
    assert out == "密钥[REDACTED:openai_key]，邮箱[REDACTED:email]"
    assert counts == {"openai_key": 1, "email": 1}


def test_code_and_repository_addresses_are_not_secrets():
    benign = [
        'password = os.environ["DB_PASSWORD"]',
        "password = getpass.getpass()",
        "api_key = None",
        "const apiKey = process.env.API_KEY;",
        "git clone git@github.com:simonw/llm.git",
        "Enter your password: field is required",
    ]
    for text in benign:
        assert redact(text) == (text, {}), text


def test_aws_secret_access_keys_are_found_by_their_context():
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    for text in (
        f"aws_secret_access_key = {key}",
        f'"SecretAccessKey": "{key}"',
        f"my aws secret key is {key}",
    ):
        out, counts = redact(text)
        assert key not in out and sum(counts.values()) == 1, (text, out)


def test_context_kept_around_bearer_azure_and_env_values():
    text = (
        "Authorization: Bearer 9xQ2mK7vL4pT8sN3wR6yB1cF5gJ0dZe\n"
        "AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"
        "EndpointSuffix=core.windows.net\n"
        "export AWS_DB_PASSWORD=Tr0ub4dor-and-3\n"
    )
    out, counts = redact(text)
    assert out == (
        "Authorization: Bearer [REDACTED:bearer_token]\n"
        "AccountName=acme;AccountKey=[REDACTED:azure_account_key];EndpointSuffix=core.windows.net\n"
        "export AWS_DB_PASSWORD=[REDACTED:password_assignment]\n"
    )
    assert counts == {"azure_account_key": 1, "bearer_token": 1, "password_assignment": 1}


@pytest.mark.parametrize(
    "number,is_card",
    [
        ("4539 1488 0343 6467", True),  # Visa, Luhn-valid
        ("4539 1488 0343 6468", False),  # one digit off
        ("5555-5555-5555-4444", True),  # Mastercard test number
        ("378282246310005", True),  # Amex test number
        ("1234567812345670", False),  # Luhn-valid, but no card network starts with 1...
        ("4539 1488-0343 6467", False),  # mixed separators: not how a card is written
    ],
)
def test_card_numbers_need_a_network_prefix_and_the_luhn_check(number, is_card):
    out, counts = redact(f"pay with {number} today")
    assert (counts == {"card_number": 1}) is is_card and (number not in out) is is_card


def test_a_bearer_token_of_a_known_format_is_counted_as_that_format():
    out, counts = redact("Authorization: Bearer ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ")
    assert out == "Authorization: Bearer [REDACTED:github_token]" and counts == {"github_token": 1}


def _full_expression_redact(text: str) -> tuple[str, dict[str, int]]:
    """The reference: every alternative in one expression, as before the per-text narrowing."""
    import re

    from mnemosyne import redact as module

    full = re.compile("|".join(f"(?P<{n}>{p})" for n, p in module._PATTERNS))
    redactor = Redactor()
    return full.sub(redactor._replace, text), redactor.report()


FRAGMENTS = [v for vs in SECRETS.values() for v in vs] + [
    "password = 'hunter2hunter2'",
    "API_KEY=Zq8x7Yw6Vv5u",
    "aws secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Authorization: Bearer abcdef1234567890XYZ",
    "postgres://admin:s3cr3t@db.example.com/app",
    "AccountKey=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg=",
    "4111 1111 1111 1111",
    "123-45-6789",
    "glpat-abcdefghij0123456789",
    "token: none",
    "the key to the 12 doors",
    "秘密sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1GfEdCbA",
    "电话13812345678",
    "git@github.com:me/repo.git",
    " ",
    "\n",
    "; ",
    "=",
    "plain words and 2026 numbers",
]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=8), st.lists(st.text(max_size=6), max_size=8))
@settings(max_examples=400, deadline=None)
def test_narrowing_to_the_alternatives_a_text_could_hold_changes_nothing(pieces, noise):
    """Built from only the alternatives a text could match, the expression redacts exactly as the
    expression with every alternative does (same text, same counts)."""
    text = "".join(p + n for p, n in zip(pieces, noise + [""] * len(pieces)))
    redactor = Redactor()
    assert (redactor.redact(text), redactor.report()) == _full_expression_redact(text)


def _searches(monkeypatch) -> list[str]:
    """The texts Redactors search from now on (the others come from a memo)."""
    searched: list[str] = []
    original = Redactor._pattern_for
    monkeypatch.setattr(
        Redactor, "_pattern_for", lambda self, text: searched.append(text) or original(self, text)
    )
    return searched


def test_a_text_redacted_again_comes_from_the_memo_with_the_same_text_and_counts(monkeypatch):
    """A host redacts the same conversation for every context: the second time nothing is searched, and the
    text and the count per type are the same as the first time."""
    texts = [
        "mail me at ada@example.org or call +1 415 555 0134",
        "nothing secret here",
        "api_key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123'",
        "mail me at ada@example.org or call +1 415 555 0134",  # the same text twice in one conversation
    ]
    memo = RedactionMemo()
    first = Redactor(memo=memo)
    out_first = [first.redact(t) for t in texts]
    searched = _searches(monkeypatch)
    second = Redactor(memo=memo)
    out_second = [second.redact(t) for t in texts]
    assert searched == []
    assert out_second == out_first and "ada@example.org" not in "".join(out_second)
    assert second.report() == first.report() == {"openai_key": 1, "email": 2, "phone": 2}


def test_redaction_keeps_nothing_between_calls_without_a_memo(monkeypatch):
    """Redaction itself holds no texts: without a memo a text redacted before is searched again."""
    text = "mail me at ada@example.org"
    assert redact(text) == ("mail me at [REDACTED:email]", {"email": 1})
    searched = _searches(monkeypatch)
    assert redact(text) == ("mail me at [REDACTED:email]", {"email": 1})
    assert searched == [text]


def test_the_memo_holds_at_most_its_bound_of_characters():
    memo = RedactionMemo(max_chars=1_000)
    for n in range(50):
        Redactor(memo=memo).redact(f"text number {n} " + "x" * 90)
    assert memo.chars <= 1_000 and sum(map(len, memo.texts())) == memo.chars
    assert f"text number 49 {'x' * 90}" in memo and f"text number 0 {'x' * 90}" not in memo


def test_the_memo_holds_only_the_texts_of_the_conversation_a_host_turns_to():
    from conversation_samples import linear
    from mnemosyne.redact import free_texts

    kept = linear([("user", "mail ada@example.org"), ("assistant", "noted")])
    other = linear([("user", "call +1 415 555 0134")])
    memo = RedactionMemo()
    for conv in (kept, other):
        redact_conversation(conv, memo=memo)
    memo.hold_only(free_texts(kept))
    assert "mail ada@example.org" in memo and "noted" in memo
    assert "call +1 415 555 0134" not in memo
    assert memo.chars == sum(map(len, memo.texts()))


def test_warming_stops_between_messages_and_keeps_what_it_redacted(monkeypatch):
    """A host redacts a saved conversation ahead of its context a slice of messages at a time, and stops as
    soon as a request waits: what it did is not done again by the context's own redaction."""
    import mnemosyne.redact as R
    from conversation_samples import linear

    memo = RedactionMemo()
    conv = linear([("user", f"mail{n}@example.org") for n in range(6)])
    asked = [0]

    def keep_going() -> bool:
        asked[0] += 1
        return asked[0] <= 2  # asked before each slice of messages: a request arrives after two

    monkeypatch.setattr(R, "WARM_MESSAGES", 1)

    assert R.warm(conv, keep_going, memo) is False
    searched = _searches(monkeypatch)
    redacted, redactor = R.redact_conversation(conv, memo=memo)
    assert [t for t in searched if t.startswith("mail")] == [f"mail{n}@example.org" for n in range(2, 6)]
    assert redactor.report() == {"email": 6}
    assert all("example.org" not in m.parts[0].text for m in redacted.messages)


def _needs_alone(text: str) -> set[str]:
    """What one text could match, worked out for it alone (as Redactor.redact does without screening)."""
    from mnemosyne.redact_needs import needs_of

    return set(needs_of(text))


def _needs_screened(redactor: Redactor, text: str) -> set[str]:
    return set(redactor._screened[text])


# characters that lower() lengthens (İ), that match a keyword's letter case-blind (ſ, K), and the separator
EDGES = ["İ", "ſ", "\u212a", "\x00", "\u00a0", "é", "🙂", "sk", "-", "gl", "_", ":"]


@given(
    st.lists(
        st.lists(st.sampled_from(FRAGMENTS + EDGES) | st.text(max_size=5), max_size=6).map("".join),
        min_size=2,
        max_size=12,
    )
)
@settings(max_examples=300, deadline=None)
def test_a_conversations_texts_screened_at_once_are_redacted_as_each_alone(texts):
    """The needs of many texts worked out in one search of their joined text per need: each text keeps at
    least what it could match alone, and is redacted exactly as the expression with every alternative does."""
    screened = Redactor()
    screened.screen(texts)
    for text in dict.fromkeys(t for t in texts if t):
        assert _needs_alone(text) <= _needs_screened(screened, text), text
    redactor = Redactor()
    for text in texts:
        assert (redactor.redact(text), Redactor().redact(text)) == (_full_expression_redact(text)[0],) * 2


def test_on_real_chat_text_screening_finds_exactly_the_needs_of_each_text(fixtures):
    """On a real export's texts (and secrets planted in some), screening gives each text the same needs as
    looking at it alone: nothing more to search, nothing less."""
    import json

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | dict):
            for v in value.values() if isinstance(value, dict) else value:
                yield from strings(v)

    texts = [
        text
        for folder in ("interop_sharegpt", "claude_export", "chatgpt_export", "chatgpt_api")
        for path in sorted((fixtures / folder).glob("*.json"))
        for text in strings(json.loads(path.read_text(encoding="utf-8")))
        if len(text) >= 20
    ]
    texts += [f"{t} {FRAGMENTS[i % len(FRAGMENTS)]}" for i, t in enumerate(texts[::7])]
    assert len(texts) > 1000
    redactor = Redactor()
    redactor.screen(texts)
    assert all(_needs_alone(t) == _needs_screened(redactor, t) for t in texts)
    assert (
        sum(1 for t in texts if _needs_screened(redactor, t)) > 10
    )  # secrets planted: some texts do need a search


# the characters phone numbers, social security numbers and assignments are made of, and the edges
NUMBER_PIECES = ["0", "1", "3", "9", "123", "456", "7890", "13", "-", ".", "+", "(", ")", " ", "\n", "\x00"]
ASSIGNMENT_PIECES = ["password", "PassWd", "paſſphrase", "pwd", "Secret", "KEY", "toKen", "'", '"', ":", "="]
ASSIGNMENT_PIECES += ["İ"]  # lower() lengthens it: the joined text's positions shift


@given(
    st.lists(
        st.lists(st.sampled_from(NUMBER_PIECES + ASSIGNMENT_PIECES), max_size=16).map("".join),
        min_size=1,
        max_size=6,
    )
)
@example(["12-45-6789", "123-45-6789", "x123-456-7890", "55.123.4567", "555-123.4567", "555.123-4567"])
@example(["(123)", "(12)", "+1", "+ 1", "13812345678", "12812345678", "pass word=", "password =", "key:"])
@settings(max_examples=600, deadline=None)
def test_the_joined_texts_search_finds_each_texts_numbers_and_assignments_as_its_own_search(texts):
    """needs_of_many looks for phone numbers, social security numbers and password assignments with
    expressions of its own (each opens with one character, for speed): each text gets exactly the needs
    its own search with the need's expression finds."""
    from mnemosyne.redact_needs import needs_of, needs_of_many

    assert needs_of_many(texts) == [needs_of(t) for t in texts]


def test_texts_searched_a_window_at_a_time_get_the_needs_of_their_own_search(monkeypatch):
    """needs_of_many joins a window of texts per search (a whole conversation joined took 4 bytes a
    character once an emoji was in it): windows of any size give each text its own needs."""
    from mnemosyne import redact_needs

    texts = ["mail me: a@b.c 🙂", "", "call +1 555", "nothing here", "password = hunter2", "sk-abc", "x" * 40]
    texts += [f"{t} and token: {n}" for n, t in enumerate(texts)]
    own = [redact_needs.needs_of(t) for t in texts]
    for window in (1, 8, 30, 100, 10_000):
        monkeypatch.setattr(redact_needs, "JOIN_CHARS", window)
        assert redact_needs.needs_of_many(texts) == own
    assert redact_needs.needs_of_many([]) == []
