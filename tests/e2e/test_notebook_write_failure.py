"""A notebook-metadata write that fails in the browser is shown in the widget (what failed, what to do), and the
notice goes away once a later write succeeds. Real JupyterLab: the notebook's `notebook_chat` metadata is not an
object, so the bridge refuses to write over it."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

DEMO_CHAT = '''
from notebook_chat import Chat
from notebook_chat.providers import DemoModel

chat = Chat(DemoModel(delay=0.005), key="unsaved")
chat
'''


def test_a_failed_notebook_write_shows_a_notice_until_a_later_write_succeeds(lab: Lab) -> None:
    lab.open_notebook("write-fails.ipynb", [DEMO_CHAT], metadata={"notebook_chat": "not an object"})
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    notice = chat.root.locator(".nbc-notice")

    chat.send("hello")
    chat.wait_state("completed")
    notice.filter(has_text="could not be stored in the notebook").wait_for()
    assert "lives only in this kernel" in notice.inner_text()
    assert lab.notebook_metadata("notebook_chat") == "not an object"

    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.deleteMetadata('notebook_chat')")
    chat.send("again")
    chat.wait_state("completed")
    notice.wait_for(state="hidden")
    stored = lab.notebook_metadata("notebook_chat")
    assert "unsaved" in stored["conversations"]
