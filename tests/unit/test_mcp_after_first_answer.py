"""mcpserver/server.py: the work held back until the first tool answer is sent runs once, after it."""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp_types")

from mnemosyne.mcpserver.server import Session, _AfterFirstAnswer  # noqa: E402


def test_runs_once_after_the_message_that_follows_the_first_answer():
    ran: list[list[str]] = []

    async def main() -> list[str]:
        send, receive = anyio.create_memory_object_stream[str](10)
        session = Session()
        async with _AfterFirstAnswer(send, session, lambda: ran.append(list(sent))) as stream:
            sent: list[str] = []
            for message, answered in (
                ("initialize", False),
                ("tools/list", False),
                ("answer", True),
                ("more", True),
            ):
                session.answered = answered
                await stream.send(message)
                sent.append(message)
        return [item async for item in receive]

    received = anyio.run(main)
    assert received == ["initialize", "tools/list", "answer", "more"]
    assert ran == [["initialize", "tools/list"]]  # once, as the answer went out (before it is counted sent)
