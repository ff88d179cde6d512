"""Errors of the persistence layer. Each names where the problem is, so a person can act on it."""

from __future__ import annotations

from notebook_chat.engine.errors import NotebookChatError


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


class ValidationError(PersistenceError, ValueError):
    """Untrusted data does not have the expected shape; `reason` is a sentence naming the field."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SnapshotError(ValidationError):
    """A paused-turn snapshot is invalid or of an unknown version."""


class RecordError(ValidationError):
    """A conversation record is corrupt, too large, or of a future version; it was not loaded."""


class StoreError(PersistenceError):
    """A store cannot read or write its data; the data on disk was left untouched."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
