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


@pytest.mark.parametrize("call_id", ["password", "api_key", "Authorization", "cookie"])
async def test_a_tool_call_id_spelled_like_a_credential_key_is_saved_and_loads_back(call_id: str) -> None:
    from notebook_chat.engine import MessageEngine
    from notebook_chat.persistence import ConversationAutosave, check_record, read_record
    from notebook_chat.plugins import ToolPlugin, tool
    from notebook_chat.testing import ScriptedProvider

    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: sunny"

    provider = ScriptedProvider().tool_calls([{"name": "lookup", "arguments": {"city": "Oslo"}, "id": call_id}])
    engine = MessageEngine(provider.text("Sunny."), plugins=[ToolPlugin([lookup])])
    store = MemoryStore()
    autosave = ConversationAutosave(engine, store, "k")
    await engine.send_message("weather?")

    assert autosave.last_error is None
    saved = store.load("k")
    check_record(saved)
    assert call_id in saved["messages"][1]["state"]["tool_calls"]
    loaded = read_record(saved)
    assert loaded.refused is None
    assert loaded.record is not None
    assert loaded.record["messages"][-1]["content"] == "Sunny."


def test_a_credential_key_inside_what_a_call_id_maps_to_is_still_refused() -> None:
    with pytest.raises(SecretError, match=r"api_key"):
        assert_no_secrets({"state": {"tool_calls": {"password": {"status": "done", "api_key": "sk-x"}}}})
