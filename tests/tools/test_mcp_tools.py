"""MCP tools against a real MCP server (tests/tools/mcp_demo_server.py, FastMCP) started by the test."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notebook_chat import Chat
from notebook_chat.engine.history import validate
from notebook_chat.engine.request import sanitize
from notebook_chat.persistence import FileStore
from notebook_chat.providers.converters import check_every_provider
from notebook_chat.testing import ScriptedProvider
from notebook_chat.tools import MCPServer, mcp

from .mcp_demo_server import tiny_png

SERVER = str(Path(__file__).with_name("mcp_demo_server.py"))


def demo_server(*, allow: tuple[str, ...] = (), tools: str | None = None) -> MCPServer:
    env = {**os.environ, "DEMO_TOOLS": tools} if tools is not None else None
    return mcp(sys.executable, SERVER, allow=allow, env=env)


def calls(*names: str, arguments: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [{"name": name, "arguments": arguments or {}, "id": f"c_{name}"} for name in names]


def tool_results(chat: Chat) -> dict[str, str]:
    return {str(m["tool_call_id"]): str(m["content"]) for m in chat.messages if m["role"] == "tool"}


def card(chat: Chat, call_id: str) -> dict[str, Any]:
    for message in chat.view_state()["messages"]:
        for call in message.get("tool_calls") or []:
            if call["id"] == call_id:
                return dict(call)
    raise AssertionError(f"no card for {call_id}")


def assert_history_valid(chat: Chat) -> None:
    record = chat.engine.export_record()["messages"]
    assert validate(record) == []
    check_every_provider(sanitize(record, None, ("state", "metadata", "loading")))


async def test_the_servers_tools_are_offered_to_the_model_with_their_schemas(recording_comms: Any) -> None:
    provider = ScriptedProvider().text("I see the tools.")
    chat = Chat(provider, tools=[demo_server()])
    await chat.send("what can you do?")
    offered = {tool["function"]["name"]: tool["function"] for tool in provider.requests[0]["tools"]}
    assert set(offered) == {"add", "shout", "chart", "fail", "crash"}
    assert offered["add"]["description"] == "Add two integers."
    assert offered["add"]["parameters"]["properties"]["a"]["type"] == "integer"
    assert offered["add"]["parameters"]["required"] == ["a", "b"]
    await chat.aclose()


async def test_an_allowed_tool_runs_at_once_and_the_model_reads_its_text(recording_comms: Any) -> None:
    provider = ScriptedProvider().tool_calls(calls("add", arguments={"a": 2, "b": 3})).text("It is 5.")
    chat = Chat(provider, tools=[demo_server(allow=("add",))])
    await chat.send("add 2 and 3")
    assert tool_results(chat) == {"c_add": "2 + 3 = 5"}
    assert provider.requests[1]["messages"][-1] == {"role": "tool", "tool_call_id": "c_add", "content": "2 + 3 = 5"}
    assert chat.state.request_state == "completed"
    await chat.aclose()


async def test_every_tool_not_allowed_waits_for_approval_and_runs_only_after_it(recording_comms: Any) -> None:
    provider = ScriptedProvider().tool_calls(calls("shout", arguments={"text": "hi"})).text("Done.")
    chat = Chat(provider, tools=[demo_server(allow=("add",))])
    await chat.send("shout hi")
    assert chat.state.is_paused
    assert [p["name"] for p in chat.pending_approvals] == ["shout"]
    assert tool_results(chat) == {}
    await chat.approve("c_shout")
    assert tool_results(chat) == {"c_shout": "HI!"}
    assert chat.state.request_state == "completed"
    await chat.aclose()


async def test_an_image_result_is_shown_on_the_card_and_described_to_the_model(recording_comms: Any) -> None:
    provider = ScriptedProvider().tool_calls(calls("chart")).text("Here is the chart.")
    chat = Chat(provider, tools=[demo_server(allow=("chart",))])
    await chat.send("draw")
    shown = card(chat, "c_chart")
    assert shown["status"] == "success"
    assert base64.b64decode(shown["display"]["image/png"]) == tiny_png()
    assert tool_results(chat)["c_chart"] == "[an image (image/png) shown to the user]"
    await chat.aclose()


async def test_a_tool_error_of_the_server_is_a_failed_call_the_model_reads(recording_comms: Any) -> None:
    provider = ScriptedProvider().tool_calls(calls("fail")).text("It failed.")
    chat = Chat(provider, tools=[demo_server(allow=("fail",))])
    await chat.send("try")
    assert card(chat, "c_fail")["status"] == "failed"
    assert "the demo tool failed on purpose" in tool_results(chat)["c_fail"]
    await chat.aclose()


async def test_a_server_that_dies_mid_call_fails_the_call_clearly_and_the_history_stays_valid(
        recording_comms: Any) -> None:
    server = demo_server(allow=("crash", "add"))
    provider = (ScriptedProvider().tool_calls(calls("crash")).text("The server died.")
                .tool_calls(calls("add", arguments={"a": 1, "b": 1})).text("2."))
    chat = Chat(provider, tools=[server])
    await chat.send("crash it")
    assert card(chat, "c_crash")["status"] == "failed"
    result = tool_results(chat)["c_crash"]
    assert "failed during the call to 'crash'" in result
    assert "outcome is unknown" in result
    assert chat.state.request_state == "completed"
    assert_history_valid(chat)
    await chat.send("again")  # the next turn starts the server anew
    assert tool_results(chat)["c_add"] == "1 + 1 = 2"
    assert_history_valid(chat)
    await chat.aclose()


async def test_a_restored_call_is_checked_against_the_live_servers_tools(
        recording_comms: Any, tmp_path: Path) -> None:
    first = Chat(ScriptedProvider().tool_calls(calls("shout", arguments={"text": "x"})), key="k",
                 store=FileStore(tmp_path / "chat.json"), tools=[demo_server()])
    await first.send("shout x")
    assert first.state.is_paused
    await first.aclose()

    updated = demo_server(tools="add")  # after the restart, the server no longer has shout
    second = Chat(ScriptedProvider().text("Fine, I won't."), key="k", store=FileStore(tmp_path / "chat.json"),
                  tools=[updated])
    await updated.connect()
    assert second.state.is_paused
    with pytest.raises(ValueError, match="'shout' is not registered"):
        await second.approve("c_shout")
    assert second.state.is_paused
    await second.deny("c_shout", "gone")
    assert second.state.request_state == "completed"
    assert tool_results(second)["c_shout"].startswith("Denied by the user.")
    await second.aclose()


async def test_a_restored_call_to_a_tool_the_server_still_has_runs_once_approved(
        recording_comms: Any, tmp_path: Path) -> None:
    first = Chat(ScriptedProvider().tool_calls(calls("shout", arguments={"text": "x"})), key="k",
                 store=FileStore(tmp_path / "chat.json"), tools=[demo_server()])
    await first.send("shout x")
    await first.aclose()
    server = demo_server()
    second = Chat(ScriptedProvider().text("Shouted."), key="k", store=FileStore(tmp_path / "chat.json"),
                  tools=[server])
    await server.connect()
    await second.approve("c_shout")
    assert tool_results(second)["c_shout"] == "X!"
    await second.aclose()


async def test_closing_the_chat_closes_the_connection_and_ends_the_servers_process(recording_comms: Any) -> None:
    server = demo_server(allow=("add",))
    chat = Chat(ScriptedProvider().text("ok"), tools=[server])
    await server.connect()
    children = _children()
    assert any(SERVER in command for command in children.values())
    await chat.aclose()
    assert not any(SERVER in command for command in _children().values())
    assert server.provide_tools(None) == []  # type: ignore[arg-type]


async def test_a_server_that_cannot_start_leaves_its_tools_out_and_says_so(recording_comms: Any) -> None:
    broken = mcp(sys.executable, "-c", "import sys; sys.stderr.write('no config file\\n'); sys.exit(2)")
    provider = ScriptedProvider().text("Hello.")
    chat = Chat(provider, tools=[broken])
    await chat.send("hi")
    assert chat.reply == "Hello."
    assert "tools" not in provider.requests[0]
    assert "is not available" in (chat.state.notice or "")
    assert "no config file" in (chat.state.notice or "")
    await chat.aclose()


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((), {}, "either a command"),
    (("python",), {"url": "http://127.0.0.1:1/mcp"}, "either a command"),
    (("python", ""), {}, "non-empty string"),
    (("python",), {"timeout": 0}, "positive number"),
])
def test_bad_arguments_are_refused_when_the_server_is_described(
        args: tuple[str, ...], kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mcp(*args, **kwargs)


@pytest.fixture
def http_server() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, SERVER, "http", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait for the port to accept connections
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_a_streamable_http_server_is_reached_by_url(recording_comms: Any, http_server: str) -> None:
    provider = ScriptedProvider().tool_calls(calls("add", arguments={"a": 40, "b": 2})).text("42.")
    chat = Chat(provider, tools=[mcp(url=http_server, allow=("add",))])
    await chat.send("add")
    assert tool_results(chat) == {"c_add": "40 + 2 = 42"}
    await chat.aclose()


def _children() -> dict[int, str]:
    """This process's child processes and their command lines (Linux /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                if parent == os.getpid():
                    found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (OSError, ValueError, IndexError):
                continue
    return found
