"""Every error code the host can send (append-only; host/PROTOCOL.md has the table).
tests/unit/test_protocol_doc.py checks this list against the document and the source."""

ERROR_CODES = (
    "BAD_REQUEST",
    "UNKNOWN_ACTION",
    "INVALID_JSON",
    "FRAME_TOO_LARGE",
    "FORBIDDEN_CALLER",
    "BAD_INPUT",
    "UNKNOWN_FORMAT",
    "UNSUPPORTED_SCHEMA_VERSION",
    "NOT_FOUND",
    "UNKNOWN_TARGET",
    "BAD_CURSOR",
    "TOKENIZER_UNAVAILABLE",
    "KEYRING_UNAVAILABLE",
    "ARCHIVE_KEY_MISSING",
    "ARCHIVE_KEY_MISMATCH",
    "ARCHIVE_KEY_INVALID",
    "ARCHIVE_ERROR",
    "INTERNAL",
    "ARCHIVE_KEY_UNSAFE",
    "ATTACHMENT_TOO_LARGE",
)
