"""The Responses request: stateless input items, flat tools, our options mapped, nothing engine-only."""

from __future__ import annotations

from notebook_chat.providers import OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer, collect

from .conftest import MODEL

HISTORY = [
    {"id": "m1", "role": "system", "content": "Be brief."},
    {"id": "m2", "role": "user", "content": "Weather in Paris?", "metadata": {"hidden": False}},
    {
        "id": "m3",
        "role": "assistant",
        "content": "Checking.",
        "reasoning_content": "Need the tool.",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"city": "Paris"}'}}
        ],
        "state": {"tool_calls": {"call_1": "success"}},
    },
    {"id": "m4", "role": "tool", "tool_call_id": "call_1", "content": "sunny", "metadata": {"tool_name": "lookup"}},
]
TOOLS = [
    {
        "type": "function",
        "function": {"name": "lookup", "description": "Weather", "parameters": {"type": "object"}},
    }
]


async def test_history_is_sent_as_input_items_with_flat_tools_and_no_stored_state(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    server.enqueue_text("Sunny.")

    await collect(
        responses,
        {
            "messages": HISTORY,
            "tools": TOOLS,
            "tool_choice": {"type": "function", "function": {"name": "lookup"}},
            "max_tokens": 64,
        },
    )

    [request] = server.requests
    assert request.path == "/v1/responses"
    assert request.body == {
        "model": MODEL,
        "input": [
            {"type": "message", "role": "developer", "content": "Be brief."},
            {"type": "message", "role": "user", "content": "Weather in Paris?"},
            {"type": "message", "role": "assistant", "content": "Checking."},
            {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": '{"city": "Paris"}'},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "lookup",
                "description": "Weather",
                "parameters": {"type": "object"},
                "strict": False,
            }
        ],
        "tool_choice": {"type": "function", "name": "lookup"},
        "max_output_tokens": 64,
        "stream": True,
        "store": False,
    }


async def test_request_options_are_mapped_to_their_responses_names(server: FakeOpenAIServer) -> None:
    provider = OpenAIResponses(
        MODEL, client=server.async_client(), reasoning_effort="low", temperature=0.1, stream_options={"x": 1}
    )
    server.enqueue_text("ok")

    await collect(provider, {"messages": [{"role": "user", "content": "hi"}]})

    body = server.requests[0].body
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["temperature"] == 0.1
    assert "stream_options" not in body
    assert "previous_response_id" not in body
