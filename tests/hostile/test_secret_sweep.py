"""Secrets echoed back, by class: every place a credential can be configured (the API key long, short or without a
known prefix; a proxy's Authorization header, an Azure-style api-key header, a custom token header; the base URL's
password and query value; the client's default query) x every way a server echoes it (error bodies of 400, 401,
403, 429, 500 and a mid-stream error event) x as sent or URL-encoded. The secret reaches nothing the chat keeps or
shows: not the messages, the turn log, state.error, the notice, the widget's view or what it sent, the stored file,
nor the next request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import openai
import pytest

from notebook_chat import Chat
from notebook_chat.persistence import FileStore
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer, StreamError
from tests.widget.widget_doubles import RecordingComm

SECRET = "Zq7-secret/value+9x2Lk"
"""Not ``sk-`` shaped and with characters URL encoding changes: only the declared secret can match it."""

SOURCES = ("api key", "short api key", "proxy Authorization header", "api-key header", "custom token header",
           "base URL password", "base URL query value", "default query value")
CHANNELS = ("400", "401", "403", "429", "500", "mid-stream")
FORMS = ("as sent", "URL-encoded")


def secret_for(source: str) -> str:
    return "k9$Q" if source == "short api key" else SECRET


def provider_for(source: str, server: FakeOpenAIServer) -> OpenAIChat:
    secret = secret_for(source)
    base = server.base_url
    headers: dict[str, str] = {}
    query: dict[str, str] = {}
    api_key = "unused-placeholder-key"
    if source in ("api key", "short api key"):
        api_key = secret
    elif source == "proxy Authorization header":
        headers["Authorization"] = f"Bearer {secret}"
    elif source == "api-key header":
        headers["api-key"] = secret
    elif source == "custom token header":
        headers["X-Gateway-Token"] = secret
    elif source == "base URL password":
        base = base.replace("://", f"://user:{quote(secret, safe='')}@", 1)
    elif source == "base URL query value":
        base = f"{base}?api-version={quote(secret, safe='')}"
    else:
        query["sig"] = secret
    client = openai.AsyncOpenAI(base_url=base, api_key=api_key, default_headers=headers, default_query=query,
                                max_retries=0)
    return OpenAIChat("gpt-test", client=client)


def echo(secret: str, form: str) -> str:
    shown = secret if form == "as sent" else quote(secret, safe="")
    return f"rejected the request; you sent {shown} (check it)"


CASES = [(s, c, f) for s in SOURCES for c in CHANNELS for f in FORMS]


@pytest.mark.parametrize(("source", "channel", "form"), CASES, ids=[" | ".join(case) for case in CASES])
async def test_an_echoed_secret_reaches_nothing_the_chat_keeps_or_shows(
        server: FakeOpenAIServer, tmp_path: Path, recording_comms: list[RecordingComm], source: str, channel: str,
        form: str) -> None:
    secret = secret_for(source)
    if channel == "mid-stream":
        server.enqueue_text("partial reply", chunks=2, fault=StreamError(echo(secret, form), after=1))
    else:
        server.enqueue_http_error(int(channel), echo(secret, form))
    server.enqueue_text("continued")
    path = tmp_path / "chats.json"
    chat = Chat(provider_for(source, server), store=FileStore(path), key="k", restore_timeout=0)

    await chat.send("hello")
    assert chat.state.request_state == "error"
    await chat.continue_turn()

    kept: list[Any] = [chat.messages, chat.engine.turns, chat.state.error, chat.state.notice, chat.view_state(),
                       [c.sent for c in recording_comms], server.requests[-1].body]
    everything = json.dumps(kept, ensure_ascii=False)
    for variant in {secret, quote(secret, safe="")}:
        assert variant not in everything
        assert variant.encode() not in path.read_bytes()


def test_the_sweep_covers_every_source_channel_and_form() -> None:
    assert len(CASES) == len(SOURCES) * len(CHANNELS) * len(FORMS) == 96
