"""A tool result over the stored limit is kept whole in the kernel for the turn, stored truncated with a visible
note, and the card says so."""

from __future__ import annotations

from notebook_chat.engine import MessageEngine
from notebook_chat.engine.conversation import MAX_TOOL_RESULT_CHARS
from notebook_chat.plugins import ToolPlugin, tool
from notebook_chat.testing import ScriptedProvider
from notebook_chat.widget.view_model import message_view, tool_results

SIZE = MAX_TOOL_RESULT_CHARS + 10


@tool
def dump() -> str:
    """A very large result."""
    return "x" * SIZE


async def test_a_huge_tool_result_is_whole_in_the_kernel_and_stored_truncated_with_a_note() -> None:
    provider = ScriptedProvider().tool_calls([{"name": "dump", "arguments": {}, "id": "c1"}]).text("ok")
    engine = MessageEngine(provider, plugins=[ToolPlugin([dump])])
    await engine.send_message("go")
    live = next(m for m in engine.messages if m["role"] == "tool")
    assert len(live["content"]) == SIZE
    assert provider.requests[-1]["messages"][-1]["content"] == "x" * SIZE  # the model saw it whole this turn
    stored = next(m for m in engine.export_record()["messages"] if m["role"] == "tool")
    assert stored["content"].startswith("x" * MAX_TOOL_RESULT_CHARS)
    assert stored["content"].endswith(f"this tool result was {SIZE} characters long; only the first "
                                      f"{MAX_TOOL_RESULT_CHARS} are stored]")
    assert stored["metadata"]["truncated"] == {"chars": SIZE}
    assistant = next(m for m in engine.messages if m.get("tool_calls"))
    card = message_view(assistant, tool_results(engine.messages))["tool_calls"][0]
    assert card["truncated"] == {"chars": SIZE}
