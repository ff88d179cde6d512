"""What one chat keeps under its key: its conversations, `{"active": id, "items": {id: conversation record}}`.

This is container version 2 (`metadata["notebook_chat"] = {"version": 2, "conversations": {chat key: entry}}`).
Version 1 kept one conversation record per chat key; such a record (anything stored under a key that is an object
without `items`) is read as an entry holding that record as its one conversation, `DEFAULT_CONVERSATION_ID`,
active. Nothing is lost and the record itself is not changed: it is validated when it is opened (`read_record`),
like every record.

The helpers here are pure: they take and return entries (plain dicts); the stores keep them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from typing_extensions import TypedDict

from notebook_chat.engine.conversation import MAX_ID_CHARS
from notebook_chat.engine.notices import Notice
from notebook_chat.persistence.errors import StoreError

DEFAULT_CONVERSATION_ID = "main"
"""The id of a chat's first conversation when nobody chose one (and of a version-1 record read as an entry)."""
MAX_CONVERSATIONS = 1_000


class ChatEntry(TypedDict):
    active: str
    items: dict[str, dict[str, Any]]
    """Conversation id → record (raw: validated when opened), in the order they were stored."""


def new_conversation_id() -> str:
    return f"c{uuid.uuid4().hex[:12]}"


def check_conversation_id(conversation_id: Any) -> str:
    """Conversation ids are non-empty strings of at most 200 characters (`ValueError` otherwise)."""
    if not isinstance(conversation_id, str) or not conversation_id or len(conversation_id) > MAX_ID_CHARS:
        raise ValueError(f"a conversation id must be a non-empty string of at most {MAX_ID_CHARS} characters, "
                         f"got {conversation_id!r:.80}")
    return conversation_id


def is_entry(value: Any) -> bool:
    """True for a version-2 entry; any other object under a chat key is a version-1 record."""
    return isinstance(value, Mapping) and "items" in value


def parse_entry(value: Any, source: str) -> ChatEntry:
    """The entry stored under a chat key (a version-1 record becomes an entry), or `StoreError` saying why not.

    The records inside are returned as they are. An `active` that names no conversation falls back to the last one
    (the conversations themselves are what must not be lost)."""
    if not isinstance(value, Mapping):
        raise StoreError(f"{source} is a {type(value).__name__}, not an object")
    if not is_entry(value):
        record = {key: field for key, field in value.items() if key != "revision"}  # stamped by the browser
        return {"active": DEFAULT_CONVERSATION_ID, "items": {DEFAULT_CONVERSATION_ID: record}}
    items = value.get("items")
    if not isinstance(items, Mapping) or not items:
        raise StoreError(f"{source}.items is not an object holding at least one conversation")
    if len(items) > MAX_CONVERSATIONS:
        raise StoreError(f"{source}.items holds {len(items)} conversations, at most {MAX_CONVERSATIONS} are read")
    for conversation_id, record in items.items():
        if not isinstance(conversation_id, str) or not conversation_id or len(conversation_id) > MAX_ID_CHARS:
            raise StoreError(f"{source}.items holds a conversation id of {len(conversation_id)} characters "
                             f"(1..{MAX_ID_CHARS})")
        if not isinstance(record, Mapping):
            raise StoreError(f"{source}.items[{conversation_id!r:.80}] is a {type(record).__name__}, not an object")
    active = value.get("active")
    if not isinstance(active, str) or active not in items:
        active = list(items)[-1]
    return {"active": active, "items": {key: dict(record) for key, record in items.items()}}


def with_record(entry: ChatEntry | None, conversation_id: str | None, record: Mapping[str, Any], *,
                active: bool = False) -> tuple[ChatEntry, str]:
    """`entry` with `record` stored under `conversation_id` (None: the active one, or the default for a new entry),
    and the id used. A new entry's first conversation is active; `active=True` makes this one active."""
    if conversation_id is None:
        conversation_id = entry["active"] if entry is not None else DEFAULT_CONVERSATION_ID
    check_conversation_id(conversation_id)
    if entry is None:
        return {"active": conversation_id, "items": {conversation_id: dict(record)}}, conversation_id
    items = dict(entry["items"])
    if conversation_id not in items and len(items) >= MAX_CONVERSATIONS:
        raise ValueError(Notice("conversations.too_many", limit=MAX_CONVERSATIONS))
    items[conversation_id] = dict(record)
    return {"active": conversation_id if active else entry["active"], "items": items}, conversation_id


def without(entry: ChatEntry, conversation_id: str) -> ChatEntry | None:
    """`entry` without that conversation (None when none is left); a deleted active one hands over to the last."""
    items = {key: record for key, record in entry["items"].items() if key != conversation_id}
    if not items:
        return None
    active = entry["active"] if entry["active"] in items else list(items)[-1]
    return {"active": active, "items": items}


def activated(entry: ChatEntry, conversation_id: str) -> ChatEntry:
    if conversation_id not in entry["items"]:
        raise KeyError(f"no conversation {conversation_id!r:.80} in this chat")
    return {"active": conversation_id, "items": entry["items"]}


def active_record(entry: ChatEntry | None, conversation_id: str | None = None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return entry["items"].get(conversation_id if conversation_id is not None else entry["active"])
