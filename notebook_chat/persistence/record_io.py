"""Records through a store: validate on the way in and out, so callers handle one `RecordError`."""

from __future__ import annotations

from notebook_chat.persistence.record import ConversationRecord, LoadResult, record_from_dict, record_to_dict
from notebook_chat.persistence.stores import ConversationStore


def load_record(store: ConversationStore, key: str) -> LoadResult | None:
    """The record under `key`, None if there is none; `RecordError` (with the reason) if it can't be read.

    A refused record stays in the store as it is: don't save over that key unless the user asks to start
    over."""
    data = store.load(key)
    return None if data is None else record_from_dict(data)


def save_record(store: ConversationStore, key: str, record: ConversationRecord) -> None:
    store.save(key, record_to_dict(record))
