"""Key → conversation-record stores: `MemoryStore` for tests and scripts, `FileStore` where there is no notebook."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from notebook_chat.persistence.container import check_key
from notebook_chat.persistence.prune import prune
from notebook_chat.persistence.record import check_record


@runtime_checkable
class ConversationStore(Protocol):
    """Holds one conversation record per key.

    `save` runs the same checks as loading (`check_record`): a value that is not strict JSON
    (`SerializationError`), carries a credential (`SecretError`) or is not a valid record (`RecordError`) is
    refused and nothing changes, so whatever saved loads again. `load` returns a copy (not validated: readers call
    `read_record`), or None for an unknown key. A store never rewrites or deletes data it could not read."""

    def load(self, key: str) -> dict[str, Any] | None: ...

    def save(self, key: str, record: Mapping[str, Any]) -> None: ...

    def delete(self, key: str) -> None: ...

    def keys(self) -> list[str]: ...


def check_for_saving(key: str, record: Any) -> None:
    """What every store's `save` runs first: the key, then the record exactly as a load checks it."""
    check_key(key)
    if not isinstance(record, dict):
        raise TypeError(f"a store saves JSON objects, got {type(record).__name__}")
    check_record(record)


class MemoryStore:
    """In-process store; values are copied in and out, so callers can't change what is stored by accident."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def load(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            text = self._data.get(check_key(key))
        return None if text is None else json.loads(text)

    def save(self, key: str, record: Mapping[str, Any]) -> None:
        check_for_saving(key, record)
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._data[key] = text

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
