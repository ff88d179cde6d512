"""The container of one notebook's or file's chats: `{"version": 2, "conversations": {key: entry}}`.

The same shape as `metadata["notebook_chat"]`; FileStore and the notebook-metadata store share it. Each chat key holds
a `ChatEntry` (`{"active": id, "items": {id: record}}`, see `chat_entry`). Version 1 held one record per key: it is
read (each record becomes an entry with one conversation) and written back as version 2 on the next write.
"""

from __future__ import annotations

from typing import Any

from notebook_chat.engine.conversation import MAX_ID_CHARS
from notebook_chat.persistence.chat_entry import ChatEntry, parse_entry
from notebook_chat.persistence.errors import StoreError

CONTAINER_VERSION = 2
READABLE_VERSIONS = (1, 2)


def check_key(key: Any) -> str:
    """Keys are non-empty strings of at most 200 characters (`ValueError` otherwise: a programmer error)."""
    if not isinstance(key, str) or not key or len(key) > MAX_ID_CHARS:
        raise ValueError(
            f"a conversation key must be a non-empty string of at most {MAX_ID_CHARS} characters, "
            f"got {key!r:.80}"
        )
    return key


def parse_container(data: Any, source: str) -> dict[str, ChatEntry]:
    """Every chat's entry (version 1 migrated), or `StoreError` saying why `source` can't be read (nothing changes).

    Records are returned as they are; each is validated when loaded (`read_record`)."""
    if not isinstance(data, dict):
        raise StoreError(f"{source} does not hold a notebook_chat object (found {type(data).__name__})")
    version = data.get("version")
    if type(version) is not int:
        raise StoreError(f"{source} has no valid version number (found {version!r:.40})")
    if version not in READABLE_VERSIONS:
        raise StoreError(
            f"{source} was written by a newer notebook_chat (version {version}); this one reads "
            f"versions {READABLE_VERSIONS[0]} to {CONTAINER_VERSION}. It is left untouched."
        )
    conversations = data.get("conversations")
    if not isinstance(conversations, dict):
        raise StoreError(f"{source} has no 'conversations' object")
    entries: dict[str, ChatEntry] = {}
    for key, entry in conversations.items():
        if not key or len(key) > MAX_ID_CHARS:
            raise StoreError(
                f"{source} holds a conversation key of {len(key)} characters (1..{MAX_ID_CHARS})"
            )
        if not isinstance(entry, dict):
            raise StoreError(f"{source}: conversation {key!r:.80} is a {type(entry).__name__}, not an object")
        entries[key] = parse_entry(entry, f"{source}: chat {key!r:.80}")
    return entries


def build_container(conversations: dict[str, Any]) -> dict[str, Any]:
    """The container holding these chats' entries (a version-1 record given as a value is read as one entry)."""
    return {"version": CONTAINER_VERSION, "conversations": conversations}
