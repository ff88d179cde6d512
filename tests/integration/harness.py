"""An engine with real tools over the real openai client against FakeOpenAIServer, and the checks every test shares."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from notebook_chat.engine import EngineEvent, MessageEngine
from notebook_chat.engine.history import prepare_for_request, validate
from notebook_chat.plugins import ThinkingPlugin, ToolPlugin
from notebook_chat.providers import OpenAIChat, OpenAIResponses
from notebook_chat.providers.converters import check_every_provider, check_responses
from notebook_chat.testing import FakeOpenAIServer, RecordedRequest
from tests.plugins.tool_helpers import Ledger as Ledger
from tests.plugins.tool_helpers import statuses as statuses

Api = Literal["chat", "responses"]
APIS: tuple[Api, ...] = ("chat", "responses")
MODEL = "gpt-test"


def make_engine(server: FakeOpenAIServer, ledger: Ledger, api: Api = "chat", *, timeout: float | None = None,
                **tool_options: Any) -> MessageEngine:
    """MessageEngine + ToolPlugin(real tools) + ThinkingPlugin + OpenAIChat/OpenAIResponses on the real client, no
    retries."""
    kind = OpenAIChat if api == "chat" else OpenAIResponses
    provider = kind(MODEL, base_url=server.base_url, api_key="test", max_retries=0, timeout=timeout)
    return MessageEngine(provider, plugins=[ToolPlugin(ledger.tools(), **tool_options), ThinkingPlugin()])


async def abort_after_first_text(engine: MessageEngine, text: str) -> None:
    """Send ``text`` and press Stop as soon as the first piece of the reply's text arrived."""
    await abort_after_first(engine, text, "content")


async def abort_after_first(engine: MessageEngine, text: str, field: str) -> None:
    """Send ``text`` and press Stop as soon as the first piece of the reply's ``field`` ("content",
    "reasoning_content") arrived."""
    arrived = asyncio.Event()

    def on_event(event: EngineEvent) -> None:
        if event.kind == "message" and event.field == field:
            arrived.set()

    unsubscribe = engine.subscribe(on_event)
    turn = asyncio.ensure_future(engine.send_message(text))
    try:
        # a hang guard, not a time budget: the first use of the SDK's streaming path in a test process is slow
        await asyncio.wait_for(arrived.wait(), timeout=60)
        await engine.abort()
        await turn
    finally:
        unsubscribe()


def assert_every_provider_accepts(messages: Sequence[Mapping[str, Any]]) -> None:
    """The history rules hold, and OpenAI Chat, OpenAI Responses, Anthropic and Gemini would take the payload."""
    assert validate(messages) == [], messages
    check_every_provider(messages)


def assert_request_is_valid_everywhere(request: RecordedRequest, engine: MessageEngine) -> None:
    """What the server received is a history every provider accepts.

    Chat Completions bodies carry the history itself; Responses bodies carry input items, which are checked by
    the Responses rules, and the engine's history as it was prepared for that request is checked by all rules.
    """
    if request.path.endswith("/chat/completions"):
        assert_every_provider_accepts(request.body["messages"])
    else:
        check_responses(request.body["input"])
        assert_every_provider_accepts(prepare_for_request(engine.messages))


def results_sent(body: Mapping[str, Any]) -> dict[str, str]:
    """call id → result text in a Chat Completions or Responses request body."""
    if "messages" in body:
        return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}


def last_turn(engine: MessageEngine) -> dict[str, Any]:
    return engine.turns[-1]
