from __future__ import annotations

import pytest

from notebook_chat.persistence import ConversationStore, MemoryStore, RecordError, SecretError, SerializationError

from .conftest import record_of


def test_memory_store_copies_values_in_and_out() -> None:
    store = MemoryStore()
    record = record_of([{"role": "user", "content": "hi"}])
    store.save("k", record)
    record["messages"].append({"role": "user", "content": "later"})
    loaded = store.load("k")
    assert loaded == record_of([{"role": "user", "content": "hi"}])
    assert loaded is not None
    loaded["messages"].clear()
    assert store.load("k") == record_of([{"role": "user", "content": "hi"}])


def test_memory_store_lists_deletes_and_misses() -> None:
    store = MemoryStore()
    store.save("b", record_of([]))
    store.save("a", record_of([]))
    store.delete("b")
    assert (store.keys(), store.load("b")) == (["a"], None)


def test_memory_store_refuses_non_json_secrets_and_records_a_load_would_refuse() -> None:
    store = MemoryStore()
    with pytest.raises(SerializationError, match=r"\$\.fn"):
        store.save("k", {**record_of([]), "fn": print})
    with pytest.raises(SecretError, match=r"\$\.api_key"):
        store.save("k", {**record_of([]), "api_key": "sk-1"})
    with pytest.raises(RecordError, match=r"\$\.messages\[0\]\.role"):
        store.save("k", record_of([{"role": "robot"}]))
    assert store.keys() == []


def test_memory_store_follows_the_store_protocol() -> None:
    assert isinstance(MemoryStore(), ConversationStore)
