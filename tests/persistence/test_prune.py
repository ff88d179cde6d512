from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from notebook_chat.persistence import FileStore, MemoryStore

NOW = datetime(2024, 5, 10, 12, 0, tzinfo=timezone.utc)


def filled(store: MemoryStore | FileStore) -> MemoryStore | FileStore:
    store.save("new", {"updated_at": "2024-05-10T11:00:00Z"})
    store.save("week-old", {"updated_at": "2024-05-03T11:00:00Z"})
    store.save("stale-pause", {"turn_id": "t", "paused_at": "2024-04-01T00:00:00.000Z"})
    store.save("undated", {"messages": []})
    store.save("garbled-date", {"updated_at": "last tuesday"})
    return store


def test_prune_by_age_removes_old_records_and_stale_paused_turns() -> None:
    store = filled(MemoryStore())
    assert store.prune(max_age=timedelta(days=2), now=NOW) == ["stale-pause", "week-old"]
    assert store.keys() == ["garbled-date", "new", "undated"]


def test_prune_keeps_the_n_newest_and_never_deletes_entries_without_a_readable_time() -> None:
    store = filled(MemoryStore())
    assert store.prune(keep=1, now=NOW) == ["stale-pause", "week-old"]
    assert store.keys() == ["garbled-date", "new", "undated"]


def test_file_store_prune_rewrites_the_file_without_the_pruned_entries(tmp_path: Path) -> None:
    path = tmp_path / "chats.json"
    filled(FileStore(path))
    assert FileStore(path).prune(max_age=timedelta(days=30), now=NOW) == ["stale-pause"]
    assert FileStore(path).keys() == ["garbled-date", "new", "undated", "week-old"]
