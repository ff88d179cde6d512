"""What a reply cost and what was left out of it, as the user sees them: each reply shows the tokens the server
reported (nothing when it reported none), the conversation's total sits under the list, and a reply whose request
left older turns out (the context window) says how many."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SETUP = """
from notebook_chat import Chat
from notebook_chat.providers import OpenAIChat
from notebook_chat.testing import FakeOpenAIServer
server = FakeOpenAIServer().start()
server.enqueue_text("The first answer.", usage={})  # a server that reports no usage
server.enqueue_text("The second answer.", usage={"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12})
server.enqueue_text("The third answer.", usage={"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25})
chat = Chat(OpenAIChat("small-model", base_url=server.base_url, max_retries=0, context_window=200), key="usage")
chat
"""
SENT = "import json; print('SENT', json.dumps([[m['content'] for m in r.body['messages']] for r in server.requests]))"


def test_each_reply_shows_its_tokens_the_total_adds_up_and_a_reply_says_when_older_turns_were_not_sent(
        lab: Lab) -> None:
    lab.open_notebook("usage.ipynb", [SETUP, SENT])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()

    long_question = "Please read this. " * 40  # ~720 characters: alone, most of a 200-token window
    chat.send(long_question)
    first = chat.wait_reply_containing("The first answer.")
    assert first.locator(".nbc-usage").is_hidden()  # the server reported no usage: nothing, not zeros
    assert first.locator(".nbc-left-out").is_hidden()
    assert chat.root.locator(".nbc-usage-total").is_hidden()

    chat.send("A short question?")
    second = chat.wait_reply_containing("The second answer.")
    expect(second.locator(".nbc-left-out")).to_have_text(
        "1 older turn was not sent (it did not fit the context window)")
    expect(second.locator(".nbc-usage")).to_have_text("9 tokens in · 3 out")
    expect(chat.root.locator(".nbc-usage-total")).to_have_text("Tokens this conversation: 9 in · 3 out")

    chat.send("And another?")
    third = chat.wait_reply_containing("The third answer.")
    expect(third.locator(".nbc-usage")).to_have_text("20 tokens in · 5 out")
    expect(chat.root.locator(".nbc-usage-total")).to_have_text("Tokens this conversation: 29 in · 8 out")

    sent = kernel_value(lab, 1, "SENT")
    assert long_question.strip() in sent[0][0]
    assert all(long_question.strip() not in text for text in sent[1])  # what the note says is what was sent
