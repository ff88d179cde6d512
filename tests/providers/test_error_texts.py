"""Every provider error text is written one way: what happened in one sentence, what to do in one sentence, with
no doubled punctuation and no secret, whatever the server's own text looks like."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from notebook_chat.engine.errors import ProviderError
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.providers.error_text import ADVICE, one_sentence
from notebook_chat.testing import ConnectionReset, FakeOpenAIServer, Stall, StreamEnds, StreamError, collect

from .conftest import MODEL, user

KEY = "sk-proj-TESTKEY0123456789abcdef"
BODY = {"messages": [user("hi")]}
DOUBLED = re.compile(r"[.!?:;,]\s*[.!?:;,]")

# The shapes a server's own text comes in: plain, with its own full stop, several sentences, an exclamation,
# trailing dots or a colon, several lines, surrounding whitespace, empty.
SERVER_TEXTS = ["bad thing", "bad thing.", "First. Second.", "bad thing!", "bad thing..", "ends with:",
                "two\nlines\n", "  padded  ", ""]
STATUSES = [400, 401, 403, 404, 409, 413, 418, 422, 429, 500, 503]


def assert_well_written(error: ProviderError) -> None:
    message = error.message
    advice = ADVICE[error.kind]
    assert message.endswith(" " + advice), message
    happened = message[: -len(advice) - 1]
    assert happened, message
    assert happened[-1] in ".!?", message
    assert "\n" not in message, message
    assert not DOUBLED.search(message), message
    assert "TESTKEY" not in message, message


def make(api: str, server: FakeOpenAIServer, **options: object) -> OpenAIChat:
    kind = OpenAIChat if api == "chat" else OpenAIResponses
    return kind(MODEL, client=server.async_client(api_key=KEY, **options))


apis = pytest.mark.parametrize("api", ["chat", "responses"])


@apis
@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("text", SERVER_TEXTS)
async def test_every_http_error_reads_as_what_happened_then_what_to_do(
    server: FakeOpenAIServer, api: str, status: int, text: str
) -> None:
    server.enqueue_http_error(status, text)

    result = await collect(make(api, server), BODY)

    assert result.error is not None
    assert_well_written(result.error)


FAULTS: dict[str, Callable[[FakeOpenAIServer], object]] = {
    "reset before the first chunk": lambda s: s.enqueue_text("abcd", chunks=2, fault=ConnectionReset(after=0)),
    "reset mid-stream": lambda s: s.enqueue_text("abcd", chunks=2, fault=ConnectionReset(after=1)),
    "a stall past the timeout": lambda s: s.enqueue_text("abcd", chunks=2, fault=Stall(after=1, seconds=5)),
    "a stream that just ends": lambda s: s.enqueue_text("abcd", chunks=2, fault=StreamEnds(after=1)),
    "an error event ending in a full stop": lambda s: s.enqueue_text(
        "abcd", chunks=2, fault=StreamError("The model is overloaded.", after=1)),
    "an error event with a code": lambda s: s.enqueue_text(
        "abcd", chunks=2, fault=StreamError("slow down", after=1, code="rate_limit_exceeded")),
    "an error event of the error kind": lambda s: s.enqueue_text(
        "abcd", chunks=2, fault=StreamError("broken..", after=1, responses_event="error")),
}


@apis
@pytest.mark.parametrize("fault", list(FAULTS.values()), ids=list(FAULTS))
async def test_every_stream_fault_reads_as_what_happened_then_what_to_do(
    server: FakeOpenAIServer, api: str, fault: Callable[[FakeOpenAIServer], object]
) -> None:
    fault(server)

    result = await collect(make(api, server, timeout=0.5), BODY)

    assert result.error is not None
    assert_well_written(result.error)


async def test_a_server_that_cannot_be_reached_reads_as_what_happened_then_what_to_do() -> None:
    provider = OpenAIChat(MODEL, base_url="http://127.0.0.1:9/v1", api_key=KEY, max_retries=0)

    result = await collect(provider, BODY)

    assert result.error is not None
    assert result.error.kind == "network"
    assert_well_written(result.error)


@pytest.mark.parametrize(("text", "expected"), [
    ("without sending a response.", "without sending a response."),
    ("without sending a response..", "without sending a response."),
    ("a\n  b  ", "a b."),
    ("really?", "really?"),
    ("ends with a colon:", "ends with a colon."),
    ("", ""),
])
def test_one_sentence_ends_with_exactly_one_stop(text: str, expected: str) -> None:
    assert one_sentence(text) == expected


def test_every_kind_has_one_sentence_of_advice() -> None:
    for kind, advice in ADVICE.items():
        assert advice[0].isupper(), kind
        assert advice.endswith("."), kind
        assert ". " not in advice, kind


# ----------------------------------------------------------------------------------------------- context length

CONTEXT_REJECTIONS = {
    "OpenAI": (400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 "
               "tokens. Please reduce the length of the messages.", "context_length_exceeded"),
    "vLLM": (400, "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in "
             "the messages, 100 in the completion). Please reduce the length of the messages or completion.", None),
    "vLLM (newer)": (400, "The decoder prompt (length 5000) is longer than the maximum model length of 4096.", None),
    "llama.cpp": (400, "request (4078 tokens) exceeds the available context size (2048 tokens), try increasing it",
                  "exceed_context_size_error"),
    "llama.cpp (older)": (400, "the request exceeds the available context size, try increasing it", None),
    "Ollama": (400, "prompt too long; exceeded max context length by 120 tokens", None),
    "Ollama (input)": (500, "the input length exceeds the context length", None),
}


@apis
@pytest.mark.parametrize("rejection", list(CONTEXT_REJECTIONS.values()), ids=list(CONTEXT_REJECTIONS))
async def test_a_too_long_rejection_is_a_context_length_error_that_offers_a_shorter_retry(
    server: FakeOpenAIServer, api: str, rejection: tuple[int, str, str | None]
) -> None:
    status, text, code = rejection
    server.enqueue_http_error(status, text, code=code)

    result = await collect(make(api, server), BODY)

    assert result.error is not None
    assert (result.error.kind, result.error.status) == ("context-length", status)
    assert "shorter history" in result.error.message
    assert_well_written(result.error)


@apis
async def test_a_too_long_error_event_mid_stream_is_a_context_length_error(
    server: FakeOpenAIServer, api: str
) -> None:
    server.enqueue_text("ab", fault=StreamError("prompt is too long: 300000 tokens", after=0, code="invalid"))

    result = await collect(make(api, server), BODY)

    assert result.error is not None
    assert result.error.kind == "context-length"


async def test_an_ordinary_bad_request_is_not_a_context_length_error(server: FakeOpenAIServer) -> None:
    server.enqueue_http_error(400, "Unrecognized request argument supplied: foo")

    result = await collect(make("chat", server), BODY)

    assert result.error is not None
    assert result.error.kind == "bad-request"
