from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from notebook_chat.persistence import FileStore, MemoryStore, atomic_write, build_container, dumps_canonical

from .conftest import record_of

NOW = datetime(2024, 5, 10, 12, 0, tzinfo=timezone.utc)


def filled(store: MemoryStore | FileStore) -> MemoryStore | FileStore:
    store.save("new", record_of([], updated_at="2024-05-10T11:00:00Z"))
    store.save("week-old", record_of([], updated_at="2024-05-03T11:00:00Z"))
    store.save("month-old", record_of([], updated_at="2024-04-01T00:00:00.000Z"))
    return store


def test_prune_by_age_removes_old_records() -> None:
    store = filled(MemoryStore())
    assert store.prune(max_age=timedelta(days=2), now=NOW) == ["month-old", "week-old"]
    assert store.keys() == ["new"]


def test_prune_keeps_the_n_newest() -> None:
    store = filled(MemoryStore())
    assert store.prune(keep=1, now=NOW) == ["month-old", "week-old"]
    assert store.keys() == ["new"]


def test_file_store_prune_rewrites_the_file_without_the_pruned_entries(tmp_path: Path) -> None:
    path = tmp_path / "chats.json"
    filled(FileStore(path))
    assert FileStore(path).prune(max_age=timedelta(days=30), now=NOW) == ["month-old"]
    assert FileStore(path).keys() == ["new", "week-old"]


def test_prune_never_deletes_entries_without_a_readable_time(tmp_path: Path) -> None:
    path = tmp_path / "chats.json"
    entries = {"undated": {"messages": []}, "garbled-date": {"updated_at": "last tuesday"},
               "old": record_of([], updated_at="2020-01-01T00:00:00Z")}
    atomic_write(path, dumps_canonical(build_container(entries)).encode())
    assert FileStore(path).prune(keep=0, now=NOW) == ["old"]
    assert FileStore(path).keys() == ["garbled-date", "undated"]
