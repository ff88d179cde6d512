from __future__ import annotations

import pytest

from notebook_chat.persistence import ConversationStore, MemoryStore, SecretError, SerializationError


def test_memory_store_copies_values_in_and_out() -> None:
    store = MemoryStore()
    record = {"messages": [{"role": "user", "content": "hi"}]}
    store.save("k", record)
    record["messages"].append({"role": "user", "content": "later"})
    loaded = store.load("k")
    assert loaded == {"messages": [{"role": "user", "content": "hi"}]}
    assert loaded is not None
    loaded["messages"].clear()
    assert store.load("k") == {"messages": [{"role": "user", "content": "hi"}]}


def test_memory_store_lists_deletes_and_misses() -> None:
    store = MemoryStore()
    store.save("b", {})
    store.save("a", {})
    store.delete("b")
    assert (store.keys(), store.load("b")) == (["a"], None)


def test_memory_store_refuses_non_json_and_secrets() -> None:
    store = MemoryStore()
    with pytest.raises(SerializationError, match=r"\$\.fn"):
        store.save("k", {"fn": print})
    with pytest.raises(SecretError, match=r"\$\.api_key"):
        store.save("k", {"api_key": "sk-1"})
    assert store.keys() == []


def test_memory_store_follows_the_store_protocol() -> None:
    assert isinstance(MemoryStore(), ConversationStore)
