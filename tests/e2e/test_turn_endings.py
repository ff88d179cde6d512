"""Why a turn ended is always visible (issue 13, item 8): the token limit is named next to Continue, an error is
shown once, and Retry sits beside Continue once the kernel has the retry action (issue 12)."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

IMPORTS = """
from notebook_chat import Chat
from notebook_chat.engine import ProviderError
from notebook_chat.testing import ScriptedProvider
"""


def open_chat(lab: Lab, name: str, setup: str) -> ChatPage:
    lab.open_notebook(name, [IMPORTS + setup])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat


def test_a_reply_cut_off_at_the_token_limit_says_so_next_to_continue(lab: Lab) -> None:
    setup = ('provider = ScriptedProvider().text("The first half of", chunks=3, finish_reason="length")\n'
             'chat = Chat(provider, key="length")\nchat')
    chat = open_chat(lab, "length.ipynb", setup)
    chat.send("Write a long essay")
    box = chat.root.locator(".nbc-continue")
    box.wait_for(state="visible")

    assert box.locator(".nbc-end-reason").inner_text() == "The reply was cut off at the token limit."
    assert box.locator("[data-action=continue]").is_visible()


ERROR_SETUP = '''
failure = ProviderError("The server answered 503: upstream exploded", kind="server")
provider = (ScriptedProvider().text("A partial", chunks=2, error=failure, error_at=1)
            .text("A partial answer, now whole."))
chat = Chat(provider, key="error")
chat
'''


def test_an_error_is_shown_once_and_continue_says_the_request_failed(lab: Lab) -> None:
    chat = open_chat(lab, "error.ipynb", ERROR_SETUP)
    chat.send("Answer me")
    box = chat.root.locator(".nbc-continue")
    box.wait_for(state="visible")
    assert chat.wait_state("error") == "error"

    assert chat.root.inner_text().count("upstream exploded") == 1
    assert box.locator(".nbc-end-reason").inner_text() == "The request failed."
    shown = chat.root.locator(".nbc-message-error:not([hidden])")
    assert shown.inner_text() == "The server answered 503: upstream exploded"


def test_one_retry_sits_right_under_continue_and_sends_the_same_request_again(lab: Lab) -> None:
    chat = open_chat(lab, "retry.ipynb", ERROR_SETUP)
    chat.send("Answer me")
    retry = chat.root.locator(".nbc-continue + .nbc-recovery [data-action=retry]")
    retry.wait_for(state="visible")
    assert chat.root.locator(".nbc-continue [data-action=continue]").is_visible()
    assert chat.root.locator("[data-action=retry]:visible").count() == 1

    retry.click()
    chat.wait_reply_containing("A partial answer, now whole.")
    assert chat.texts("user") == ["Answer me"]
    assert chat.root.locator(".nbc-continue").is_hidden()
