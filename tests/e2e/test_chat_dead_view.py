"""A chat view whose kernel connection is gone says so and can't be clicked (issue 13, item 4)."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SETUP = '''
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider

@tool(approval=True)
def publish(target: str) -> str:
    """Publish the report."""
    return f"published to {target}"

provider = ScriptedProvider().tool_calls([{"name": "publish", "arguments": {"target": "web"}, "id": "call_pub"}])
chat = Chat(provider, tools=[publish], key="dead")
chat
'''


def test_after_a_kernel_restart_the_old_view_says_so_and_disables_its_controls(lab: Lab) -> None:
    lab.open_notebook("dead.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Publish it")
    card = chat.wait_pending_card()

    lab.restart_kernel()

    dead = chat.root.locator(".nbc-dead")
    dead.wait_for(state="visible")
    assert dead.inner_text() == "The kernel restarted — run this cell again to continue."
    assert chat.root.get_attribute("data-dead") == "true"
    for control in ("[data-action=approve]", "[data-action=deny]", "[data-action=stop]", "[data-action=send]"):
        assert card.page.locator(f".nbc-root {control}").first.is_disabled(), control
    assert chat.root.locator("[data-field=input]").is_disabled()
    # the conversation stays readable
    assert chat.texts("user") == ["Publish it"]
    assert card.locator(".nbc-tool-name").inner_text() == "publish"
    errors = [line for line in lab.console if (line.startswith(("pageerror", "error")) and "notebook_chat" in line)
              or "Cannot send" in line]
    assert errors == []
