"""Container version 2: many conversations under one chat key; version 1 (one record per key) migrates, nothing lost.

`fixtures/metadata_v1_dc8e255.json` is notebook metadata written by main at dc8e255 (before version 2): a completed
chat and a chat paused on an approval."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from notebook_chat.persistence import FileStore, MemoryStore, parse_container, read_record
from notebook_chat.persistence.chat_entry import DEFAULT_CONVERSATION_ID
from notebook_chat.persistence.container import CONTAINER_VERSION
from notebook_chat.persistence.loading import read_entry

from .conftest import record_of

FIXTURE = Path(__file__).parent / "fixtures" / "metadata_v1_dc8e255.json"


def v1_container() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))["notebook_chat"]
    return data


def test_a_version_1_container_reads_as_one_conversation_per_chat_with_every_record_unchanged() -> None:
    old = v1_container()
    assert old["version"] == 1
    entries = parse_container(json.loads(json.dumps(old)), "the notebook")
    assert set(entries) == {"chat-done", "chat-paused"}
    for key, record in old["conversations"].items():
        assert entries[key] == {"active": DEFAULT_CONVERSATION_ID, "items": {DEFAULT_CONVERSATION_ID: record}}
        assert read_record(entries[key]["items"][DEFAULT_CONVERSATION_ID]).record == record


def test_a_version_1_record_handed_over_by_the_browser_keeps_its_paused_turn() -> None:
    record = v1_container()["conversations"]["chat-paused"]
    loaded = read_entry(record)
    assert loaded.refused is None
    assert loaded.conversations.active == DEFAULT_CONVERSATION_ID
    assert loaded.record is not None
    assert loaded.record["paused_turn"] == record["paused_turn"]


def test_a_version_1_file_is_read_and_the_next_write_makes_it_version_2_without_losing_a_record(
        tmp_path: Path) -> None:
    path = tmp_path / "chats.json"
    old = v1_container()
    path.write_text(json.dumps(old), encoding="utf-8")
    store = FileStore(path)
    assert store.load("chat-paused") == old["conversations"]["chat-paused"]
    store.save("chat-done", record_of([{"role": "user", "content": "again"}]), "second", active=True)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["version"] == CONTAINER_VERSION == 2
    assert written["conversations"]["chat-paused"]["items"]["main"] == old["conversations"]["chat-paused"]
    assert written["conversations"]["chat-done"]["items"]["main"] == old["conversations"]["chat-done"]
    assert written["conversations"]["chat-done"]["active"] == "second"


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_a_store_keeps_each_conversation_apart_and_deleting_the_active_one_hands_over_to_the_last(
        kind: str, tmp_path: Path) -> None:
    store: Any = MemoryStore() if kind == "memory" else FileStore(tmp_path / "chats.json")
    store.save("k", record_of([{"role": "user", "content": "one"}]), "a")
    store.save("k", record_of([{"role": "user", "content": "two"}]), "b", active=True)
    store.save("k", record_of([{"role": "user", "content": "three"}]), "c")
    assert store.load("k")["messages"][0]["content"] == "two"
    assert store.load("k", "c")["messages"][0]["content"] == "three"
    store.delete("k", "b")
    entry = store.load_entry("k")
    assert list(entry["items"]) == ["a", "c"]
    assert entry["active"] == "c"
    store.activate("k", "a")
    assert store.load("k")["messages"][0]["content"] == "one"
    with pytest.raises(KeyError):
        store.activate("k", "nope")
    store.delete("k", "a")
    store.delete("k", "c")
    assert store.keys() == []


def test_an_entry_whose_active_id_names_no_conversation_opens_the_last_one_and_loses_nothing() -> None:
    stored = {"active": "gone", "items": {"a": record_of([]), "b": record_of([])}}
    loaded = read_entry(stored)
    assert loaded.conversations.active == "b"
    assert "a" in loaded.conversations


@pytest.mark.parametrize("bad", [[], "text", {"items": []}, {"items": {}}, {"items": {"a": 1}},
                                 {"items": {"": {}}}, {"active": "a", "items": {"a": [1]}}])
def test_a_malformed_entry_is_refused_with_a_reason_and_nothing_is_loaded(bad: Any) -> None:
    loaded = read_entry(bad)
    assert loaded.record is None
    assert loaded.refused is not None
    assert "can't be used" in loaded.refused


def test_prune_dates_a_chat_by_its_newest_conversation() -> None:
    store = MemoryStore()
    store.save("old", record_of([], updated_at="2020-01-01T00:00:00Z"), "a")
    store.save("mixed", record_of([], updated_at="2020-01-01T00:00:00Z"), "a")
    store.save("mixed", record_of([], updated_at="2024-05-10T00:00:00Z"), "b")
    now = datetime(2024, 5, 10, 12, tzinfo=timezone.utc)
    assert store.prune(max_age=timedelta(days=30), now=now) == ["old"]
