"""Persistence: strict JSON, paused-turn snapshots, conversation records, and the stores that keep them.

The record's shapes and validator live in `notebook_chat.engine.conversation`; this layer adds the scans pydantic
can't express (`check_record`) and runs them on every save and every load."""

from notebook_chat.persistence.autosave import ConversationAutosave
from notebook_chat.persistence.container import CONTAINER_VERSION, build_container, check_key, parse_container
from notebook_chat.persistence.errors import PersistenceError, RecordError, SecretError, SerializationError, StoreError
from notebook_chat.persistence.file_store import FileStore, atomic_write
from notebook_chat.persistence.jsonsafe import dumps_canonical, loads_strict, to_json_value
from notebook_chat.persistence.loading import LoadedConversation, load_conversation, read_record
from notebook_chat.persistence.prune import prune
from notebook_chat.persistence.record import check_paused_turn, check_record
from notebook_chat.persistence.restore import (
    RestoreCheck,
    call_hash,
    call_name_and_arguments,
    capture_snapshot,
    check_restorable,
)
from notebook_chat.persistence.secrets import assert_no_secrets, is_secret_key
from notebook_chat.persistence.stores import ConversationStore, MemoryStore

__all__ = [
    "CONTAINER_VERSION", "ConversationAutosave", "ConversationStore", "FileStore", "LoadedConversation", "MemoryStore",
    "PersistenceError", "RecordError", "RestoreCheck", "SecretError", "SerializationError", "StoreError",
    "assert_no_secrets", "atomic_write", "build_container", "call_hash", "call_name_and_arguments",
    "capture_snapshot", "check_key", "check_paused_turn", "check_record", "check_restorable", "dumps_canonical",
    "is_secret_key", "load_conversation", "loads_strict", "parse_container", "prune", "read_record",
    "to_json_value",
]
