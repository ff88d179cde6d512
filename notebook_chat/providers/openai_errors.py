"""Turn openai SDK exceptions into :class:`ProviderError` with a message a person can act on.

The server's own error text is always kept in the message. Shared by the Chat Completions and Responses
providers.
"""

from __future__ import annotations

from collections.abc import Mapping

import openai

from ..engine.errors import ProviderError

INCOMPLETE_MESSAGE = (
    "The stream ended before the reply was complete (no finish reason arrived); "
    "the connection or a proxy may have cut it off. Continue or retry."
)


def unreadable_stream(error: Exception, where: str) -> ProviderError:
    """A stream event the client could not read: not JSON, or JSON that is not an event object."""
    detail = str(error).strip()[:200] or type(error).__name__
    return ProviderError(
        f"{where} sent a stream event that is not a JSON object ({type(error).__name__}: {detail}). "
        "The partial reply is kept; retry, or check the server (or the proxy in front of it).",
        kind="bad-response",
    )


def server_text(error: openai.APIError) -> str:
    """The server's own words: ``error.message`` from the JSON body when there is one."""
    body = error.body
    if isinstance(body, Mapping):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
    return error.message


def _cause(error: BaseException) -> str:
    """``": <reason>"`` from the first underlying exception that says something (e.g. a reset by peer)."""
    cause, depth = error.__cause__ or error.__context__, 0
    while cause is not None and depth < 10:
        text = str(cause).strip()
        if text:
            return f": {text}"
        cause, depth = cause.__cause__ or cause.__context__, depth + 1
    return ""


def to_provider_error(error: openai.OpenAIError, *, model: str, where: str) -> ProviderError:
    """Map an SDK exception; ``where`` names the server (scheme://host), never with credentials."""
    if isinstance(error, openai.APITimeoutError):
        return ProviderError(
            f"The request to {where} timed out. The server may be overloaded or the "
            "network slow; retry, or raise the timeout.",
            kind="timeout",
        )
    if isinstance(error, openai.APIConnectionError):
        return ProviderError(
            f"Network error talking to {where}{_cause(error) or ': ' + error.message.rstrip('.')}. "
            "Check your connection and the base URL, then retry.",
            kind="network",
        )
    if isinstance(error, openai.APIStatusError):
        return _status_error(error, model=model, where=where)
    if isinstance(error, openai.APIError):
        return ProviderError(
            f"The server reported an error mid-stream: {server_text(error)}", kind="stream-error"
        )
    return ProviderError(f"OpenAI client error: {error}", kind="unknown")


def _status_error(error: openai.APIStatusError, *, model: str, where: str) -> ProviderError:
    status, text = error.status_code, server_text(error)
    if status == 401:
        return ProviderError(
            f"{where} rejected the API key (401): {text} — check OPENAI_API_KEY (or the api_key you passed).",
            kind="auth",
            status=status,
        )
    if status == 403:
        return ProviderError(
            f"Access denied (403) for model '{model}' at {where}: {text} — check the key's project, "
            "organization and model permissions.",
            kind="permission",
            status=status,
        )
    if status == 404:
        return ProviderError(
            f"Model '{model}' not found (404) at {where}: {text} — check the model name and the base URL.",
            kind="not-found",
            status=status,
        )
    if status == 429:
        return ProviderError(
            f"Rate limited or out of quota (429) at {where}: {text} — wait and retry, or check your plan "
            "and billing.",
            kind="rate-limit",
            status=status,
        )
    if status >= 500:
        return ProviderError(
            f"Server error ({status}) at {where}: {text} — the service failed; retry later.",
            kind="server",
            status=status,
        )
    if status in (400, 409, 413, 422):
        return ProviderError(
            f"The request was rejected ({status}) by {where}: {text}", kind="bad-request", status=status
        )
    return ProviderError(f"Unexpected HTTP {status} from {where}: {text}", kind="unknown", status=status)
