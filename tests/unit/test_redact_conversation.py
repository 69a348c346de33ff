"""redact_conversation walks the models' fields; it must redact exactly what redacting the conversation's JSON
(every free-text field of every part, the title, the instructions) and validating it back gives."""

from __future__ import annotations

import typing

from pydantic import BaseModel

from conversation_samples import every_part, fixture_conversations, provenance
from mnemosyne import model
from mnemosyne.model import Citation, Conversation, Instruction, Message, Source
from mnemosyne.redact import _PART_TEXT_FIELDS, Redactor, redact_conversation

SECRET = (
    "mail jane.doe@example.co.uk or call +44 20 7946 0958, key sk-proj-Xb3kLm9QwErTyUiOpAsDfGhJkL1234567890"
)


def through_json(conv: Conversation) -> tuple[dict, dict[str, int]]:
    """The redacted conversation as the JSON route makes it: dump, redact each free text, validate."""
    redactor = Redactor()

    def texts(value):
        if isinstance(value, str):
            return redactor.redact(value)
        if isinstance(value, list):
            return [texts(v) for v in value]
        if isinstance(value, dict):
            return {k: texts(v) for k, v in value.items()}
        return value

    def part(data: dict) -> dict:
        return {
            k: texts(v)
            if k in _PART_TEXT_FIELDS
            else [part(x) if isinstance(x, dict) else x for x in v]
            if isinstance(v, list)
            else v
            for k, v in data.items()
        }

    data = conv.model_dump(mode="json")
    if data["title"]:
        data["title"] = redactor.redact(data["title"])
    for ins in data["instructions"]:
        ins["text"] = redactor.redact(ins["text"])
        if ins["title"]:
            ins["title"] = redactor.redact(ins["title"])
    for msg in data["messages"]:
        msg["parts"] = [part(p) for p in msg["parts"]]
    return Conversation.model_validate(data).model_dump(mode="json"), redactor.report()


def _secret_value(annotation: object) -> object:
    """A value for a field of this type that holds SECRET wherever the type holds text."""
    if annotation is str or annotation == str | None:
        return SECRET
    if annotation is typing.Any:
        return {"query": SECRET, "list": [SECRET, 1.5, None]}
    if annotation == list[str]:
        return [SECRET]
    if annotation == list[Citation]:
        return [Citation(title=SECRET, url="https://example.org/" + SECRET, snippet=SECRET, start=1, end=2)]
    return None


def secret_in_every_field() -> Conversation:
    """A message per part type with SECRET in every string field (ids, names and urls too: the policy
    redacts free text only, and the model walk must leave the rest as the JSON route does)."""
    messages = []
    for n, part_type in enumerate(typing.get_args(typing.get_args(model.Part)[0])):
        fields = {}
        for name, info in part_type.model_fields.items():
            value = _secret_value(info.annotation)
            if value is not None:
                fields[name] = value
        if "kind" in part_type.model_fields and "kind" not in fields:
            fields["kind"] = "file"
        messages.append(
            Message(id=f"m{n}", parent=f"m{n - 1}" if n else None, role="user", parts=[part_type(**fields)])
        )
    return Conversation(
        id="secrets",
        title=SECRET,
        source=Source(site="chatgpt"),
        instructions=[Instruction(kind="custom_instructions", text=SECRET, title=SECRET)],
        messages=messages,
        active_leaf=messages[-1].id,
        provenance=provenance(),
    )


def check(conv: Conversation) -> None:
    before = conv.model_dump(mode="json")
    redacted, redactor = redact_conversation(conv)
    assert (redacted.model_dump(mode="json"), redactor.report()) == through_json(conv)
    assert conv.model_dump(mode="json") == before  # the original is not changed in place


def test_every_field_of_every_part_type_is_redacted_as_through_json():
    conv = secret_in_every_field()
    assert len(conv.messages) == len(typing.get_args(typing.get_args(model.Part)[0]))
    check(conv)
    redacted, redactor = redact_conversation(conv)
    assert redactor.report()["email"] >= 10  # (the route really redacted: not two empty reports)
    assert SECRET not in (redacted.title, redacted.instructions[0].text, redacted.messages[0].parts[0].text)


def test_messages_without_secrets_are_shared_and_the_rest_are_copies():
    conv = every_part()
    conv.messages[1].parts[0] = conv.messages[1].parts[0].model_copy(update={"text": SECRET})
    check(conv)
    redacted, _ = redact_conversation(conv)
    assert redacted.messages[1] is not conv.messages[1]
    assert [m is o for m, o in zip(redacted.messages, conv.messages)].count(False) == 1


def test_every_fixture_conversation_is_redacted_as_through_json():
    count = 0
    for _, conv in fixture_conversations():
        check(conv)
        count += 1
    assert count >= 110


def test_parts_are_models_with_their_fields_in_dict():
    """The walk reads a part's fields from __dict__ and recurses into lists of models (citations)."""
    for part_type in typing.get_args(typing.get_args(model.Part)[0]):
        assert issubclass(part_type, BaseModel)
        assert not part_type.model_computed_fields
