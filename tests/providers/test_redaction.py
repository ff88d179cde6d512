"""Secrets never reach an error text: the provider's key, its credential headers and the base URL's credentials and
query values are replaced, even when the server's error body echoes them."""

from __future__ import annotations

import openai
import pytest

from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.providers.redaction import Redactor, mask
from notebook_chat.testing import FakeOpenAIServer, StreamError, collect

from .conftest import MODEL, user

KEY = "sk-proj-REDACTME0123456789abcdef"
HEADER_TOKEN = "hdr-token-0123456789-SECRET"
QUERY_SECRET = "qv-SECRET-0123456789"
BODY = {"messages": [user("hi")]}


def echoing(text: str) -> str:
    """An error body that echoes every secret the client holds, in the forms servers and proxies use."""
    return (f"{text}: Incorrect API key provided: {KEY}. Got headers Authorization: Bearer {KEY}, "
            f"api-key: {HEADER_TOKEN}; url https://llm.example.com/v1?api-version={QUERY_SECRET}")


def client(server: FakeOpenAIServer) -> openai.AsyncOpenAI:
    return server.async_client(api_key=KEY, default_headers={"api-key": HEADER_TOKEN},
                               default_query={"api-version": QUERY_SECRET})


def assert_clean(text: str) -> None:
    for secret in (KEY, HEADER_TOKEN, QUERY_SECRET, "REDACTME", "SECRET"):
        assert secret not in text, text


apis = pytest.mark.parametrize("kind", [OpenAIChat, OpenAIResponses], ids=["chat", "responses"])


@apis
@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 429, 500, 503])
async def test_an_error_body_that_echoes_the_secrets_is_redacted(
    server: FakeOpenAIServer, kind: type[OpenAIChat], status: int
) -> None:
    server.enqueue_http_error(status, echoing(f"HTTP {status}"))

    result = await collect(kind(MODEL, client=client(server)), BODY)

    assert result.error is not None
    assert_clean(result.error.message)
    assert_clean(str(result.error))
    assert "sk-…REDACTED" in result.error.message


@apis
async def test_a_mid_stream_error_event_that_echoes_the_key_is_redacted(
    server: FakeOpenAIServer, kind: type[OpenAIChat]
) -> None:
    server.enqueue_text("abcd", chunks=2, fault=StreamError(echoing("overloaded"), after=1))

    result = await collect(kind(MODEL, client=client(server)), BODY)

    assert result.error is not None
    assert_clean(result.error.message)


def test_credentials_in_the_base_url_are_redacted() -> None:
    provider = OpenAIChat(MODEL, client=openai.AsyncOpenAI(
        api_key=KEY, base_url=f"https://alice:pa55word-xyz@llm.example.com/v1?key={QUERY_SECRET}"))

    text = provider.redact(f"GET https://alice:pa55word-xyz@llm.example.com/v1?key={QUERY_SECRET} failed")

    assert "pa55word-xyz" not in text
    assert QUERY_SECRET not in text
    assert "alice" not in text


@pytest.mark.parametrize("text", [
    "Authorization: Bearer abcdef0123456789",
    "Authorization: Basic dXNlcjpwYXNzd29yZA==",
    "key sk-live0123456789abcdef leaked",
    "https://h/v1?api_key=0123456789abcdef&x=1",
    "token=0123456789abcdef",
    "password=hunter2hunter2",
])
def test_credential_looking_tokens_are_redacted_even_when_nobody_declared_them(text: str) -> None:
    redacted = Redactor()(text)

    assert "0123456789abcdef" not in redacted
    assert "dXNlcjpwYXNzd29yZA" not in redacted
    assert "hunter2" not in redacted
    assert "REDACTED" in redacted


def test_a_long_secret_keeps_its_first_three_characters_and_a_short_one_keeps_none() -> None:
    assert mask("sk-0123456789abcdef") == "sk-…REDACTED"
    assert mask("abcdefgh") == "REDACTED"


def test_ordinary_text_is_left_alone() -> None:
    text = "The request was rejected (400) by http://127.0.0.1:8080: the key 'max_tokens' is invalid."
    assert Redactor(["zzzz-not-there"])(text) == text


def test_secrets_shorter_than_four_characters_are_not_searched_for() -> None:
    assert Redactor(["ab"])("a cab and a crab") == "a cab and a crab"
