"""Per-message actions (issue 13, item 9): copy a message as markdown."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

REPLY = "## Plan\n\n1. Load **sales.csv**\n2. Plot `revenue`\n\n```python\ndf.plot()\n```"
SETUP = f'''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=4), key="copy")
chat
'''


def test_copy_puts_a_reply_on_the_clipboard_as_the_markdown_the_model_wrote(lab: Lab) -> None:
    lab.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.server.url)
    lab.open_notebook("copy.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Make a plan")
    reply = chat.wait_reply_containing("Plan")

    reply.hover()
    reply.locator("[data-action=copy-message]").click()

    assert lab.page.evaluate("() => navigator.clipboard.readText()") == REPLY
    assert reply.locator("[data-action=copy-message]").inner_text() == "Copied"
