"""Conversations kept in the metadata of the notebook that shows the chat, written through the front end.

The kernel never edits the .ipynb file itself (JupyterLab's next save would say "File Changed" and overwrite
it). Each save goes to `send(key, record)`: the widget turns it into a `{"kind": "persist"}` message and the
browser writes `metadata["notebook_chat"]["conversations"][key]` and marks the notebook dirty (the user's
Ctrl+S or JupyterLab's autosave puts it on disk). `send(key, None)` asks the browser to delete the key.

What the notebook stored reaches the kernel with the browser's "ready" action and is read by the `Chat` facade
(which also decides that the kernel's live conversation beats it); this store only writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from notebook_chat.persistence.stores import check_for_saving

Send = Callable[[str, "Mapping[str, Any] | None"], None]
"""`send(key, record)` delivers a write to the front end; `record` None deletes the key."""


class NotebookMetadataStore:
    """A store whose durable copy lives in notebook metadata; this object keeps the last record it wrote."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._records: dict[str, Mapping[str, Any]] = {}

    def load(self, key: str) -> dict[str, Any] | None:
        """A copy of the record this kernel last saved under `key`, or None."""
        record = self._records.get(key)
        return None if record is None else json.loads(json.dumps(record))

    def save(self, key: str, record: Mapping[str, Any]) -> None:
        """Check `record` exactly as a load would, then send it to the notebook; nothing is kept when it fails."""
        check_for_saving(key, record)
        self._records[key] = record  # the caller hands over a fresh record (``export_record``) and keeps no reference
        self._send(key, record)

    def delete(self, key: str) -> None:
        """Forget `key` here and ask the notebook to drop it."""
        self._records.pop(key, None)
        self._send(key, None)

    def keys(self) -> list[str]:
        return sorted(self._records)
