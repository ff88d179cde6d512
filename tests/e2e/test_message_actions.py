"""Per-message actions (issue 13, item 9): copy a message as markdown, regenerate the last reply, edit and resend the
last message; the model and the stored history see exactly what the user sees afterwards."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage, kernel_value
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
    copy = reply.locator("[data-action=copy-message]")
    copy.click()

    expect(copy).to_have_text("Copied")  # said once the clipboard took the text (the write is asynchronous)
    assert lab.page.evaluate("() => navigator.clipboard.readText()") == REPLY


EXCHANGE = '''
import json
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
provider = ScriptedProvider().text("Paris, first try.").text("Paris, second try.")
chat = Chat(provider, key="again")
chat
'''
SEEN = '''
visible = [[m["role"], m.get("content")] for m in chat.messages if not (m.get("metadata") or {}).get("hidden")]
last = [[m["role"], m.get("content")] for m in provider.requests[-1]["messages"] if m["role"] != "system"]
print("SEEN", json.dumps({"history": visible, "request": last, "requests": len(provider.requests)}))
'''


def exchange(lab: Lab, name: str) -> ChatPage:
    lab.open_notebook(name, [EXCHANGE, SEEN])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Capital of France?")
    chat.wait_reply_containing("first try")
    chat.wait_state("completed")
    return chat


def test_regenerate_replaces_the_last_reply_for_the_user_the_model_and_the_stored_history(lab: Lab) -> None:
    chat = exchange(lab, "regenerate.ipynb")
    reply = chat.messages("assistant").last
    reply.hover()
    assert chat.messages("user").last.locator("[data-action=regenerate]").is_hidden()

    reply.locator("[data-action=regenerate]").click()
    chat.wait_reply_containing("second try")
    chat.wait_state("completed")

    assert chat.texts("user") == ["Capital of France?"]
    assert chat.texts("assistant") == ["Paris, second try."]
    seen = kernel_value(lab, 1, "SEEN")
    assert seen["history"] == [["user", "Capital of France?"], ["assistant", "Paris, second try."]]
    assert seen["request"] == [["user", "Capital of France?"]]  # the model never saw the replaced reply
    assert seen["requests"] == 2


def test_edit_and_resend_replaces_the_last_message_and_what_followed_it(lab: Lab) -> None:
    chat = exchange(lab, "edit.ipynb")
    question = chat.messages("user").last
    question.hover()
    assert chat.messages("assistant").last.locator("[data-action=edit-message]").is_hidden()
    question.locator("[data-action=edit-message]").click()
    editor = question.locator("[data-field=edit-message]")
    assert editor.input_value() == "Capital of France?"

    editor.fill("Capital of France, in one word?")
    question.locator("[data-action=resend-edited]").click()
    chat.wait_reply_containing("second try")
    chat.wait_state("completed")

    assert chat.texts("user") == ["Capital of France, in one word?"]
    assert chat.texts("assistant") == ["Paris, second try."]
    seen = kernel_value(lab, 1, "SEEN")
    assert seen["history"] == [["user", "Capital of France, in one word?"], ["assistant", "Paris, second try."]]
    assert seen["request"] == [["user", "Capital of France, in one word?"]]
