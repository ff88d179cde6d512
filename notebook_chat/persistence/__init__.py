"""Persistence: strict JSON, paused-turn snapshots, conversation records, and the stores that keep them."""

from notebook_chat.persistence.checks import utc_now_iso
from notebook_chat.persistence.container import CONTAINER_VERSION, build_container, check_key, parse_container
from notebook_chat.persistence.errors import (
    PersistenceError,
    RecordError,
    SecretError,
    SerializationError,
    SnapshotError,
    StoreError,
    ValidationError,
)
from notebook_chat.persistence.file_store import FileStore, atomic_write
from notebook_chat.persistence.jsonsafe import dumps_canonical, loads_strict, to_json_value
from notebook_chat.persistence.prune import prune
from notebook_chat.persistence.record import (
    END_REASONS,
    RECORD_VERSION,
    ConversationRecord,
    EndReason,
    LoadResult,
    TurnEntry,
    record_from_dict,
    record_to_dict,
)
from notebook_chat.persistence.record_io import load_record, save_record
from notebook_chat.persistence.restore import (
    RestoreCheck,
    awaiting_call_ids,
    call_name_and_arguments,
    capture_snapshot,
    check_restorable,
)
from notebook_chat.persistence.secrets import assert_no_secrets, is_secret_key
from notebook_chat.persistence.snapshot import SNAPSHOT_VERSION, PausedTurnSnapshot, call_hash
from notebook_chat.persistence.stores import ConversationStore, MemoryStore, SnapshotStore

__all__ = [
    "CONTAINER_VERSION",
    "END_REASONS",
    "RECORD_VERSION",
    "SNAPSHOT_VERSION",
    "ConversationRecord",
    "ConversationStore",
    "EndReason",
    "FileStore",
    "LoadResult",
    "MemoryStore",
    "PausedTurnSnapshot",
    "PersistenceError",
    "RecordError",
    "RestoreCheck",
    "SecretError",
    "SerializationError",
    "SnapshotError",
    "SnapshotStore",
    "StoreError",
    "TurnEntry",
    "ValidationError",
    "assert_no_secrets",
    "atomic_write",
    "awaiting_call_ids",
    "build_container",
    "call_hash",
    "call_name_and_arguments",
    "capture_snapshot",
    "check_key",
    "check_restorable",
    "dumps_canonical",
    "is_secret_key",
    "load_record",
    "loads_strict",
    "parse_container",
    "prune",
    "record_from_dict",
    "record_to_dict",
    "save_record",
    "to_json_value",
    "utc_now_iso",
]

from notebook_chat.persistence.autosave import ConversationAutosave
from notebook_chat.persistence.loading import LoadedConversation, load_conversation, read_record

__all__ += ["ConversationAutosave", "LoadedConversation", "load_conversation", "read_record"]
