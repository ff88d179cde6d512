"""run_python through the real MessageEngine and ToolPlugin: approval first, then the side effect."""

from __future__ import annotations

from typing import Any

from notebook_chat.engine import MessageEngine
from notebook_chat.plugins.tools import TOOL_REJECT, TOOL_RESUME, ToolPlugin
from notebook_chat.testing.scripted import ScriptedProvider
from notebook_chat.tools import kernel


def engine_for(ns: dict[str, Any], code: str) -> tuple[MessageEngine, ScriptedProvider]:
    provider = (ScriptedProvider()
                .tool_calls([{"name": "run_python", "arguments": {"code": code}, "id": "c_run"}])
                .text("Done."))
    return MessageEngine(provider, plugins=[ToolPlugin(kernel(namespace=ns))]), provider


def request_state(engine: MessageEngine) -> str:
    return engine.state.request_state


def tool_messages(engine: MessageEngine) -> list[Any]:
    return [message for message in engine.messages if message["role"] == "tool"]


async def test_run_python_waits_for_approval_and_changes_the_namespace_only_after_resume(
        ns: dict[str, Any]) -> None:
    engine, provider = engine_for(ns, "answer = 6 * 7\nanswer")
    await engine.send_message("compute the answer")
    assert request_state(engine) == "paused"
    assert "answer" not in ns
    assert tool_messages(engine) == []
    result = await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_run"})
    assert result == {"status": "resumed", "tool_call_id": "c_run"}
    assert ns["answer"] == 42
    assert request_state(engine) == "completed"
    assert tool_messages(engine)[0]["content"] == "result:\n42"
    assert provider.requests[-1]["messages"][-1] == {"role": "tool", "tool_call_id": "c_run",
                                                     "content": "result:\n42"}


async def test_a_denied_run_python_never_touches_the_namespace(ns: dict[str, Any]) -> None:
    engine, _ = engine_for(ns, "wiped = True")
    await engine.send_message("wipe")
    await engine.dispatch_command(TOOL_REJECT, {"tool_call_id": "c_run", "reason": "not now"})
    assert "wiped" not in ns
    assert request_state(engine) == "completed"


async def test_a_figure_reaches_the_tool_message_display_and_the_model_gets_a_short_text(
        ns: dict[str, Any]) -> None:
    engine, provider = engine_for(ns, "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])")
    await engine.send_message("plot it")
    await engine.dispatch_command(TOOL_RESUME, {"tool_call_id": "c_run"})
    message = tool_messages(engine)[0]
    assert message["content"] == "[1 figure: 640x480 PNG shown to the user]"
    assert message["metadata"]["display"]["image/png"].startswith("iVBORw0KGgo")  # base64 of the PNG signature
    sent = provider.requests[-1]["messages"][-1]
    assert sent == {"role": "tool", "tool_call_id": "c_run", "content": "[1 figure: 640x480 PNG shown to the user]"}
