"""Displaying a chat whose stored record is unchanged leaves the notebook clean (issue 13, item 11)."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import CURRENT_TAB, Lab, active_record

pytestmark = pytest.mark.browser

SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
chat = Chat(ScriptedProvider().text("Stored reply."), key="clean")
chat
"""


def test_reopening_a_saved_notebook_with_an_unchanged_chat_leaves_it_clean(lab: Lab) -> None:
    lab.open_notebook("clean.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Remember this")
    chat.wait_reply_containing("Stored reply.")
    chat.wait_state("completed")
    lab.page.wait_for_function("el => Number(el.dataset.persisted ?? 0) > 0", arg=chat.root.element_handle())
    lab.save()

    lab.close_and_reopen()  # the kernel keeps running: the widget renders again and the kernel persists again
    again = ChatPage(lab)
    again.wait_reply_containing("Stored reply.")
    stored = active_record(lab.notebook_metadata("notebook_chat"), "clean")
    assert [m["content"] for m in stored["messages"] if m["role"] == "user"] == ["Remember this"]
    again.wait_state("completed")  # the re-render's ready → restore round trip is over (nothing changed: no write)
    dirty = lab.page.locator(f"{CURRENT_TAB}.jp-mod-dirty")
    assert dirty.count() == 0


RICH_SETUP = '''
import base64
from notebook_chat import Chat
from notebook_chat.plugins import ToolResult, tool
from notebook_chat.testing import ScriptedProvider

PNG = base64.b64encode(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(range(256)) * 40).decode()

@tool
def plot(name: str) -> ToolResult:
    """Draws a chart."""
    return ToolResult(content=f"plotted {name}", display={"image/png": PNG, "text/plain": "<Figure>"})

@tool(approval=True)
def drop_rows(table: str) -> str:
    """Drops rows."""
    return "dropped"

provider = (ScriptedProvider()
            .tool_calls([{"name": "plot", "arguments": {"name": "a"}, "id": "c1"}]).text("Here is the chart.")
            .tool_calls([{"name": "drop_rows", "arguments": {"table": "t"}, "id": "c2"}]))
chat = Chat(provider, tools=[plot, drop_rows], key="rich")
chat
'''

RICH_TURNS = '''
await chat.send("Plot a")
chat.new_conversation("Cleanup")
await chat.send("Drop the rows of t")
print("STATE", chat.state.request_state)
'''


def test_reopening_a_chat_with_an_image_two_conversations_and_a_pending_approval_leaves_the_notebook_clean(
        lab: Lab) -> None:
    lab.open_notebook("clean_rich.ipynb", [RICH_SETUP, RICH_TURNS])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    lab.run_cell(1)
    lab.wait_for_output(1, r"STATE")
    chat.wait_pending_card()
    lab.wait_paused_turn("rich")
    assert len(lab.notebook_metadata("notebook_chat")["conversations"]["rich"]["items"]) == 2
    lab.save()

    lab.close_and_reopen()  # the kernel keeps running: the widget renders again and hands the record over
    again = ChatPage(lab)
    card = again.wait_pending_card()
    again.wait_state("paused")
    lab.page.evaluate("() => new Promise((done) => requestIdleCallback(() => requestIdleCallback(done)))")
    assert again.root.get_attribute("data-writer") == "true"  # this view writes the chat's record into the notebook
    assert again.root.get_attribute("data-persisted") is None  # and no write came to it
    assert lab.page.locator(f"{CURRENT_TAB}.jp-mod-dirty").count() == 0
    assert card.locator("[data-action=approve]").is_enabled()
