"""A reply stopped or failed while it only reasoned (reasoning text, no content yet) keeps its reasoning through a
save and a restore, and the history sent afterwards stays one every provider accepts (the reasoning-only message
is never sent: an assistant message needs content or calls)."""

from __future__ import annotations

import pytest

from notebook_chat.engine import MessageEngine, ProviderError
from notebook_chat.persistence import ConversationAutosave, MemoryStore, load_conversation
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer, Stall

from .harness import APIS, Api, Ledger, abort_after_first, assert_request_is_valid_everywhere, make_engine


def restored(server: FakeOpenAIServer, store: MemoryStore, api: Api) -> MessageEngine:
    loaded = load_conversation(store, "k")
    assert loaded.record is not None, loaded.refused
    engine = make_engine(server, Ledger(), api)
    engine.load(loaded.record)
    return engine


async def stop_while_reasoning(engine: MessageEngine, text: str) -> None:
    """Send ``text`` and press Stop once the first piece of reasoning arrived (before any content)."""
    await abort_after_first(engine, text, "reasoning_content")


@pytest.mark.parametrize("api", APIS)
async def test_a_reply_that_failed_while_it_only_reasoned_is_restored_with_its_reasoning(
        server: FakeOpenAIServer, api: Api) -> None:
    server.enqueue_reasoning("weighing the options first", "", chunks=3, fault=ConnectionReset(after=2))
    store = MemoryStore()
    engine = make_engine(server, Ledger(), api)
    ConversationAutosave(engine, store, "k")
    with pytest.raises(ProviderError):
        await engine.send_message("hi")
    thought = engine.messages[-1]["reasoning_content"]
    assert thought

    reply = restored(server, store, api).messages[-1]
    assert (reply["role"], reply["reasoning_content"], reply.get("content") or "") == ("assistant", thought, "")
    assert reply["state"]["interrupted"] is True
    assert reply["state"]["error"]


@pytest.mark.parametrize("api", APIS)
async def test_a_reply_stopped_while_it_only_reasoned_is_restored_with_its_reasoning(
        server: FakeOpenAIServer, api: Api) -> None:
    server.enqueue_reasoning("weighing the options first", "the answer", chunks=3, fault=Stall(after=1, seconds=30))
    store = MemoryStore()
    engine = make_engine(server, Ledger(), api)
    ConversationAutosave(engine, store, "k")
    await stop_while_reasoning(engine, "hi")
    assert engine.turns[-1]["end_reason"] == "aborted"
    thought = engine.messages[-1]["reasoning_content"]

    reply = restored(server, store, api).messages[-1]
    assert (reply["reasoning_content"], reply.get("content") or "", reply["state"]["interrupted"]) == (
        thought, "", True)


@pytest.mark.parametrize("api", APIS)
async def test_the_turn_after_a_restored_reasoning_only_reply_sends_a_history_every_provider_accepts(
        server: FakeOpenAIServer, api: Api) -> None:
    server.enqueue_reasoning("weighing the options first", "", chunks=3, fault=ConnectionReset(after=2))
    server.enqueue_text("Here it is.")
    store = MemoryStore()
    engine = make_engine(server, Ledger(), api)
    ConversationAutosave(engine, store, "k")
    with pytest.raises(ProviderError):
        await engine.send_message("hi")

    revived = restored(server, store, api)
    await revived.send_message("go on")
    assert revived.messages[-1]["content"] == "Here it is."
    request = server.requests[-1]
    assert_request_is_valid_everywhere(request, revived)
    sent = request.body.get("messages") or request.body.get("input")
    assert "weighing" not in str(sent)  # the reasoning-only reply is shown, not sent
    kept = [m for m in revived.messages if m["role"] == "assistant" and not m.get("content")]
    assert [bool(m["reasoning_content"]) for m in kept] == [True]
