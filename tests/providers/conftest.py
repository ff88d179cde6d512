from __future__ import annotations

from collections.abc import Iterator

import pytest

from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer

MODEL = "gpt-test"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def chat(server: FakeOpenAIServer) -> OpenAIChat:
    return OpenAIChat(MODEL, client=server.async_client())


@pytest.fixture
def responses(server: FakeOpenAIServer) -> OpenAIResponses:
    return OpenAIResponses(MODEL, client=server.async_client())


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}
