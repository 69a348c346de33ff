"""Realistic fake secrets (right prefixes, lengths and alphabets) in the
places people paste them, and ordinary technical text that holds none."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


def _s(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    head = _b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    body = _b64url(
        json.dumps(
            {
                "sub": str(rng.randrange(10**9)),
                "name": "Jane Doe",
                "iat": 1516239022,
                "exp": 1900000000 + rng.randrange(10**6),
            }
        ).encode()
    )
    return f"{head}.{body}.{_b64url(rng.randbytes(rng.choice([32, 256])))}"


def _pem(rng: random.Random) -> tuple[str, str]:
    label = rng.choice(
        ["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]
    )
    body = base64.b64encode(rng.randbytes(rng.choice([121, 1190, 1700]))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----", body[:64]


# type -> function(rng) -> (secret as pasted, the part that must disappear)
def generators():
    return {
        "openai sk-proj": lambda r: (
            k := "sk-proj-" + _s(r, URLSAFE, 74) + "T3BlbkFJ" + _s(r, URLSAFE, 74),
            k,
        ),
        "openai sk- (legacy)": lambda r: (k := "sk-" + _s(r, ALNUM, 20) + "T3BlbkFJ" + _s(r, ALNUM, 20), k),
        "openai sk-svcacct": lambda r: (k := "sk-svcacct-" + _s(r, URLSAFE, 156), k),
        "anthropic sk-ant-api03": lambda r: (k := "sk-ant-api03-" + _s(r, URLSAFE, 93) + "AA", k),
        "github ghp_": lambda r: (k := "ghp_" + _s(r, ALNUM, 36), k),
        "github github_pat_": lambda r: (
            k := "github_pat_11" + _s(r, string.ascii_uppercase + string.digits, 20) + "_" + _s(r, ALNUM, 59),
            k,
        ),
        "github gho_/ghs_": lambda r: (k := r.choice(["gho_", "ghs_", "ghu_"]) + _s(r, ALNUM, 36), k),
        "aws access key id": lambda r: (
            k := r.choice(["AKIA", "ASIA"]) + _s(r, string.ascii_uppercase + "234567", 16),
            k,
        ),
        "aws secret access key": lambda r: (k := _s(r, B64, 40), k),
        "google AIza": lambda r: (k := "AIza" + _s(r, URLSAFE, 35), k),
        "slack xoxb-": lambda r: (
            k := f"xoxb-{r.randrange(10**11, 10**12)}-{r.randrange(10**12, 10**13)}-{_s(r, ALNUM, 24)}",
            k,
        ),
        "stripe sk_live_": lambda r: (
            k := r.choice(["sk_live_", "rk_live_"]) + _s(r, ALNUM, r.choice([24, 99])),
            k,
        ),
        "jwt": lambda r: (k := _jwt(r), k),
        "pem private key": _pem,
        "password in url": lambda r: _url_password(r),
        "gitlab glpat-": lambda r: (k := "glpat-" + _s(r, URLSAFE, 20), k),
        "huggingface hf_": lambda r: (k := "hf_" + _s(r, string.ascii_letters, 34), k),
        "npm npm_": lambda r: (k := "npm_" + _s(r, ALNUM, 36), k),
        "sendgrid SG.": lambda r: (k := "SG." + _s(r, URLSAFE, 22) + "." + _s(r, URLSAFE, 43), k),
        "google oauth GOCSPX-": lambda r: (k := "GOCSPX-" + _s(r, URLSAFE, 28), k),
        "azure AccountKey=": _azure,
        "bearer token": lambda r: (
            k := _s(r, URLSAFE, 12) + r.choice("0123456789") + _s(r, URLSAFE + ".~", 30),
            k,
        ),
        "NAME_PASSWORD= assignment": lambda r: (
            k := _s(r, ALNUM, 1) + _s(r, ALNUM + "!#^*-_", r.randrange(7, 24)),
            k,
        ),
        "card number (Luhn)": _card,
        "us ssn": _ssn,
    }


def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def card(rng: random.Random, valid: bool = True) -> str:
    """A Visa, Mastercard, Amex or Discover number with a valid (or, for near misses, a wrong) check digit."""
    prefix, length = rng.choice(
        [("4", 16), ("4", 13), ("5" + str(rng.randrange(1, 6)), 16), ("37", 15), ("6011", 16)]
    )
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    check = _luhn_digit(body)
    if not valid:
        check = str((int(check) + rng.randrange(1, 10)) % 10)
    return body + check


def _card(rng: random.Random) -> tuple[str, str]:
    digits = card(rng)
    style = rng.choice(["plain", "spaced", "dashed"])
    if style == "plain" or len(digits) != 16:
        return digits, digits
    sep = " " if style == "spaced" else "-"
    return sep.join(digits[i : i + 4] for i in range(0, 16, 4)), digits[-8:]


def _ssn(rng: random.Random) -> tuple[str, str]:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    ssn = f"{area:03d}-{rng.randrange(1, 100):02d}-{rng.randrange(1, 10000):04d}"
    return ssn, ssn


def _azure(rng: random.Random) -> tuple[str, str]:
    key = base64.b64encode(rng.randbytes(64)).decode()
    account = rng.choice(["acmeprod", "stdata01", "contosologs"])
    return (
        f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={key};EndpointSuffix=core.windows.net",
        key[:40],
    )


def _url_password(rng: random.Random) -> tuple[str, str]:
    password = _s(rng, ALNUM + "!$^*~-_", rng.randrange(10, 32))
    user = rng.choice(["admin", "postgres", "app_user", "deploy", "root"])
    template = rng.choice(
        [
            "postgres://{u}:{p}@db.internal.example.com:5432/app",
            "postgresql://{u}:{p}@10.0.3.17/prod",
            "mongodb+srv://{u}:{p}@cluster0.ab1cd.mongodb.net/test?retryWrites=true",
            "mysql://{u}:{p}@localhost:3306/shop",
            "redis://:{p}@cache.example.com:6379/0",
            "https://{u}:{p}@git.example.com/team/repo.git",
            "amqp://{u}:{p}@rabbit:5672/%2f",
        ]
    )
    return template.format(u=user, p=password), password


CONTEXTS = {
    "default": [
        "Here is my key {} and it keeps failing with 401, why?",
        "export API_KEY={}",
        'API_KEY="{}"',
        'config = {{"token": "{}"}}',
        "Authorization: Bearer {}",
        "I pasted `{}` into the settings page.",
        "client = Client(key='{}')",
        "(key: {}).",
        "{}",
    ],
    "aws secret access key": [
        "aws_secret_access_key = {}",
        "AWS_SECRET_ACCESS_KEY={}",
        'export AWS_SECRET_ACCESS_KEY="{}"',
        '"SecretAccessKey": "{}",',
        "my aws secret key is {}",
    ],
    "pem private key": ["Here is the key file:\n{}\nWhy does ssh reject it?", "```\n{}\n```", "{}"],
    "password in url": ["DATABASE_URL={}", 'conn = connect("{}")', "The URL is {} and it times out.", "{}"],
    "azure AccountKey=": [
        'AZURE_STORAGE_CONNECTION_STRING="{}"',
        'conn_str = "{}"',
        "It fails with {}",
        "{}",
    ],
    "bearer token": [
        "Authorization: Bearer {}",
        "curl -H 'Authorization: Bearer {}' https://api.example.com/v1/items",
        'headers = {{"Authorization": "Bearer {}"}}',
        "I send `Bearer {}` and get 403.",
    ],
    "NAME_PASSWORD= assignment": [
        "DB_PASSWORD={}",
        "export POSTGRES_PASSWORD={}",
        "      - MYSQL_ROOT_PASSWORD={}",
        "SMTP_PASSWORD='{}'",
        "REDIS_PASSWORD={} docker compose up",
    ],
    "card number (Luhn)": [
        "My card is {} exp 04/27, why is it declined?",
        "charge {} for the order",
        "Card: {}",
        "{}",
    ],
    "us ssn": ["SSN: {}", "my social security number is {} for the W-9", "Applicant {} (verified)", "{}"],
}

# family -> realistic near misses: things that look like that family but are not a secret of it
NEAR_MISSES = {
    "gitlab glpat-": [
        "GitLab personal access tokens start with glpat- followed by 20 characters.",
        "Set GITLAB_TOKEN to your glpat-1234 token.",
    ],
    "huggingface hf_": [
        "from huggingface_hub import hf_hub_download",
        "path = hf_hub_download(repo_id='gpt2', filename='config.json')",
        "hf_token = os.environ['HF_TOKEN']",
        "pip install hf_transfer and set HF_HUB_ENABLE_HF_TRANSFER=1",
    ],
    "npm npm_": [
        "npm_config_registry=https://registry.npmjs.org/",
        "console.log(process.env.npm_package_version)",
        "if (process.env.npm_lifecycle_event === 'test') {",
    ],
    "sendgrid SG.": ["const msg = SG.mail.send(request);", "See section SG.2.1 of the style guide."],
    "google oauth GOCSPX-": ["Google OAuth client secrets now start with GOCSPX- instead of a bare string."],
    "azure AccountKey=": [
        "AccountKey=<your-account-key>;EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=${ACCOUNT};AccountKey=${AZURE_KEY}",
        "UseDevelopmentStorage=true;AccountName=devstoreaccount1",
    ],
    "bearer token": [
        "I hate to be the bearer of bad news, but the build is red.",
        "The API uses Bearer token authentication over TLS.",
        "Authorization: Bearer <token>",
        "Authorization: Bearer $ACCESS_TOKEN",
        'curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com',
        "Send the header as Bearer followed by a space and the token.",
    ],
    "NAME_PASSWORD= assignment": [
        "DB_PASSWORD=${DB_PASSWORD}",
        "PASSWORD_MIN_LENGTH=12",
        "DB_PASSWORD=",
        "POSTGRES_PASSWORD_FILE=/run/secrets/db_password",
        'echo "$DB_PASSWORD" | docker login --password-stdin',
        "MYSQL_PASSWORD=<password>",
        "ADMIN_PASSWORD=*****",
    ],
    "us ssn": [
        "666-12-3456 and 000-12-3456 are never issued, nor is 123-00-4567 or 123-45-0000.",
        "Call 555-123-4567 or fax 212-555-0188.",
        "Released on 2024-01-15; part 2024-01-1500-A.",
        "ISBN 978-3-16-148410-0, ticket PROJ-1234, semver 1.123-45-6789.",
        "Invoice 900-12-3456 is from the 900 series, not a person.",
    ],
}


def near_miss_cards(seed: int, n: int) -> list[str]:
    """Card-shaped numbers with a wrong check digit, and numbers of other kinds that pass Luhn by chance."""
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        wrong = card(rng, valid=False)
        texts.append(f"Order reference {wrong} was shipped.")
        ms = rng.randrange(1_600_000_000_000, 1_800_000_000_000)
        texts.append(f"created_at_ms={ms} and id {rng.randrange(10**15, 10**16)}1")
    return texts


def secret_corpus(seed: int, per_type: int) -> list[tuple[str, str, str]]:
    """(type, text with the secret in context, the value that must not survive)."""
    rng = random.Random(seed)
    out = []
    for kind, make in generators().items():
        for i in range(per_type):
            pasted, value = make(rng)
            templates = CONTEXTS.get(kind, CONTEXTS["default"])
            out.append((kind, templates[i % len(templates)].format(pasted), value))
    return out


def technical_text(seed: int) -> list[str]:
    """Ordinary things assistants write that look random but are not secrets."""
    rng = random.Random(seed)
    texts = []
    for _ in range(40):
        sha = hashlib.sha1(rng.randbytes(8)).hexdigest()
        texts += [
            f"Check out commit {sha} (short {sha[:7]}) and run `git revert {sha[:10]}`.",
            f"sha256: {hashlib.sha256(rng.randbytes(8)).hexdigest()}",
            f"The request id is {uuid.UUID(int=rng.getrandbits(128), version=4)}.",
            f"![plot](data:image/png;base64,{base64.b64encode(rng.randbytes(600)).decode()})",
            f'"integrity": "sha512-{base64.b64encode(rng.randbytes(64)).decode()}"',
            f"docker pull nginx@sha256:{hashlib.sha256(rng.randbytes(4)).hexdigest()}",
            f"Listening on 192.168.{rng.randrange(256)}.{rng.randrange(256)}:{rng.randrange(1024, 65535)}",
            f"timestamp {rng.randrange(1_600_000_000_000, 1_800_000_000_000)} ms, pid {rng.randrange(99999)}",
            f"color: #{rng.randrange(16**6):06x}; margin: {rng.randrange(40)}px;",
            f"ISBN 978-{rng.randrange(10)}-{rng.randrange(100, 999)}-{rng.randrange(10000, 99999)}-{rng.randrange(10)}",
            f"The tensor has shape (1, {rng.randrange(4096)}, {rng.randrange(4096)}) and {rng.randrange(10**9)} parameters.",
            f"pip install torch=={rng.randrange(1, 3)}.{rng.randrange(10)}.{rng.randrange(10)}+cu121",
            f"base64 of the header: {base64.b64encode(rng.randbytes(30)).decode()}",
            f"Use the flag --skip-{_s(rng, string.ascii_lowercase, 8)}-checks and sk-learn's API.",
        ]
    texts += [
        "password = getpass.getpass('Password: ')",
        'api_key = os.environ["OPENAI_API_KEY"]',
        "token = request.headers.get('Authorization')",
        "if password == confirm_password:",
        "secret = None  # filled in at runtime",
        "private_key = load_pem_private_key(data, password=None)",
        "Set the password: field to your own value in settings.yaml.",
        "const apiKey = process.env.API_KEY;",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----",
        "Call +1 is not a phone number; version 1.2.3.4 is not either.",
        "Run: ssh git@github.com",
        "The regex is ^sk-[A-Za-z0-9]{48}$ for legacy OpenAI keys.",
        "eyJ is how a base64 JSON object starts.",
        "https://user@example.com/path has a user but no password.",
        "ftp://ftp.example.com:21/pub",
    ]
    return texts
