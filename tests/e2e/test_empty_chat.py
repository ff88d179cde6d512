"""An empty chat says what it can do, and suggested prompts are chips a click sends (issue 13, item 10)."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SETUP = '''
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider

@tool
def list_tables() -> str:
    """List the tables in the database."""
    return "sales, customers"

@tool(approval=True)
def drop_table(name: str) -> str:
    """Delete a table for good."""
    return f"dropped {name}"

provider = ScriptedProvider(label="Scripted model").text("Here are the tables.")
chat = Chat(provider, tools=[list_tables, drop_table], key="empty",
            prompts=["Which tables are there?", "Summarise the sales table"])
chat
'''


def test_an_empty_chat_names_its_model_and_tools_and_a_prompt_chip_sends_its_prompt(lab: Lab) -> None:
    lab.open_notebook("empty.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    empty = chat.root.locator(".nbc-empty")
    empty.locator("[data-tool=drop_table]").wait_for()

    assert "Chatting with Scripted model." in empty.locator(".nbc-empty-intro").inner_text()
    assert empty.locator("[data-tool=list_tables]").inner_text() == (
        "list_tables — List the tables in the database.")
    assert empty.locator("[data-tool=drop_table]").inner_text() == (
        "drop_table (asks you first) — Delete a table for good.")
    chips = empty.locator("[data-action=prompt]")
    assert chips.all_inner_texts() == ["Which tables are there?", "Summarise the sales table"]

    chips.first.click()
    chat.wait_reply_containing("Here are the tables.")
    assert chat.texts("user") == ["Which tables are there?"]
    assert empty.is_hidden()
