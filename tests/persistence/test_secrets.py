from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from notebook_chat.persistence import FileStore, MemoryStore, SecretError, assert_no_secrets

from .conftest import record_of


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"api_key": "sk-123"}, "$.api_key"),
        ({"config": {"OPENAI_API_KEY": "sk-123"}}, "$.config.OPENAI_API_KEY"),
        ({"messages": [{"metadata": {"Authorization": "x"}}]}, "$.messages[0].metadata.Authorization"),
        ({"request": {"x-api-key": "abc"}}, '$.request["x-api-key"]'),
        ({"client_secret": "s"}, "$.client_secret"),
        ({"headers": {"X-Auth": "Bearer abcdefghijkl"}}, '$.headers["X-Auth"]'),
        ({"extra_headers": [{"h": "Basic dXNlcjpwYXNzd29yZA=="}]}, "$.extra_headers[0].h"),
    ],
)
def test_credentials_are_refused_with_their_path(value: Any, path: str) -> None:
    with pytest.raises(SecretError) as caught:
        assert_no_secrets(value)
    assert caught.value.path == path
    assert "never persisted" in str(caught.value)


def test_words_about_credentials_in_message_text_are_saved_as_written() -> None:
    text = "my Authorization header says Bearer abcdefghijkl, why?"
    store = MemoryStore()
    store.save("k", record_of([{"role": "user", "content": text}]))
    assert store.load("k") == record_of([{"role": "user", "content": text}])


def test_a_record_carrying_a_credential_is_not_saved() -> None:
    message = {"role": "user", "content": "hi", "metadata": {"api_key": "sk-123"}}
    with pytest.raises(SecretError) as caught:
        MemoryStore().save("k", record_of([message]))
    assert caught.value.path == "$.messages[0].metadata.api_key"


def test_a_store_refuses_to_save_a_credential(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "chats.json")
    with pytest.raises(SecretError):
        store.save("k", {**record_of([]), "headers": {"Authorization": "Bearer abcdefghijkl"}})
    assert not (tmp_path / "chats.json").exists()
