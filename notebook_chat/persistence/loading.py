"""Reading a stored conversation for a new engine: validated, never executed, refused records left untouched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import RecordError, StoreError
from .record import record_from_dict, record_to_dict
from .stores import ConversationStore


@dataclass(frozen=True)
class LoadedConversation:
    record: dict[str, Any] | None
    """The validated record (``MessageEngine.from_record`` takes it), or None."""
    refused: str | None = None
    """Why the stored data can't be used; it stays where it is, untouched, and must not be saved over."""
    notice: str | None = None
    """A problem that did not stop the load (e.g. a paused turn that could not be read)."""


def read_record(data: Any) -> LoadedConversation:
    """Validate an untrusted record (from a file, or from notebook metadata handed over by the browser)."""
    if data is None:
        return LoadedConversation(None)
    try:
        loaded = record_from_dict(data)
        record = record_to_dict(loaded.record)
    except (RecordError, ValueError) as error:
        return LoadedConversation(None, refused=f"the stored conversation can't be used: {error}")
    notice = None
    if loaded.paused_turn_error:
        notice = f"the stored paused turn was dropped: {loaded.paused_turn_error}"
    return LoadedConversation(record, notice=notice)


def load_conversation(store: ConversationStore, key: str) -> LoadedConversation:
    try:
        data = store.load(key)
    except StoreError as error:
        return LoadedConversation(None, refused=f"the conversation store can't be read: {error}")
    return read_record(data)
