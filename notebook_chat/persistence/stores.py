"""Key → record-dict stores: `MemoryStore` for tests and scripts, `FileStore` where there is no notebook."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from notebook_chat.persistence.container import check_key
from notebook_chat.persistence.jsonsafe import to_json_value
from notebook_chat.persistence.prune import prune
from notebook_chat.persistence.secrets import assert_no_secrets


@runtime_checkable
class ConversationStore(Protocol):
    """Holds one JSON object per key (a conversation record, or a paused-turn snapshot).

    `save` refuses non-JSON values (`SerializationError`) and credentials (`SecretError`); `load` returns a
    copy, or None for an unknown key. A store never rewrites or deletes data it could not read."""

    def load(self, key: str) -> dict[str, Any] | None: ...

    def save(self, key: str, record: dict[str, Any]) -> None: ...

    def delete(self, key: str) -> None: ...

    def keys(self) -> list[str]: ...


SnapshotStore = ConversationStore
"""Issue 3's name for the same protocol: paused-turn snapshots are stored the same way."""


def checked_copy(key: str, record: dict[str, Any]) -> dict[str, Any]:
    """Validate a key and a value for saving; return a private JSON copy."""
    check_key(key)
    if not isinstance(record, dict):
        raise TypeError(f"a store saves JSON objects, got {type(record).__name__}")
    copy: dict[str, Any] = to_json_value(record)
    assert_no_secrets(copy)
    return copy


class MemoryStore:
    """In-process store; values are copied in and out, so callers can't change what is stored by accident."""

    def __init__(self) -> None:
        self._data: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def load(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            value = self._data.get(check_key(key))
            return None if value is None else to_json_value(value)

    def save(self, key: str, record: dict[str, Any]) -> None:
        copy = checked_copy(key, record)
        with self._lock:
            self._data[key] = copy

    def delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(check_key(key), None)

    def keys(self) -> list[str]:
        with self._lock:
            return sorted(self._data)

    def prune(
        self, *, max_age: timedelta | None = None, keep: int | None = None, now: datetime | None = None
    ) -> list[str]:
        """See `notebook_chat.persistence.prune.prune`."""
        return prune(self, max_age=max_age, keep=keep, now=now)
