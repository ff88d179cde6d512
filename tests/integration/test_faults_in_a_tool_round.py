"""Faults in the middle of a tool round: no dangling call, no tool run twice, the next request valid everywhere."""

from __future__ import annotations

import asyncio

import pytest

from notebook_chat.engine import ProviderError
from notebook_chat.engine.history import OUTCOME_UNKNOWN, validate
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer

from .harness import (
    APIS,
    Api,
    Ledger,
    assert_request_is_valid_everywhere,
    last_turn,
    make_engine,
    results_sent,
    statuses,
)

pytestmark = pytest.mark.parametrize("api", APIS)


async def test_a_reset_during_the_follow_up_keeps_the_tool_result_and_never_reruns_the_tool(
    server: FakeOpenAIServer, api: Api
) -> None:
    ledger = Ledger()
    server.enqueue_tool_calls([{"name": "lookup", "arguments": {"city": "Oslo"}, "id": "call_1"}])
    server.enqueue_text("Oslo: sunny.", chunks=2, fault=ConnectionReset(after=1))
    engine = make_engine(server, ledger, api)
    with pytest.raises(ProviderError, match="Network error"):
        await engine.send_message("weather in Oslo?")
    assert engine.state.request_state == "error"
    assert statuses(engine) == {"call_1": "success"}
    assert validate(engine.messages) == []
    assert engine.messages[-1]["content"] == "Oslo: "
    server.enqueue_text("It is sunny.")

    await engine.send_message("and?")

    assert ledger.runs == [("lookup", {"city": "Oslo"})]
    assert results_sent(server.requests[-1].body) == {"call_1": "sunny in Oslo"}
    assert_request_is_valid_everywhere(server.requests[-1], engine)


async def test_stop_while_a_tool_runs_records_an_unknown_outcome_and_the_next_request_is_valid(
    server: FakeOpenAIServer, api: Api
) -> None:
    ledger = Ledger()
    server.enqueue_tool_calls([{"name": "slow", "arguments": {"seconds": 30}, "id": "call_slow"},
                               {"name": "add", "arguments": {"a": 1, "b": 1}, "id": "call_add"}])
    engine = make_engine(server, ledger, api)
    turn = asyncio.ensure_future(engine.send_message("wait, then add"))
    await asyncio.wait_for(ledger.slow_started.wait(), timeout=60)  # a hang guard, not a time budget

    await engine.abort()
    await turn

    assert engine.state.request_state == "aborted"
    assert last_turn(engine)["end_reason"] == "aborted"
    assert statuses(engine) == {"call_slow": "cancelled", "call_add": "success"}
    assert validate(engine.messages) == []
    server.enqueue_text("The wait was cut short.")
    await engine.send_message("what happened?")
    assert results_sent(server.requests[-1].body) == {"call_slow": OUTCOME_UNKNOWN, "call_add": "2"}
    assert [name for name, _ in ledger.runs].count("slow") == 1
    assert_request_is_valid_everywhere(server.requests[-1], engine)


async def test_a_reset_while_tool_calls_stream_runs_nothing_and_answers_the_cut_call_as_unknown(
    server: FakeOpenAIServer, api: Api
) -> None:
    ledger = Ledger()
    server.enqueue_tool_calls([{"name": "add", "arguments": {"a": 20, "b": 22}, "id": "call_cut"}],
                              fragments=4, fault=ConnectionReset(after=2))
    engine = make_engine(server, ledger, api)
    with pytest.raises(ProviderError, match="Network error"):
        await engine.send_message("20 + 22?")
    assert engine.state.request_state == "error"
    server.enqueue_text("Let me try that again.")

    await engine.send_message("go on")

    assert ledger.runs == []
    assert results_sent(server.requests[-1].body) == {"call_cut": OUTCOME_UNKNOWN}
    assert_request_is_valid_everywhere(server.requests[-1], engine)
