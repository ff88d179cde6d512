"""Thinking is off once a turn ends, however it ended (drop into tests/integration/ once ThinkingPlugin clears it)."""

from __future__ import annotations

import pytest

from notebook_chat.engine import ProviderError
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer

from .harness import Ledger, make_engine


async def test_a_reset_during_reasoning_leaves_the_message_not_thinking(server: FakeOpenAIServer) -> None:
    server.enqueue_reasoning("thinking hard now", "", chunks=3, fault=ConnectionReset(after=2))
    engine = make_engine(server, Ledger())
    with pytest.raises(ProviderError):
        await engine.send_message("hi")

    reply = engine.messages[-1]
    assert reply["reasoning_content"] == "thinking har"
    assert reply["state"]["thinking"] is False
