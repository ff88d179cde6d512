from __future__ import annotations

from typing import Any

import pytest

from notebook_chat.persistence.errors import RecordError, SecretError, SerializationError
from notebook_chat.persistence.notebook_store import NotebookMetadataStore

from .conftest import record_of


class Sent:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any] | None]] = []

    def __call__(self, key: str, record: dict[str, Any] | None) -> None:
        self.calls.append((key, record))


def record(text: str = "hi") -> dict[str, Any]:
    return record_of([{"role": "user", "content": text}])


def test_save_sends_the_record_to_the_front_end_and_keeps_a_copy() -> None:
    sent = Sent()
    store = NotebookMetadataStore(sent)
    store.save("cell-1", record())
    assert sent.calls == [("cell-1", record())]
    assert store.load("cell-1") == record()
    assert store.keys() == ["cell-1"]


def test_load_returns_a_copy_that_callers_cannot_use_to_change_the_store() -> None:
    store = NotebookMetadataStore(Sent())
    store.save("k", record())
    loaded = store.load("k")
    assert loaded is not None
    loaded["messages"].clear()
    assert store.load("k") == record()


def test_a_record_with_an_api_key_is_refused_and_nothing_is_sent() -> None:
    sent = Sent()
    store = NotebookMetadataStore(sent)
    with pytest.raises(SecretError, match="api_key"):
        store.save("k", {**record(), "provider": {"api_key": "sk-abcdefghijklmnop"}})
    assert sent.calls == []
    assert store.load("k") is None


def test_a_record_that_is_not_plain_json_is_refused_and_nothing_is_sent() -> None:
    sent = Sent()
    store = NotebookMetadataStore(sent)
    with pytest.raises(SerializationError, match="not JSON-serializable"):
        store.save("k", {**record(), "extra": object()})
    assert sent.calls == []


def test_a_record_that_a_load_would_refuse_is_refused_and_nothing_is_sent() -> None:
    sent = Sent()
    store = NotebookMetadataStore(sent)
    with pytest.raises(RecordError, match=r"\$\.messages\[0\]\.role"):
        store.save("k", record_of([{"role": "robot", "content": "hi"}]))
    assert (sent.calls, store.keys()) == ([], [])


def test_delete_forgets_the_key_and_asks_the_front_end_to_drop_it() -> None:
    sent = Sent()
    store = NotebookMetadataStore(sent)
    store.save("k", record())
    store.delete("k")
    assert store.load("k") is None
    assert sent.calls[-1] == ("k", None)


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty string"):
        NotebookMetadataStore(Sent()).save("", record())
