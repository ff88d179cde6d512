"""Small real tools and an engine factory shared by the ToolPlugin tests."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from notebook_chat.engine import MessageEngine
from notebook_chat.engine.history import validate
from notebook_chat.plugins.tool_definition import tool
from notebook_chat.plugins.tools import ToolPlugin
from notebook_chat.testing.scripted import ScriptedProvider


class Ledger:
    """Real side effects the tests can count: every run appends its arguments."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, dict[str, Any]]] = []
        self.slow_started = asyncio.Event()

    def tools(self) -> list[Any]:
        ledger = self

        @tool
        def lookup(city: str) -> str:
            """Look up the weather of a city."""
            ledger.runs.append(("lookup", {"city": city}))
            return f"sunny in {city}"

        @tool
        def add(a: int, b: int) -> str:
            """Add two numbers."""
            ledger.runs.append(("add", {"a": a, "b": b}))
            return str(a + b)

        @tool(approval=True)
        def delete_file(path: str) -> str:
            """Delete a file."""
            ledger.runs.append(("delete_file", {"path": path}))
            return f"deleted {path}"

        @tool(approval=True)
        async def send_mail(to: str, body: str = "") -> str:
            """Send an email."""
            await asyncio.sleep(0)
            ledger.runs.append(("send_mail", {"to": to, "body": body}))
            return f"sent to {to}"

        @tool
        async def slow(seconds: float) -> str:
            """Sleep for a while."""
            ledger.runs.append(("slow", {"seconds": seconds}))
            ledger.slow_started.set()
            await asyncio.sleep(seconds)
            return "slept"

        return [lookup, add, delete_file, send_mail, slow]


def make_engine(provider: ScriptedProvider, ledger: Ledger, **options: Any) -> MessageEngine:
    plugins = options.pop("plugins", [])
    messages = options.pop("initial_messages", ())
    return MessageEngine(provider, plugins=[ToolPlugin(ledger.tools(), **options), *plugins],
                         initial_messages=messages)


def roundtrip(messages: list[Any]) -> list[Any]:
    """The messages as they come back from JSON (a new process sees exactly this)."""
    return json.loads(json.dumps(messages))


def statuses(engine: MessageEngine) -> dict[str, str]:
    found: dict[str, str] = {}
    for message in engine.messages:
        for call_id, entry in ((message.get("state") or {}).get("tool_calls") or {}).items():
            found[call_id] = entry["status"]
    return found


def assert_every_request_is_valid(provider: ScriptedProvider) -> None:
    for body in provider.requests:
        assert validate(body["messages"]) == [], body["messages"]
