"""Reading a stored conversation: validated once, never executed, refused records left untouched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from notebook_chat.engine.conversation import ConversationRecord
from notebook_chat.engine.errors import RecordError
from notebook_chat.engine.notices import Notice

from .blobs import unpack
from .chat_entry import parse_entry
from .conversation_list import ConversationList
from .errors import SecretError, SerializationError, StoreError
from .record import check_record_sized, collector_paused
from .stores import ConversationStore

PAUSED = "$.paused_turn"


@dataclass(frozen=True)
class LoadedConversation:
    record: ConversationRecord | None
    """The validated record (``MessageEngine.load`` takes it), or None."""
    refused: str | None = None
    """Why the stored data can't be used; it stays where it is, untouched, and must not be saved over."""
    notice: str | None = None
    """A problem that did not stop the load (e.g. a paused turn that could not be read)."""
    size: int | None = None
    """The record's JSON size in bytes, as the check measured it (None when nothing loaded)."""


def read_record(data: Any) -> LoadedConversation:
    """Validate an untrusted record (from a store, or from notebook metadata handed over by the browser).

    A paused turn that can't be read is dropped with a notice: the messages still load, the engine stays idle."""
    if data is None:
        return LoadedConversation(None)
    try:
        checked, size = check_record_sized(data)
    except RecordError as error:
        if not error.reason.startswith(PAUSED) or not isinstance(data, dict):
            return _refused(error)
        paused_error = "$" + error.reason[len(PAUSED):]
    except SerializationError as error:
        return _refused(Notice("load.not_strict_json", error=error))
    except SecretError as error:
        return _refused(Notice("load.secret", error=error))
    else:
        with collector_paused():
            record, notice = unpack(checked)  # display data stored once by hash: resolved, a bad reference dropped
        return LoadedConversation(record, notice=notice, size=size)  # type: ignore[arg-type]
    retried = read_record({**data, "paused_turn": None})
    if retried.record is None:
        return retried
    notice = Notice("load.paused_dropped", error=paused_error)
    if retried.notice:
        notice = Notice("notice.joined", first=notice, second=retried.notice)
    return LoadedConversation(retried.record, notice=notice, size=retried.size)


def _refused(reason: object) -> LoadedConversation:
    return LoadedConversation(None, refused=Notice("load.unusable", reason=reason))


def load_conversation(store: ConversationStore, key: str) -> LoadedConversation:
    try:
        data = store.load(key)
    except StoreError as error:
        return LoadedConversation(None, refused=Notice("load.store_unreadable", error=error))
    return read_record(data)


@dataclass(frozen=True)
class LoadedChat:
    """A chat's stored conversations: the list (the inactive ones kept as stored) and the active one, read."""

    conversations: ConversationList
    record: ConversationRecord | None
    """The active conversation's validated record (None: nothing stored, or refused)."""
    refused: str | None = None
    """Why the stored chat (or its active conversation) can't be used; nothing may be written over it."""
    notice: str | None = None
    size: int | None = None
    """The active record's JSON size in bytes, as the check measured it."""


def read_entry(data: Any) -> LoadedChat:
    """Read what is stored under a chat key (untrusted): a version-2 entry, or a version-1 record (migrated)."""
    if data is None:
        return LoadedChat(ConversationList(), None)
    try:
        entry = parse_entry(data, "the stored chat")
    except StoreError as error:
        return LoadedChat(ConversationList(), None, refused=Notice("load.conversations_unusable", error=error))
    conversations = ConversationList.from_entry(entry)
    loaded = read_record(entry["items"][entry["active"]])
    return LoadedChat(conversations, loaded.record, loaded.refused, loaded.notice, loaded.size)


def load_chat(store: ConversationStore, key: str) -> LoadedChat:
    try:
        entry = store.load_entry(key)
    except StoreError as error:
        return LoadedChat(ConversationList(), None, refused=Notice("load.store_unreadable", error=error))
    return read_entry(entry)
