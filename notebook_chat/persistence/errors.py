"""Errors of the persistence layer. Each names where the problem is, so a person can act on it."""

from __future__ import annotations

from notebook_chat.engine.errors import NotebookChatError, RecordError

__all__ = ["PersistenceError", "RecordError", "SecretError", "SerializationError", "StoreError"]


class PersistenceError(NotebookChatError):
    """Base class of every error the persistence layer raises."""


class SerializationError(PersistenceError, ValueError):
    """A value is not strict JSON; `path` names the field (e.g. `$.custom_context.rows[3]`)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class SecretError(PersistenceError, ValueError):
    """A value carries something that looks like a credential; nothing with it may be persisted."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class StoreError(PersistenceError):
    """A store cannot read or write its data; the data on disk was left untouched."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
