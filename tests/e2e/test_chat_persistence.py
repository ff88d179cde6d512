"""Conversations kept in notebook metadata, in a real JupyterLab: a paused approval survives Ctrl+S and a kernel
restart (and the tool then runs once), and a reopened notebook shows its conversation again."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.e2e.cells import record_tool_chat
from tests.e2e.chat_page import open_chat
from tests.e2e.lab import Lab, active_record

pytestmark = pytest.mark.browser

RECORD_TOOL = record_tool_chat('durable')

DEMO_CHAT = '''
from notebook_chat import Chat
from notebook_chat.providers import DemoModel

chat = Chat(DemoModel(delay=0.005), key="reopen")
chat
'''


def test_a_paused_approval_survives_save_and_kernel_restart_and_the_tool_then_runs_once(lab: Lab) -> None:
    chat = open_chat(lab, "durable.ipynb", [RECORD_TOOL])
    runs = lab.server.root / lab.folder / "runs.txt"
    chat.send("Please record_run for Alpha")
    call_id = chat.wait_pending_card().get_attribute("data-tool-call-id")
    lab.stored_record("durable", "paused_turn")

    lab.save()
    record = active_record(lab.read_notebook_from_disk()["metadata"]["notebook_chat"], "durable")
    assert record["paused_turn"]["tool_call_ids"] == [call_id]
    assert [m["content"] for m in record["messages"] if m["role"] == "user"] == ["Please record_run for Alpha"]

    lab.restart_kernel()
    lab.run_cell(0)
    chat.wait_ready()
    card = chat.wait_pending_card()
    assert card.get_attribute("data-tool-call-id") == call_id
    assert chat.texts("user") == ["Please record_run for Alpha"]
    assert not runs.exists()

    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("I called record_run and got: recorded")
    assert chat.wait_state("completed") == "completed"
    time.sleep(0.5)
    assert runs.read_text().splitlines() == ["Alpha"]
    assert chat.card("success").count() == 1


def test_a_closed_and_reopened_notebook_shows_its_conversation_again(lab: Lab) -> None:
    chat = open_chat(lab, "reopen.ipynb", [DEMO_CHAT])
    chat.send("Hello there")
    chat.wait_reply_containing("You wrote: Hello there")
    chat.wait_state("completed")
    lab.stored_record("reopen", "turns")
    lab.save()

    lab.close_and_reopen()
    chat.wait_ready()
    chat.wait_reply_containing("You wrote: Hello there")
    assert chat.texts("user") == ["Hello there"]
    assert len(chat.texts("assistant")) == 1
    assert chat.wait_state("completed") == "completed"


def test_an_approved_call_that_ran_is_not_offered_again_after_the_tab_closed_unsaved_and_the_kernel_restarted(
        lab: Lab) -> None:
    chat = open_chat(lab, "closed-tab.ipynb", [RECORD_TOOL])
    runs = lab.server.root / lab.folder / "runs.txt"
    chat.send("Please record_run for Alpha")
    card = chat.wait_pending_card()
    lab.stored_record("durable", "paused_turn")
    lab.save()  # the notebook on disk shows the call waiting for approval

    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("I called record_run and got: recorded")
    assert runs.read_text().splitlines() == ["Alpha"]

    # the kernel restarts and the tab goes away without saving (closed, or the browser crashed); the notebook is
    # opened again from disk, where the call still waits for approval
    lab.restart_kernel()
    lab.page.reload()
    lab.wait_for_cell_count(1)
    lab.wait_idle()
    assert active_record(lab.read_notebook_from_disk()["metadata"]["notebook_chat"], "durable")["paused_turn"]
    lab.run_cell(0)
    chat.wait_ready()
    chat.root.locator(".nbc-notice", has_text="already decided in an earlier kernel").wait_for()

    assert chat.card("awaiting-approval").count() == 0
    assert chat.root.locator("[data-action=approve]").count() == 0
    assert "already run in an earlier kernel" in chat.root.locator(".nbc-tool").first.inner_text()
    assert runs.read_text().splitlines() == ["Alpha"]


REASONING_CHAT = '''
from notebook_chat import Chat
from notebook_chat.engine import ProviderError
from notebook_chat.testing import ScriptedProvider

provider = ScriptedProvider().text("", reasoning="Weighing the three options first.", chunks=3, finish_reason=None,
                                   error=ProviderError("the connection was reset"), error_at=2)
chat = Chat(provider, key="thought")
chat
'''


def test_a_reply_that_failed_while_it_only_reasoned_shows_its_reasoning_after_a_kernel_restart(lab: Lab) -> None:
    chat = open_chat(lab, "thought.ipynb", [REASONING_CHAT])
    chat.send("Which option?")
    chat.wait_state("error")
    thinking = chat.root.locator(".nbc-assistant .nbc-thinking")
    before = thinking.text_content() or ""
    assert "Weighing the three" in before  # what reached the page before the connection failed
    lab.stored_record("thought", "turns")
    lab.save()

    lab.restart_kernel()
    lab.run_cell(0)
    chat.wait_ready()
    expect(thinking).to_have_text(before)  # waits for the restored view
