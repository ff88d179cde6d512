"""A server that echoes the API key in its error body never gets the key into the conversation: not into
``state.error``, the message, the turn log, the widget, the Continue message, nor the FileStore's bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notebook_chat import Chat
from notebook_chat.persistence import FileStore
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.testing import FakeOpenAIServer, StreamError

from .widget_doubles import RecordingComm

KEY = "sk-proj-NEVERSTORE0123456789abcdef"


def echo(status: int) -> str:
    return f"Incorrect API key provided: {KEY} (Authorization: Bearer {KEY}) — status {status}"


@pytest.fixture
def server() -> object:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.mark.parametrize("kind", [OpenAIChat, OpenAIResponses], ids=["chat", "responses"])
@pytest.mark.parametrize("fault", ["401", "403", "400", "500", "mid-stream"])
async def test_an_echoed_key_reaches_neither_the_record_nor_the_widget_nor_the_file(
    server: FakeOpenAIServer, tmp_path: Path, recording_comms: list[RecordingComm], kind: type[OpenAIChat],
    fault: str,
) -> None:
    if fault == "mid-stream":
        server.enqueue_text("partial reply", chunks=2, fault=StreamError(echo(200), after=1))
    else:
        server.enqueue_http_error(int(fault), echo(int(fault)))
    server.enqueue_text("continued")
    store = FileStore(tmp_path / "chats.json")
    chat = Chat(kind("gpt-test", base_url=server.base_url, api_key=KEY, max_retries=0), store=store, key="k")

    await chat.send("hello")
    assert chat.state.request_state == "error"
    await chat.continue_turn()

    assert "REDACTED" in (chat.engine.turns[0]["detail"] or "")
    everything = json.dumps([chat.messages, chat.engine.turns, chat.state.error, chat.view_state(),
                             [c.sent for c in recording_comms], server.requests[1].body], ensure_ascii=False)
    assert KEY not in everything
    assert KEY.encode() not in (tmp_path / "chats.json").read_bytes()
