"""The compact canonical document (what the archive stores and hashes for 'unchanged') is written by msgspec
and must be, byte for byte, what json.dumps wrote before it: a different byte would make every stored
conversation 'updated' on its next save."""

from __future__ import annotations

import json
import typing

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from conversation_samples import every_part, fixture_conversations, provenance
from mnemosyne import canonical, model
from mnemosyne.model import (
    Conversation,
    Message,
    ReasoningPart,
    Source,
    TextPart,
    ToolCallPart,
    UnknownPart,
)


def by_json(conv: Conversation) -> str:
    """The compact document as json.dumps writes it (how canonical.dumps wrote it before msgspec)."""

    def dump(data: object) -> str:
        return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)

    data = canonical.to_dict(conv)
    try:
        text = dump(data)
        text.encode("utf-8")
    except ValueError:  # NaN, Infinity, a lone surrogate (UnicodeEncodeError)
        return dump(canonical._clean(data))
    return text


_chars = st.characters(blacklist_categories=())  # lone surrogates and control characters too
_key_chars = st.characters(
    blacklist_categories=("Cs",)
)  # (the readers clean keys: pydantic refuses a lone one)
_floats = st.floats() | st.sampled_from([1e-4, 9.9e-5, 1e-5, 1e16, 9999999999999998.0, 1e22, -0.0, 5e-324])
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | _floats
    | st.text(_chars, max_size=12)
)
_json = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(_key_chars, max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)


def conversation(text: str, arguments: object, raw: object, duration: float | None) -> Conversation:
    parts = [
        TextPart(text=text),
        ToolCallPart(name="search", arguments=arguments),
        ReasoningPart(text="thinking", duration_sec=duration),
        UnknownPart(source_type="future_widget", raw=raw),
    ]
    return Conversation(
        id="c",
        title=text[:20],
        source=Source(site="chatgpt"),
        messages=[Message(id="m", role="assistant", parts=parts)],
        provenance=provenance(),
    )


@settings(max_examples=400, deadline=None)
@given(st.text(_chars, max_size=40), _json, _json, st.none() | _floats)
@example("plain", {"n": 1e-05}, None, None)  # a float Python writes with an exponent, in the arguments
@example("plain", None, [1e16], None)  # ... in the raw JSON of an unknown part
@example("plain", None, None, 9.9e-05)  # ... as a duration
@example("lone \ud800", None, {"nan": float("nan")}, None)
def test_the_compact_document_is_the_json_one(text, arguments, raw, duration):
    conv = conversation(text, arguments, raw, duration)
    assert canonical.dumps(conv, indent=None) == by_json(conv)
    assert canonical.document_bytes(conv)[0] == by_json(conv).encode()  # what the archive stores


def test_every_fixture_conversation_gets_the_json_document():
    count = 0
    for path, conv in fixture_conversations():
        assert canonical.dumps(conv, indent=None) == by_json(conv), path
        assert canonical.document_bytes(conv)[0] == by_json(conv).encode(), path
        count += 1
    conv = every_part()
    assert canonical.dumps(conv, indent=None) == by_json(conv)
    assert count >= 110


def _holds_float(annotation: object) -> bool:
    if annotation is float or annotation is typing.Any:
        return True
    return any(_holds_float(arg) for arg in typing.get_args(annotation))


def _refers_to(annotation: object) -> set[type]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {annotation}
    return set().union(*map(_refers_to, typing.get_args(annotation)))


def test_float_fields_names_every_field_of_the_model_that_can_hold_a_float():
    """canonical.FLOAT_FIELDS is where the compact writer looks for floats (in each message's parts): a new
    float or Any field in the model that it does not name, or a part kept anywhere else, would let msgspec
    write a float json writes otherwise."""
    models = [c for c in vars(model).values() if isinstance(c, type) and issubclass(c, BaseModel)]
    found: dict[str, tuple[str, ...]] = {}
    for cls in models:
        fields = tuple(name for name, field in cls.model_fields.items() if _holds_float(field.annotation))
        if fields:
            assert "type" in cls.model_fields, f"{cls.__name__} is not a message part"
            found[cls.model_fields["type"].default] = fields
    assert found == canonical.FLOAT_FIELDS
    # where the walk looks: the parts of the conversation's messages; nothing else holds those parts
    holders = {
        (cls, name): _refers_to(field.annotation)
        for cls in models
        for name, field in cls.model_fields.items()
    }
    floaty = {c for c in models if "type" in c.model_fields and c.model_fields["type"].default in found}
    assert {key for key, refs in holders.items() if refs & floaty} == {(Message, "parts")}
    assert {key for key, refs in holders.items() if Message in refs} == {(Conversation, "messages")}


def _outcome(fn, value):
    try:
        return fn(value)
    except ValueError as exc:  # (a lone surrogate: both refuse it the same way)
        return type(exc)


@settings(max_examples=400, deadline=None)
@given(_json)
@example({"n": 1e-05, "m": [1e16, -0.0], "k": 2**70})
@example({"nan": float("nan"), "inf": float("inf")})
@example({"b": "\x00\x1f\x7f\u2028 \ud800", "z": 1, "a": 2})  # keys in their order, escapes, a lone surrogate
def test_a_payloads_provenance_bytes_are_the_json_ones(value):
    """read_payload digests a page payload as json.dumps wrote it (keys in their order, no spaces, UTF-8)."""

    def by_json(v: object) -> bytes:
        return json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    assert _outcome(canonical.json_bytes, value) == _outcome(by_json, value)
