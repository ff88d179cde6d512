"""FileStore: all conversations in one JSON file, written atomically and byte-stable.

The file is `{"version": 2, "conversations": {key: {"active": id, "items": {id: record}}}}` in canonical JSON
(sorted keys, no spaces) plus a newline. Every write goes to a temporary file in the same directory, is fsynced,
then replaces the file with `os.replace`, so a crash leaves either the old or the new file, never half of one.
A version-1 file (one record per key) is read, and written as version 2 by the next write.

A file that can't be read — not UTF-8, not JSON, NaN or duplicate keys, the wrong shape, a newer version — is
never overwritten: `load`, `keys`, `save`, `delete` and `prune` all raise `StoreError` with the reason and
leave the file byte-identical. Move it aside (or use another path) to start afresh. One process writes a
file at a time; writes within a process are serialized by a lock.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from notebook_chat.persistence.chat_entry import ChatEntry, activated, active_record, with_record, without
from notebook_chat.persistence.container import build_container, check_key, parse_container
from notebook_chat.persistence.errors import StoreError
from notebook_chat.persistence.jsonsafe import dumps_canonical, loads_strict
from notebook_chat.persistence.prune import prune
from notebook_chat.persistence.stores import check_for_saving

MAX_FILE_BYTES = 200_000_000


class FileStore:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"FileStore({str(self.path)!r})"

    def load(self, key: str, conversation_id: str | None = None) -> dict[str, Any] | None:
        check_key(key)
        with self._lock:
            return active_record(self._read().get(key), conversation_id)

    def load_entry(self, key: str) -> ChatEntry | None:
        check_key(key)
        with self._lock:
            return self._read().get(key)

    def save(self, key: str, record: Mapping[str, Any], conversation_id: str | None = None, *,
             active: bool = False) -> None:
        check_for_saving(key, record, conversation_id)
        with self._lock:
            entries = self._read()
            entries[key], _ = with_record(entries.get(key), conversation_id, record, active=active)
            self._write(entries)

    def activate(self, key: str, conversation_id: str) -> None:
        check_key(key)
        with self._lock:
            entries = self._read()
            entry = entries.get(key)
            if entry is None:
                raise KeyError(f"no chat {key!r:.80} in {self.path}")
            if entry["active"] != conversation_id:
                entries[key] = activated(entry, conversation_id)
                self._write(entries)

    def delete(self, key: str, conversation_id: str | None = None) -> None:
        check_key(key)
        with self._lock:
            entries = self._read()
            entry = entries.get(key)
            if entry is None or (conversation_id is not None and conversation_id not in entry["items"]):
                return
            rest = None if conversation_id is None else without(entry, conversation_id)
            if rest is None:
                del entries[key]
            else:
                entries[key] = rest
            self._write(entries)

    def keys(self) -> list[str]:
        with self._lock:
            return sorted(self._read())

    def prune(
        self, *, max_age: timedelta | None = None, keep: int | None = None, now: datetime | None = None
    ) -> list[str]:
        """See `notebook_chat.persistence.prune`; the whole prune is one locked read-modify-write sequence."""
        with self._lock:
            return prune(self, max_age=max_age, keep=keep, now=now)

    def _read(self) -> dict[str, ChatEntry]:
        try:
            size = self.path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise StoreError(
                    f"{self.path} is {size} bytes, more than the {MAX_FILE_BYTES} a FileStore reads; "
                    "it is left untouched"
                )
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise StoreError(f"{self.path} can't be read: {error}") from error
        if not raw.strip():
            return {}
        try:
            data = loads_strict(raw.decode("utf-8"))
        except (ValueError, RecursionError) as error:
            raise StoreError(f"{self.path} is not valid JSON ({error}); it is left untouched") from error
        return parse_container(data, str(self.path))

    def _write(self, entries: dict[str, ChatEntry]) -> None:
        text = dumps_canonical(build_container(dict(entries))) + "\n"
        atomic_write(self.path, text.encode("utf-8"))


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a fsynced temporary file in the same directory and `os.replace`."""
    directory = path.parent
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: Path) -> None:
    if not hasattr(os, "O_DIRECTORY"):
        return  # Windows: os.replace is already atomic there, directories can't be fsynced
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
