"""Each provider fault ends the turn in its documented state and message, partial text kept; the next turn's request
is one every provider accepts. Chat Completions and Responses alike, over the real openai client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from notebook_chat.engine import MessageEngine, ProviderError
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer, Stall, StreamEnds, StreamError

from .harness import APIS, Api, Ledger, assert_request_is_valid_everywhere, last_turn, make_engine

TEXT = "one two six "
"""Three equal chunks: a fault after two leaves "one two " on screen."""
CLIENT_TIMEOUT = 0.5


@dataclass(frozen=True)
class Fault:
    enqueue: Callable[[FakeOpenAIServer], object]
    state: str
    message: str | None
    """Words the turn's error message must contain (None: no error)."""
    text: str | None
    """The assistant text kept after the fault (None: no assistant message at all)."""
    end_reason: str = "error"


def http_error(status: int) -> Callable[[FakeOpenAIServer], object]:
    return lambda server: server.enqueue_http_error(status, f"scripted {status}")


def text_with(fault: ConnectionReset | Stall | StreamEnds | StreamError) -> Callable[[FakeOpenAIServer], object]:
    return lambda server: server.enqueue_text(TEXT, chunks=3, fault=fault)


FAULTS = {
    "HTTP 429 before the stream is a rate-limit error": Fault(http_error(429), "error", "Rate limited", None),
    "HTTP 500 before the stream is a server error": Fault(http_error(500), "error", "Server error (500)", None),
    "HTTP 401 before the stream says to check OPENAI_API_KEY": Fault(
        http_error(401), "error", "Check OPENAI_API_KEY", None),
    "an SSE error frame mid-stream is an error with the partial text kept": Fault(
        text_with(StreamError("the model is overloaded", after=2)), "error", "error mid-stream", "one two "),
    "a connection reset after two chunks is a network error with the partial text kept": Fault(
        text_with(ConnectionReset(after=2)), "error", "Network error", "one two "),
    "a stall longer than the client timeout is a timeout with the partial text kept": Fault(
        text_with(Stall(after=2, seconds=5)), "error", "timed out", "one two "),
    "truncation at the token limit completes the turn as max-tokens": Fault(
        lambda server: server.enqueue_truncated(TEXT, chunks=3), "completed", None, TEXT, end_reason="max-tokens"),
    "a stream that just ends is an incomplete turn, not a success": Fault(
        text_with(StreamEnds(after=2)), "error", "ended before the reply was complete", "one two "),
}


async def run_turn_with_fault(server: FakeOpenAIServer, api: Api, fault: Fault) -> MessageEngine:
    engine = make_engine(server, Ledger(), api, timeout=CLIENT_TIMEOUT)
    fault.enqueue(server)
    if fault.message is None:
        await engine.send_message("count to three")
    else:
        with pytest.raises(ProviderError):
            await engine.send_message("count to three")
    return engine


cases = pytest.mark.parametrize("fault", list(FAULTS.values()), ids=list(FAULTS))
apis = pytest.mark.parametrize("api", APIS)


@apis
@cases
async def test_a_fault_ends_the_turn_in_its_documented_state_and_message(
    server: FakeOpenAIServer, api: Api, fault: Fault
) -> None:
    engine = await run_turn_with_fault(server, api, fault)

    assert engine.state.request_state == fault.state
    turn = last_turn(engine)
    assert turn["end_reason"] == fault.end_reason
    if fault.message is None:
        assert engine.state.error is None
    else:
        assert engine.state.error is not None
        assert fault.message in engine.state.error
        assert turn["detail"] == engine.state.error
    replies = [m for m in engine.messages if m["role"] == "assistant"]
    assert [m["content"] for m in replies] == ([] if fault.text is None else [fault.text])
    assert all(m["loading"] is False for m in replies)


@apis
@cases
async def test_after_a_fault_the_next_request_is_one_every_provider_accepts(
    server: FakeOpenAIServer, api: Api, fault: Fault
) -> None:
    engine = await run_turn_with_fault(server, api, fault)
    server.enqueue_text("Recovered.")

    await engine.send_message("try again")

    assert engine.state.request_state == "completed"
    assert engine.state.error is None
    assert engine.messages[-1]["content"] == "Recovered."
    assert_request_is_valid_everywhere(server.requests[-1], engine)
