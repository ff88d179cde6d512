"""chat.ask() in a JupyterLab cell next to a live chat widget writes nothing to stderr (issue 13, item 6)."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SETUP = """
from notebook_chat import Chat
from notebook_chat.providers import DemoModel
chat = Chat(DemoModel(delay=0.002), key="ask")
chat
"""
ASK = 'print(chat.ask("Hello from ask"))\nprint(chat.ask("And again"))'


def test_chat_ask_in_a_cell_returns_the_reply_and_writes_nothing_to_stderr(lab: Lab) -> None:
    lab.open_notebook("ask.ipynb", [SETUP, ASK])
    lab.run_cell(0)
    ChatPage(lab).wait_ready()

    lab.run_cell(1)

    text = lab.wait_for_output(1, r"You wrote: \*?And again")
    assert "You wrote: *Hello from ask*" in text
    stderr = lab.cell(1).locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert stderr.count() == 0, stderr.all_inner_texts()
