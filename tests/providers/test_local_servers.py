"""A server that needs no key (llama.cpp, vLLM, Ollama, LM Studio) works with a base URL alone."""

from __future__ import annotations

import json

import pytest

from notebook_chat.engine import MessageEngine
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer, collect

from .conftest import MODEL, user

BODY = {"messages": [user("hi")]}


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ADMIN_KEY", "OPENAI_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("kind", [OpenAIChat, OpenAIResponses], ids=["chat", "responses"])
async def test_a_base_url_without_a_key_builds_and_sends_no_authorization_header(
    server: FakeOpenAIServer, kind: type[OpenAIChat]
) -> None:
    provider = kind(MODEL, base_url=server.base_url, max_retries=0)
    server.enqueue_text("hello")

    result = await collect(provider, BODY)

    assert result.text == "hello"
    assert "authorization" not in server.requests[0].headers


async def test_openai_base_url_alone_is_a_server_that_needs_no_key(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.enqueue_text("hello")

    result = await collect(OpenAIChat(MODEL, max_retries=0), BODY)

    assert result.text == "hello"
    assert "authorization" not in server.requests[0].headers


async def test_a_key_given_with_a_base_url_is_sent(server: FakeOpenAIServer) -> None:
    server.enqueue_text("hello")

    await collect(OpenAIChat(MODEL, base_url=server.base_url, api_key="sk-local", max_retries=0), BODY)

    assert server.requests[0].headers["authorization"] == "Bearer sk-local"


def test_a_context_window_that_is_not_a_positive_number_of_tokens_is_refused() -> None:
    for bad in (0, -5, 1.5, True, "2048"):
        with pytest.raises(ValueError, match="context_window"):
            OpenAIChat(MODEL, base_url="http://127.0.0.1:1/v1", context_window=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", [OpenAIChat, OpenAIResponses], ids=["chat", "responses"])
async def test_a_context_window_leaves_the_oldest_whole_turns_out_of_the_request_for_both_apis(
    server: FakeOpenAIServer, kind: type[OpenAIChat]
) -> None:
    old = [m for n in range(4) for m in (user(f"old question {n} " + "x" * 400),
                                         {"role": "assistant", "content": f"old answer {n}"})]
    engine = MessageEngine(kind(MODEL, base_url=server.base_url, max_retries=0, context_window=400),
                           initial_messages=[{"role": "system", "content": "be brief"}, *old])
    server.enqueue_text("fine", usage={})

    await engine.send_message("the new question")

    sent = json.dumps(server.requests[0].body)
    left_out = engine.messages[-1]["metadata"]["left_out_turns"]
    assert 0 < left_out < 4
    assert [f"old question {n}" in sent for n in range(4)] == [False] * left_out + [True] * (4 - left_out)
    assert "be brief" in sent
    assert "the new question" in sent
