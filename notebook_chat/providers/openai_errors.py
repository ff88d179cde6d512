"""Turn openai SDK exceptions into :class:`ProviderError` with a message a person can act on.

The server's own error text is kept in the message (one sentence of what happened, one of what to do: see
:mod:`.error_text`). Shared by the Chat Completions and Responses providers; secrets are removed by the provider
afterwards (:mod:`.redaction`).
"""

from __future__ import annotations

from collections.abc import Mapping

import openai

from ..engine.errors import ProviderError
from .error_text import is_context_length, provider_error, server_words

INCOMPLETE_HAPPENED = (
    "The stream ended before the reply was complete (no finish reason arrived); the connection or a proxy may have "
    "cut it off"
)


def incomplete_error() -> ProviderError:
    return provider_error("incomplete", INCOMPLETE_HAPPENED)


def unreadable_stream(error: Exception, where: str) -> ProviderError:
    """A stream event the client could not read: not JSON, or JSON that is not an event object."""
    detail = server_words(str(error))[:200] or type(error).__name__
    return provider_error(
        "bad-response", f"{where} sent a stream event that is not a JSON object ({type(error).__name__}: {detail})"
    )


def server_text(error: openai.APIError) -> str:
    """The server's own words: ``error.message`` from the JSON body when there is one."""
    body = error.body
    if isinstance(body, Mapping):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
    return error.message


def server_code(error: openai.APIError) -> object:
    """The body's ``code`` (OpenAI: ``context_length_exceeded``) or ``type`` (llama.cpp:
    ``exceed_context_size_error``)."""
    body = error.body
    code = getattr(error, "code", None)
    if code is None and isinstance(body, Mapping):
        code = body.get("code")
    if not isinstance(code, str) and isinstance(body, Mapping):
        code = body.get("type")
    return code


def _cause(error: BaseException) -> str:
    """``": <reason>"`` from the first underlying exception that says something (e.g. a reset by peer)."""
    cause, depth = error.__cause__ or error.__context__, 0
    while cause is not None and depth < 10:
        text = server_words(str(cause))
        if text:
            return f": {text}"
        cause, depth = cause.__cause__ or cause.__context__, depth + 1
    return ""


def to_provider_error(error: openai.OpenAIError, *, model: str, where: str) -> ProviderError:
    """Map an SDK exception; ``where`` names the server (scheme://host), never with credentials."""
    if isinstance(error, openai.APITimeoutError):
        return provider_error("timeout", f"The request to {where} timed out")
    if isinstance(error, openai.APIConnectionError):
        reason = _cause(error) or f": {server_words(error.message)}"
        return provider_error("network", f"Network error talking to {where}{reason}")
    if isinstance(error, openai.APIStatusError):
        return _status_error(error, model=model, where=where)
    if isinstance(error, openai.APIError):
        text = server_words(server_text(error))
        if is_context_length(text, server_code(error)):
            return provider_error("context-length", f"{where} says the request is too long for the model: {text}")
        return provider_error("stream-error", f"The server reported an error mid-stream: {text}")
    return provider_error("unknown", f"OpenAI client error: {server_words(str(error))}")


def _status_error(error: openai.APIStatusError, *, model: str, where: str) -> ProviderError:
    status, text = error.status_code, server_words(server_text(error))
    if status in (400, 413, 422, 500) and is_context_length(text, server_code(error)):
        return provider_error(
            "context-length", f"The request is too long for the model's context ({status} from {where}): {text}",
            status=status,
        )
    if status == 401:
        return provider_error("auth", f"{where} rejected the API key (401): {text}", status=status)
    if status == 403:
        return provider_error("permission", f"Access denied (403) for model '{model}' at {where}: {text}",
                              status=status)
    if status == 404:
        return provider_error("not-found", f"Model '{model}' not found (404) at {where}: {text}", status=status)
    if status == 429:
        return provider_error("rate-limit", f"Rate limited or out of quota (429) at {where}: {text}", status=status)
    if status >= 500:
        return provider_error("server", f"Server error ({status}) at {where}: {text}", status=status)
    if status in (400, 409, 413, 422):
        return provider_error("bad-request", f"The request was rejected ({status}) by {where}: {text}",
                              status=status)
    return provider_error("unknown", f"Unexpected HTTP {status} from {where}: {text}", status=status)
