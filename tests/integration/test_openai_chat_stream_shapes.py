"""Chat Completions stream shapes that only the Chat API has: tool-call fragments without ``index``."""

from __future__ import annotations

import json

from notebook_chat.testing import FakeOpenAIServer

from .harness import Ledger, assert_request_is_valid_everywhere, make_engine, statuses


async def test_tool_call_fragments_without_an_index_still_run_each_call_with_its_arguments(
    server: FakeOpenAIServer,
) -> None:
    ledger = Ledger()
    server.enqueue_tool_calls([
        {"name": "lookup", "arguments": {"city": "Lima"}, "id": "call_x"},
        {"name": "add", "arguments": {"a": 40, "b": 2}, "id": "call_y"},
    ], fragments=3, with_index=False)
    server.enqueue_text("Lima is sunny; 42.")
    engine = make_engine(server, ledger)

    await engine.send_message("weather in Lima and 40 + 2")

    assert sorted(ledger.runs) == [("add", {"a": 40, "b": 2}), ("lookup", {"city": "Lima"})]
    assert statuses(engine) == {"call_x": "success", "call_y": "success"}
    calls = engine.messages[1]["tool_calls"]
    assert [(c["id"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("call_x", {"city": "Lima"}), ("call_y", {"a": 40, "b": 2})]
    assert_request_is_valid_everywhere(server.requests[1], engine)
    assert engine.state.request_state == "completed"
