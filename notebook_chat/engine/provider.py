"""The provider protocol: an async callable from a sanitized request body to a completion or a chunk stream.

A provider receives ``body`` (``{"messages": [...], **plugin_fields}`` such as ``tools`` / ``tool_choice``) and a
:class:`CancelHandle`. It returns either one complete OpenAI-shaped chat completion
(``{"choices": [{"message": {...}, "finish_reason": ...}], "usage": ...}``) or an async iterator of OpenAI-shaped
chunks (``{"choices": [{"index": 0, "delta": {...}, "finish_reason": ...}], "usage": ...}``). Failures are raised as
:class:`~notebook_chat.engine.errors.ProviderError` with a message a person can act on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol, Union, runtime_checkable

ChatCompletion = dict[str, Any]
ChatCompletionChunk = dict[str, Any]
ProviderResult = Union[ChatCompletion, AsyncIterator[ChatCompletionChunk]]  # noqa: UP007 (a runtime alias on 3.10)


class CancelHandle:
    """Tells a provider that the turn was stopped; providers close their stream when it fires."""

    def __init__(self) -> None:
        self._cancelled = False
        self._callbacks: list[Callable[[], object]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def add_callback(self, callback: Callable[[], object]) -> None:
        if self._cancelled:
            callback()
        else:
            self._callbacks.append(callback)

    def cancel(self) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


class Provider(Protocol):
    def __call__(self, body: dict[str, Any], cancel: CancelHandle) -> Awaitable[ProviderResult]: ...


@runtime_checkable
class RedactsSecrets(Protocol):
    """A provider that knows its credentials: the engine passes every error text through ``redact`` before it is
    stored (message state, turn log) or shown."""

    def redact(self, text: str) -> str: ...


@runtime_checkable
class HasContextWindow(Protocol):
    """A provider that knows its model's context size in tokens (``None``: unknown, send everything)."""

    context_window: int | None
