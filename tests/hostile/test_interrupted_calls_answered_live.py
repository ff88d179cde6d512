"""History rule 8: the moment a turn is interrupted inside a tool round, every unanswered call gets its "cancelled —
outcome unknown" result in the live history (`chat.messages`) and on its card — not only in the request or the save."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from notebook_chat import Chat
from notebook_chat.engine import EngineEvent
from notebook_chat.engine.history import OUTCOME_UNKNOWN
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer, Stall, StreamEnds, StreamError, ToolCallSpec
from tests.plugins.tool_helpers import Ledger

from .chats import APIS, Api, assert_history_sound, assert_next_turn_completes, openai_chat

CALLS = [ToolCallSpec("lookup", {"city": "Paris"}, id="call_a"), ToolCallSpec("add", {"a": 1, "b": 2}, id="call_b")]

FAULTS = {
    "a connection reset": ConnectionReset(after=3),
    "a stream that just ends": StreamEnds(after=3),
    "an error event": StreamError("overloaded", after=3),
    "a stall past the client timeout": Stall(after=3, seconds=5),
}


async def stop_at_first_arguments(chat: Chat) -> None:
    arrived = asyncio.Event()

    def on_event(event: EngineEvent) -> None:
        if event.kind == "message" and (event.field or "").startswith("args:"):
            arrived.set()

    unsubscribe = chat.engine.subscribe(on_event)
    turn = asyncio.ensure_future(chat.send("weather and a sum"))
    try:
        # a hang guard, not a time budget: the first use of the SDK's streaming path in a test process is slow
        await asyncio.wait_for(arrived.wait(), timeout=60)
        await chat.stop()
        await turn
    finally:
        unsubscribe()


def assert_every_call_answered_live(chat: Chat) -> None:
    assistant = next(m for m in chat.messages if m.get("tool_calls"))
    ids = [call["id"] for call in assistant["tool_calls"]]
    results = {m["tool_call_id"]: m["content"] for m in chat.messages if m.get("role") == "tool"}
    assert ids
    assert {call_id: results.get(call_id) for call_id in ids} == dict.fromkeys(ids, OUTCOME_UNKNOWN)
    card = chat.message_view(assistant["id"])
    assert card is not None
    assert [(c["status"], c.get("result")) for c in card["tool_calls"]] == [("cancelled", OUTCOME_UNKNOWN)] * len(ids)
    view_cards = [m for m in chat.view_state()["messages"] if m["id"] == assistant["id"]]
    assert all(c["status"] == "cancelled" for c in view_cards[0]["tool_calls"])


@pytest.mark.parametrize("api", APIS)
async def test_stop_inside_tool_call_fragments_answers_every_call_in_the_live_history_and_on_its_card(
        server: FakeOpenAIServer, tmp_path: Path, api: Api) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    server.enqueue_tool_calls(CALLS, fragments=4, delay=0.15)

    await stop_at_first_arguments(chat)

    assert chat.state.request_state == "aborted"
    assert_every_call_answered_live(chat)
    assert ledger.runs == []
    assert_history_sound(chat, path)
    await assert_next_turn_completes(chat, server)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("fault", list(FAULTS.values()), ids=list(FAULTS))
async def test_a_fault_inside_tool_call_fragments_answers_every_call_in_the_live_history_and_on_its_card(
        server: FakeOpenAIServer, tmp_path: Path, api: Api,
        fault: ConnectionReset | StreamEnds | StreamError | Stall) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, api, path, ledger)
    # the faulted turn only: its 2 s client timeout ends the 5 s stall; the next turn, which shows the chat goes on,
    # gets the chat's own client back (a slow moment of a loaded machine there is not the fault under test)
    client = chat.provider.client
    chat.provider.client = client.with_options(timeout=2.0)
    server.enqueue_tool_calls(CALLS, fragments=4, fault=fault)

    await chat.send("weather and a sum")
    chat.provider.client = client

    assert chat.state.request_state == "error"
    assert_every_call_answered_live(chat)
    assert ledger.runs == []
    assert_history_sound(chat, path)
    await assert_next_turn_completes(chat, server)


async def test_a_stop_while_a_tool_runs_answers_it_and_its_unstarted_sibling_in_the_live_history(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    ledger = Ledger()
    path = tmp_path / "chats.json"
    chat = openai_chat(server, "chat", path, ledger)
    server.enqueue_tool_calls([ToolCallSpec("slow", {"seconds": 30}, id="call_slow"),
                               ToolCallSpec("delete_file", {"path": "x"}, id="call_wait")])

    turn = asyncio.ensure_future(chat.send("sleep and delete"))
    await asyncio.wait_for(ledger.slow_started.wait(), timeout=60)  # a hang guard, not a time budget
    await chat.stop()
    await turn

    results = {m["tool_call_id"]: m["content"] for m in chat.messages if m.get("role") == "tool"}
    assert results["call_slow"] == OUTCOME_UNKNOWN
    assert "call_wait" in results
    assert [name for name, _ in ledger.runs] == ["slow"]
    assert_history_sound(chat, path)

