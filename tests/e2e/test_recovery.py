"""A turn the server rejects as too long is recovered in the page: the rejected message offers Retry, Retry with a
shorter history, Remove and Edit; clicking one gets a reply, and the conversation's token total is shown."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SETUP = """
from notebook_chat import Chat
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer
server = FakeOpenAIServer().start()
server.enqueue_http_error(400, "request (4078 tokens) exceeds the available context size (2048 tokens)")
server.enqueue_text("A shorter answer.", usage={"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16})
server.enqueue_http_error(500, "still broken")
server.enqueue_text("After the edit.")
chat = Chat(OpenAIChat("small-model", base_url=server.base_url, max_retries=0), key="recovery")
chat
"""


def test_a_too_long_rejection_is_recovered_by_retry_shorter_then_by_editing_the_message(lab: Lab) -> None:
    lab.open_notebook("recovery.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    assert chat.root.locator(".nbc-title").inner_text().startswith("OpenAI small-model @ http://127.0.0.1:")

    chat.send("A very long question")
    chat.wait_state("error")
    bar = chat.root.locator(".nbc-recovery")
    bar.wait_for(state="visible")
    # the error's text is shown once, on the rejected message or in the Continue box (not in the status line)
    shown = chat.root.inner_text()
    assert "The request is too long for the model's context" in shown
    assert shown.count("Retry with a shorter history, or edit or remove the message.") == 1
    assert chat.root.locator(".nbc-usage-total").is_hidden()
    bar.locator("[data-action=retry-shorter]").click()

    chat.wait_reply_containing("A shorter answer.")
    expect(bar).to_be_hidden()
    expect(chat.root.locator(".nbc-usage-total")).to_have_text("Tokens this conversation: 12 in · 4 out")

    chat.send("Another question")
    chat.wait_state("error")
    bar.wait_for(state="visible")
    bar.locator("[data-action=edit-message]").click()
    bar.locator(".nbc-recovery-editor").fill("The edited question")
    bar.locator("[data-action=resend-message]").click()

    chat.wait_reply_containing("After the edit.")
    assert chat.texts("user") == ["A very long question", "The edited question"]
