"""Many conversations in one chat, in a real JupyterLab: the header's New conversation, list, switch, rename,
delete, a paused approval waiting in an inactive conversation across Restart Kernel, and export to notebook cells."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Locator

from tests.e2e.cells import record_tool_chat
from tests.e2e.chat_page import ChatPage, open_chat
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

DEMO_CHAT = record_tool_chat('convs')

CODE_CHAT = '''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text("Load it:\\n\\n```python\\nx = 41 + 1\\n```\\n\\nThen look at `x`."), key="export")
chat
'''


def header(chat: ChatPage) -> Locator:
    return chat.root.locator(".nbc-conversations")


def open_list(chat: ChatPage) -> Locator:
    """Open the conversation list (if closed) and return its rows."""
    toggle = header(chat).locator("[data-action=conversation-list]")
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    return header(chat).locator(".nbc-conversation")


def wait_rows(chat: ChatPage, count: int) -> Locator:
    rows = open_list(chat)
    chat.lab.page.wait_for_function("([list, n]) => list.querySelectorAll('.nbc-conversation').length === n",
                                    arg=[header(chat).locator(".nbc-conversation-list").element_handle(), count])
    return rows


def row(chat: ChatPage, title: str) -> Locator:
    return open_list(chat).filter(has=chat.lab.page.locator(".nbc-conversation-title", has_text=title))


def talk(chat: ChatPage, text: str) -> None:
    chat.send(text)
    chat.wait_reply_containing(f"You wrote: {text}")
    chat.wait_state("completed")


def stored_items(lab: Lab, key: str) -> dict[str, Any]:
    section = lab.notebook_metadata("notebook_chat") or {}
    entry = (section.get("conversations") or {}).get(key) or {}
    return entry.get("items") or {}


def test_a_new_conversation_keeps_the_old_one_in_the_list_and_switching_brings_it_back(lab: Lab) -> None:
    chat = open_chat(lab, "new.ipynb", [DEMO_CHAT])
    talk(chat, "About sales")
    new = header(chat).get_by_role("button", name="New conversation")
    new.click()
    chat.messages("user").first.wait_for(state="detached")
    talk(chat, "About plots")
    rows = wait_rows(chat, 2)
    assert rows.locator(".nbc-conversation-title").all_inner_texts() == ["About sales", "About plots"]
    assert rows.nth(1).get_attribute("aria-current") == "true"

    row(chat, "About sales").locator("[data-action=switch-conversation]").click()
    chat.wait_reply_containing("You wrote: About sales")
    assert chat.texts("user") == ["About sales"]
    assert row(chat, "About sales").get_attribute("aria-current") == "true"
    assert "About sales (2)" in header(chat).locator("[data-action=conversation-list]").inner_text()


def test_deleting_a_conversation_asks_first_then_removes_it_from_the_list_and_the_notebook(lab: Lab) -> None:
    chat = open_chat(lab, "delete.ipynb", [DEMO_CHAT])
    talk(chat, "Keep me")
    header(chat).get_by_role("button", name="New conversation").click()
    chat.messages("user").first.wait_for(state="detached")
    talk(chat, "Throw me away")
    wait_rows(chat, 2)

    row(chat, "Throw me away").get_by_role("button", name="Delete “Throw me away”").click()
    confirm = header(chat).locator(".nbc-conversation-confirm")
    assert "Delete “Throw me away” for good?" in confirm.inner_text()
    confirm.locator("[data-action=cancel]").click()
    assert wait_rows(chat, 2).count() == 2

    row(chat, "Throw me away").get_by_role("button", name="Delete “Throw me away”").click()
    confirm.locator("[data-action=confirm]").click()
    rows = wait_rows(chat, 1)
    assert rows.locator(".nbc-conversation-title").all_inner_texts() == ["Keep me"]
    chat.wait_reply_containing("You wrote: Keep me")
    lab.page.wait_for_function(
        "() => Object.keys(window.jupyterapp.shell.currentWidget.context.model.getMetadata('notebook_chat')"
        ".conversations.convs.items).length === 1")
    assert [record["messages"][0]["content"] for record in stored_items(lab, "convs").values()] == ["Keep me"]


def test_a_renamed_conversation_keeps_its_name_after_save_and_kernel_restart(lab: Lab) -> None:
    chat = open_chat(lab, "rename.ipynb", [DEMO_CHAT])
    talk(chat, "numbers for q3")
    open_list(chat).first.locator("[data-action=rename-conversation]").click()
    field = header(chat).locator("[data-field=conversation-title]")
    field.fill("Quarterly numbers")
    field.press("Enter")
    header(chat).locator(".nbc-conversation-title", has_text="Quarterly numbers").wait_for()
    lab.page.wait_for_function(
        "() => Object.values(window.jupyterapp.shell.currentWidget.context.model.getMetadata('notebook_chat')"
        ".conversations.convs.items)[0].title === 'Quarterly numbers'")
    lab.save()

    lab.restart_kernel()
    lab.run_cell(0)
    chat.wait_ready()
    chat.wait_reply_containing("You wrote: numbers for q3")
    assert "Quarterly numbers (1)" in header(chat).locator("[data-action=conversation-list]").inner_text()
    assert open_list(chat).locator(".nbc-conversation-title").all_inner_texts() == ["Quarterly numbers"]


def test_a_pending_approval_in_an_inactive_conversation_survives_restart_and_runs_once_after_switching_back(
        lab: Lab) -> None:
    chat = open_chat(lab, "approval.ipynb", [DEMO_CHAT])
    runs = lab.server.root / lab.folder / "runs.txt"
    chat.send("Please record_run for Alpha")
    call_id = chat.wait_pending_card().get_attribute("data-tool-call-id")
    header(chat).get_by_role("button", name="New conversation").click()
    chat.card().first.wait_for(state="detached")
    talk(chat, "Something else meanwhile")
    paused_row = row(chat, "Please record_run for Alpha")
    assert paused_row.get_attribute("data-state") == "paused"
    assert "waits for approval" in paused_row.inner_text()
    lab.page.wait_for_function(
        "() => Object.values(window.jupyterapp.shell.currentWidget.context.model.getMetadata('notebook_chat')"
        ".conversations.convs.items).some((record) => record.paused_turn)")
    lab.save()
    assert not runs.exists()

    lab.restart_kernel()
    lab.run_cell(0)
    chat.wait_ready()
    chat.wait_reply_containing("You wrote: Something else meanwhile")
    paused_row = row(chat, "Please record_run for Alpha")
    assert paused_row.get_attribute("data-state") == "paused"
    paused_row.locator("[data-action=switch-conversation]").click()
    card = chat.wait_pending_card()
    assert card.get_attribute("data-tool-call-id") == call_id
    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("I called record_run and got: recorded")
    assert chat.wait_state("completed") == "completed"
    time.sleep(0.5)
    assert runs.read_text().splitlines() == ["Alpha"]


def test_export_to_cells_inserts_the_conversation_below_the_chat_with_its_python_as_a_code_cell(lab: Lab) -> None:
    chat = open_chat(lab, "export.ipynb", [CODE_CHAT])
    chat.send("How do I make x?")
    chat.wait_reply_containing("Then look at")
    chat.wait_state("completed")
    open_list(chat)
    header(chat).get_by_role("button", name="Insert as cells").click()
    lab.wait_for_cell_count(6)
    cells = lab.cell_sources()
    assert cells[1:] == [
        ["markdown", "# How do I make x?"],
        ["markdown", "## You\n\nHow do I make x?"],
        ["markdown", "## Assistant\n\nLoad it:"],
        ["code", "x = 41 + 1"],
        ["markdown", "Then look at `x`."],
    ]
