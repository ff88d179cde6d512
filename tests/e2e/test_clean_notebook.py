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
