"""A Chat on the real openai client against FakeOpenAIServer, saving to a FileStore, and the checks its tests share."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from notebook_chat import Chat
from notebook_chat.engine.history import validate
from notebook_chat.engine.request import awaiting_call_ids
from notebook_chat.persistence import FileStore, load_conversation
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer
from tests.plugins.tool_helpers import Ledger

Api = Literal["chat", "responses"]
APIS: tuple[Api, ...] = ("chat", "responses")
KEY = "hostile"


def openai_chat(server: FakeOpenAIServer, api: Api, store_path: Path, ledger: Ledger, **options: Any) -> Chat:
    kind = OpenAIChat if api == "chat" else OpenAIResponses
    provider = kind("gpt-test", base_url=server.base_url, api_key="test", max_retries=0, timeout=5)
    return Chat(provider, tools=ledger.tools(), key=KEY, store=FileStore(store_path), restore_timeout=0, **options)


def assert_history_sound(chat: Chat, store_path: Path) -> None:
    """The live history and the saved copy both keep every rule; the saved copy loads without refusal."""
    pending = awaiting_call_ids(chat.messages)
    assert validate(chat.messages, pending=pending) == [], chat.messages
    for message in chat.messages:
        for field in ("content", "reasoning_content"):
            value = message.get(field)
            assert value is None or isinstance(value, str)
    loaded = load_conversation(FileStore(store_path), KEY)
    assert loaded.refused is None
    assert loaded.record is not None
    assert validate(loaded.record["messages"], pending=pending) == []


async def assert_next_turn_completes(chat: Chat, server: FakeOpenAIServer) -> None:
    server.enqueue_text("all good", chunks=2)
    await chat.send("again")
    assert chat.state.request_state == "completed"
    assert chat.reply == "all good"
