"""Key → chat stores: `MemoryStore` for tests and scripts, `FileStore` where there is no notebook.

Under each chat key a store keeps that chat's conversations (a `ChatEntry`: `{"active": id, "items": {id: record}}`).
The calls that name no conversation act on the active one, so a chat with one conversation reads as it always did.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from notebook_chat.persistence.chat_entry import (
    ChatEntry,
    activated,
    active_record,
    check_conversation_id,
    with_record,
    without,
)
from notebook_chat.persistence.container import check_key
from notebook_chat.persistence.prune import prune
from notebook_chat.persistence.record import check_record


@runtime_checkable
class ConversationStore(Protocol):
    """Holds each chat's conversations under the chat's key.

    `save` runs the same checks as loading (`check_record`): a value that is not strict JSON
    (`SerializationError`), carries a credential (`SecretError`) or is not a valid record (`RecordError`) is
    refused and nothing changes, so whatever saved loads again. `load` and `load_entry` return copies (not
    validated: readers call `read_record`), or None for an unknown key. A store never rewrites or deletes data it
    could not read."""

    def load(self, key: str, conversation_id: str | None = None) -> dict[str, Any] | None:
        """One conversation's record (None: the active one)."""
        ...

    def load_entry(self, key: str) -> ChatEntry | None:
        """All of the chat's conversations and which one is active."""
        ...

    def save(self, key: str, record: Mapping[str, Any], conversation_id: str | None = None, *,
             active: bool = False) -> None:
        """Store one conversation (None: the active one). A chat's first conversation, or `active=True`, becomes
        the active one."""
        ...

    def activate(self, key: str, conversation_id: str) -> None:
        """Make a stored conversation the active one (`KeyError` when there is none of that id)."""
        ...

    def delete(self, key: str, conversation_id: str | None = None) -> None:
        """Forget one conversation, or (None) the whole chat."""
        ...

    def keys(self) -> list[str]: ...


def check_for_saving(key: str, record: Any, conversation_id: str | None = None) -> None:
    """What every store's `save` runs first: the key and id, then the record exactly as a load checks it."""
    check_key(key)
    if conversation_id is not None:
        check_conversation_id(conversation_id)
    if not isinstance(record, dict):
        raise TypeError(f"a store saves JSON objects, got {type(record).__name__}")
    check_record(record)


class MemoryStore:
    """In-process store; values are copied in and out, so callers can't change what is stored by accident."""

    def __init__(self) -> None:
        self._data: dict[str, ChatEntry] = {}
        """Each record is kept as its JSON text (a copy nobody else holds)."""
        self._lock = threading.Lock()

    def load(self, key: str, conversation_id: str | None = None) -> dict[str, Any] | None:
        with self._lock:
            text = active_record(self._data.get(check_key(key)), conversation_id)
        return None if text is None else json.loads(text["json"])

    def load_entry(self, key: str) -> ChatEntry | None:
        with self._lock:
            entry = self._data.get(check_key(key))
            if entry is None:
                return None
            return {"active": entry["active"],
                    "items": {cid: json.loads(text["json"]) for cid, text in entry["items"].items()}}

    def save(self, key: str, record: Mapping[str, Any], conversation_id: str | None = None, *,
             active: bool = False) -> None:
        check_for_saving(key, record, conversation_id)
        text = {"json": json.dumps(record, ensure_ascii=False, allow_nan=False)}
        with self._lock:
            self._data[key], _ = with_record(self._data.get(key), conversation_id, text, active=active)

    def activate(self, key: str, conversation_id: str) -> None:
        with self._lock:
            entry = self._data.get(check_key(key))
            if entry is None:
                raise KeyError(f"no chat {key!r:.80} in this store")
            self._data[key] = activated(entry, conversation_id)

    def delete(self, key: str, conversation_id: str | None = None) -> None:
        with self._lock:
            entry = self._data.get(check_key(key))
            if entry is None:
                return
            rest = None if conversation_id is None else without(entry, conversation_id)
            if rest is None:
                del self._data[key]
            else:
                self._data[key] = rest

    def keys(self) -> list[str]:
        with self._lock:
            return sorted(self._data)

    def prune(
        self, *, max_age: timedelta | None = None, keep: int | None = None, now: datetime | None = None
    ) -> list[str]:
        """See `notebook_chat.persistence.prune.prune`."""
        return prune(self, max_age=max_age, keep=keep, now=now)
