"""What OpenAIChat sends, and how it names itself."""

from __future__ import annotations

import openai
import pytest

from notebook_chat.engine.conversation import ENGINE_ONLY_FIELDS
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer, collect

from .conftest import MODEL

TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
HISTORY = [
    {"id": "m1", "role": "system", "content": "Be brief.", "metadata": {"hidden": True}},
    {"id": "m2", "role": "user", "content": "Weather?", "state": {"turn_id": "t1"}},
    {
        "id": "m3",
        "role": "assistant",
        "content": None,
        "reasoning_content": "Need the tool.",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}],
        "state": {"tool_calls": {"call_1": "success"}},
        "loading": False,
    },
    {"id": "m4", "role": "tool", "tool_call_id": "call_1", "content": "sunny", "metadata": {"tool_name": "lookup"}},
]


async def test_request_body_has_model_messages_tools_and_stream_options_only(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_text("Sunny.")

    await collect(chat, {"messages": HISTORY, "tools": TOOLS, "tool_choice": "auto"})

    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body == {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "Need the tool.",
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        ],
        "tools": TOOLS,
        "tool_choice": "auto",
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    sent_fields = {key for message in request.body["messages"] for key in message}
    assert sent_fields.isdisjoint(ENGINE_ONLY_FIELDS)


async def test_request_options_are_sent_and_the_body_overrides_them(server: FakeOpenAIServer) -> None:
    provider = OpenAIChat(MODEL, client=server.async_client(), temperature=0.2, max_tokens=50, stream=False)
    server.enqueue_text("ok")

    await collect(provider, {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 10})

    body = server.requests[0].body
    assert (body["temperature"], body["max_tokens"], body["stream"]) == (0.2, 10, True)


async def test_api_key_and_base_url_come_from_the_environment(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.enqueue_text("ok")

    result = await collect(OpenAIChat(MODEL, max_retries=0), {"messages": [{"role": "user", "content": "hi"}]})

    assert result.text == "ok"
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_label_names_the_model_and_host_but_no_secrets() -> None:
    client = openai.AsyncOpenAI(api_key="sk-secret-key", base_url="https://user:pw@llm.example.com:8443/v1?key=q")
    provider = OpenAIChat("gpt-4o-mini", client=client)

    assert provider.label == "OpenAI gpt-4o-mini @ https://llm.example.com:8443"
    assert provider.describe() == provider.label
    for secret in ("sk-secret-key", "pw", "key=q"):
        assert secret not in provider.label
        assert secret not in repr(provider)
