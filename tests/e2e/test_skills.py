"""Skills in a real JupyterLab: the chips show the available skills, a click turns one on (the kernel's next snapshot
says so), and after Restart Kernel the selection is still on and an awaiting resource read is approved once."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab
from tests.skills.skill_folders import cleaning_skill, plotting_skill

pytestmark = pytest.mark.browser

SKILL_CHAT = '''
from notebook_chat import Chat
from notebook_chat.providers import DemoModel

chat = Chat(DemoModel(delay=0.005), skills=["skills"], approve_skill_reads=True, key="skilled")
chat
'''


def test_a_skill_toggled_on_in_the_widget_stays_on_and_its_awaiting_read_is_approved_after_a_kernel_restart(
        lab: Lab) -> None:
    folder = lab.server.root / lab.folder / "skills"
    cleaning_skill(folder)
    plotting_skill(folder)
    lab.open_notebook("skills.ipynb", [SKILL_CHAT])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chips = chat.root.locator(".nbc-skill")
    expect(chips).to_have_text(["pandas-cleaning", "plotting-style"])
    cleaning = chat.root.locator(".nbc-skill[data-skill=pandas-cleaning]")
    expect(cleaning).to_have_attribute("aria-pressed", "false")

    cleaning.click()
    expect(cleaning).to_have_attribute("aria-pressed", "true")
    expect(chat.root.locator(".nbc-skill[data-skill=plotting-style]")).to_have_attribute("aria-pressed", "false")
    chat.send("Read reference.md from the pandas-cleaning skill")
    card = chat.wait_pending_card()
    expect(card.locator(".nbc-tool-name")).to_contain_text("read_skill_file")
    record = lab.stored_record("skilled", "paused_turn")
    assert record["paused_turn"]["custom_context"]["skills"] == {"active": ["pandas-cleaning"]}

    lab.restart_kernel()
    lab.run_cell(0)
    chat.wait_ready()
    expect(cleaning).to_have_attribute("aria-pressed", "true")
    card = chat.wait_pending_card()
    card.locator("[data-action=approve]").click()
    reply = chat.wait_reply_containing("I called read_skill_file and got")
    expect(reply).to_contain_text("Use df.drop_duplicates()")
    assert chat.wait_state("completed") == "completed"
    assert chat.card("success").count() == 1
    assert chat.card("awaiting-approval").count() == 0


def test_a_click_on_a_chip_in_always_mode_changes_nothing(lab: Lab) -> None:
    folder = lab.server.root / lab.folder / "skills"
    cleaning_skill(folder)
    lab.open_notebook("always.ipynb", [SKILL_CHAT.replace("approve_skill_reads=True", "skill_mode='always'")])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chip = chat.root.locator(".nbc-skill[data-skill=pandas-cleaning]")
    expect(chip).to_have_attribute("aria-pressed", "true")
    expect(chip).to_have_attribute("aria-disabled", "true")
    chip.click(force=True)  # aria-disabled: Playwright would wait for it to be enabled; a person can still click
    time.sleep(0.5)
    expect(chip).to_have_attribute("aria-pressed", "true")
    assert chat.root.locator(".nbc-error").is_hidden()
