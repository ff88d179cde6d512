"""Conversations kept in the metadata of the notebook that shows the chat, written through the front end.

The kernel never edits the .ipynb file itself (JupyterLab's next save would say "File Changed" and overwrite
it). Each save goes to `send(key, record)`: the widget turns it into a `{"kind": "persist"}` message and the
browser writes `metadata["notebook_chat"]["conversations"][key]` and marks the notebook dirty (the user's
Ctrl+S or JupyterLab's autosave puts it on disk). `send(key, None)` asks the browser to delete the key.

Records the browser reads from the notebook reach the kernel through `ingest`. They are untrusted: this store
only checks they are JSON objects; validating their content is the restore code's job. The kernel's live copy
beats the browser's: once this kernel saved a key, a later `ingest` of it is ignored (a re-rendered view must
not roll a conversation back).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from notebook_chat.persistence.errors import StoreError
from notebook_chat.persistence.jsonsafe import to_json_value
from notebook_chat.persistence.secrets import assert_no_secrets

Send = Callable[[str, "dict[str, Any] | None"], None]
"""`send(key, record)` delivers a write to the front end; `record` None deletes the key."""


class NotebookMetadataStore:
    """A store whose durable copy lives in notebook metadata; this object is the kernel's in-memory copy."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._records: dict[str, dict[str, Any]] = {}
        self._written: set[str] = set()

    def load(self, key: str) -> dict[str, Any] | None:
        """A copy of the record stored under `key` (saved here or ingested from the notebook), or None."""
        record = self._records.get(_check_key(key))
        return copy.deepcopy(record) if record is not None else None

    def save(self, key: str, record: dict[str, Any]) -> None:
        """Keep `record` and send it to the notebook. Not plain JSON, or secrets: StoreError, nothing kept."""
        _check_key(key)
        if not isinstance(record, dict):
            raise StoreError(f"a record must be a dict, got {type(record).__name__}")
        try:
            value = to_json_value(record)
            assert_no_secrets(value)
        except ValueError as error:
            raise StoreError(f"record {key!r} was not saved: {error}") from error
        self._records[key] = value
        self._written.add(key)
        self._send(key, copy.deepcopy(value))

    def delete(self, key: str) -> None:
        """Forget `key` here and ask the notebook to drop it."""
        self._records.pop(_check_key(key), None)
        self._written.add(key)
        self._send(key, None)

    def keys(self) -> list[str]:
        return sorted(self._records)

    def ingest(self, key: str, record: Any) -> bool:
        """Take a record the browser read from the notebook. True when adopted; False when this kernel
        already wrote `key` (its live copy wins) or there is nothing to adopt (None). Not a JSON object:
        StoreError, nothing changes."""
        _check_key(key)
        if record is None or key in self._written:
            return False
        if not isinstance(record, dict):
            raise StoreError(f"the notebook's record {key!r} is not an object (got {type(record).__name__})")
        try:
            self._records[key] = to_json_value(record)
        except ValueError as error:
            raise StoreError(f"the notebook's record {key!r} is not plain JSON: {error}") from error
        return True


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise StoreError(f"a conversation key must be a non-empty string, got {key!r}")
    return key
