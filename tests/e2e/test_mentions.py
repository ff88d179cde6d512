"""@-mentions in a real JupyterLab: typing "@" in the composer offers the kernel's variables (DataFrames first, with
their shape), Enter inserts one, the sent message shows a chip per mention and the DemoModel answers from the
injected description; an unknown name is refused before anything is sent."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, active_record

pytestmark = pytest.mark.browser

MENTION_CHAT = '''
import pandas as pd
from notebook_chat import Chat
from notebook_chat.providers import DemoModel

sales = pd.DataFrame({"region": ["N", "S", "E"], "units": [3.0, None, 5.0]})
sales_note = "from the 2025 export"
chat = Chat(DemoModel(delay=0.005), key="mentions")
chat
'''


def test_typing_at_offers_the_kernels_dataframes_first_and_a_sent_mention_shows_a_chip(lab: Lab) -> None:
    lab.open_notebook("mentions.ipynb", [MENTION_CHAT])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    box = chat.root.locator("[data-field=input]")
    box.click()
    box.press_sequentially("What is in @sa")
    options = chat.root.locator(".nbc-mentions [role=option]")
    expect(options).to_have_count(2)
    expect(options.nth(0)).to_contain_text("@sales")
    expect(options.nth(0)).to_contain_text("pandas.DataFrame, shape (3, 2)")
    expect(options.nth(1)).to_contain_text("@sales_note")
    box.press("Enter")  # picks the highlighted option; does not send
    expect(box).to_have_value("What is in @sales ")
    expect(chat.root.locator(".nbc-mentions")).to_be_hidden()
    assert chat.messages("user").count() == 0

    box.press_sequentially("?")
    box.press("Enter")
    reply = chat.wait_reply_containing("is a DataFrame with 3 rows × 2 columns")
    expect(reply).to_contain_text("Missing values: units (1 of 3)")
    chip = chat.messages("user").locator(".nbc-mention-chip")
    expect(chip).to_have_text(["@sales"])
    expect(chip).to_have_attribute("title", "pandas.DataFrame, shape (3, 2)")


def test_an_unknown_mention_is_refused_before_sending_and_says_why(lab: Lab) -> None:
    lab.open_notebook("unknown-mention.ipynb", [MENTION_CHAT.replace('key="mentions"', 'key="unknown"')])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Compare @sales with @nonexistent")
    error = chat.root.locator(".nbc-error")
    expect(error).to_contain_text("there is no variable named 'nonexistent'")
    assert chat.messages("user").count() == 0


STORED_MENTIONS = """
import json
tools = [m for m in chat.messages if m.get("role") == "tool"]
print("TOOLS", json.dumps([m.get("metadata", {}).get("mention") for m in tools]))
"""


def test_this_turn_only_sends_the_description_once_and_the_notebook_never_keeps_it(lab: Lab) -> None:
    lab.open_notebook("temp-mention.ipynb", [MENTION_CHAT.replace('key="mentions"', 'key="temp"'), STORED_MENTIONS])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    once = chat.root.locator(".nbc-mention-once")
    box = chat.root.locator("[data-field=input]")
    box.click()
    box.press_sequentially("Plain words first")
    expect(once).to_be_hidden()  # offered only when the text mentions something
    box.fill("")
    box.press_sequentially("Summarize @sales")
    expect(once).to_be_visible()
    expect(once).to_have_attribute("aria-pressed", "false")
    once.click()
    expect(once).to_have_attribute("aria-pressed", "true")
    expect(box).to_be_focused()
    box.press("Enter")
    chat.wait_reply_containing("is a DataFrame with 3 rows × 2 columns")
    chip = chat.messages("user").locator(".nbc-mention-chip")
    expect(chip).to_have_attribute("data-temp", "true")
    expect(chip).to_have_attribute("title", "pandas.DataFrame, shape (3, 2) · sent this turn only")
    expect(once).to_be_hidden()
    expect(once).to_have_attribute("aria-pressed", "false")  # the choice is per message

    lab.page.wait_for_function("() => (window.jupyterapp.shell.currentWidget.context.model"
                               ".getMetadata('notebook_chat')?.conversations?.temp?.items?.main?.messages?.length ?? 0)"
                               " >= 2")
    stored = active_record(lab.notebook_metadata("notebook_chat"), "temp")
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant"]
    assert "describe" not in str(stored)
    chat.send("And now?")
    expect(chat.messages("assistant")).to_have_count(2)
    chat.wait_state("completed")
    assert kernel_value(lab, 1, "TOOLS") == []
