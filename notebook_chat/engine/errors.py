"""Errors the engine and providers raise. Business outcomes are returned, not raised."""

from __future__ import annotations

from typing import Literal

ProviderErrorKind = Literal[
    "auth", "permission", "not-found", "bad-request", "context-length", "rate-limit", "server", "network",
    "timeout", "incomplete", "stream-error", "bad-response", "unknown",
]


class NotebookChatError(Exception):
    """Base class of every error notebook_chat raises on purpose."""


class ProviderError(NotebookChatError):
    """A request to the model failed; `message` is written for a person to act on."""

    def __init__(self, message: str, *, kind: ProviderErrorKind = "unknown", status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status = status


class PluginError(NotebookChatError):
    """A plugin broke the engine's contract (a programmer error)."""


class CommandError(NotebookChatError):
    """A command name is unknown or registered twice (a programmer error)."""


class HistoryError(NotebookChatError):
    """A message history breaks the rules every provider enforces."""


class RecordError(NotebookChatError, ValueError):
    """A conversation record (or its paused turn) is corrupt, too large, or of a future version; ``reason`` is a
    sentence naming the JSON path (``$.messages[3].role: ...``). Nothing was loaded or saved."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TurnBlocked(NotebookChatError):
    """Raised by a plugin hook to stop a turn before it reaches the model (end reason ``blocked``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class EngineWarning(UserWarning):
    """A call the engine ignored (empty text, a turn already running)."""
