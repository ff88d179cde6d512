"""The examples tell the truth on Run All in JupyterLab (issue 13, item 11): the quickstart ends on a pending
Approve/Deny card for the reader to click, and running an example again after Restart Kernel shows the same
transcript (the example starts a fresh conversation; the stored one is not restored and appended to)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def code_cells(name: str) -> list[str]:
    notebook = nbformat.read(EXAMPLES / name, as_version=4)  # type: ignore[no-untyped-call]
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def chat_cell(cells: list[str]) -> int:
    return next(index for index, source in enumerate(cells) if "Chat(" in source)


def run_all(lab: Lab, cells: list[str]) -> None:
    for index in range(len(cells)):
        lab.run_cell(index, timeout=120_000)


def transcript(chat: ChatPage) -> list[tuple[str, str]]:
    items = chat.root.locator(".nbc-message")
    return [(str(items.nth(i).get_attribute("data-role")), items.nth(i).locator(".nbc-content").inner_text().strip())
            for i in range(items.count())]


def test_run_all_of_the_quickstart_ends_on_the_send_email_card_waiting_for_the_reader(lab: Lab) -> None:
    cells = code_cells("quickstart.ipynb")
    lab.open_notebook("quickstart.ipynb", cells)
    run_all(lab, cells)

    chat = ChatPage(lab, cell=chat_cell(cells))
    card = chat.wait_pending_card()
    assert "send_email" in card.inner_text()
    assert card.locator("[data-action=approve]").is_enabled()
    assert card.locator("[data-action=deny]").is_enabled()
    assert chat.card("success").filter(has_text="send_email").count() == 0  # nothing approved it from code


def test_restart_kernel_then_run_all_of_the_continue_example_shows_the_same_transcript(lab: Lab) -> None:
    cells = code_cells("continue.ipynb")
    lab.open_notebook("continue.ipynb", cells)
    run_all(lab, cells)
    chat = ChatPage(lab, cell=chat_cell(cells))
    chat.wait_state("completed")
    first = transcript(chat)
    assert len(first) >= 6

    lab.restart_kernel()
    run_all(lab, cells)
    chat.wait_state("completed")
    assert transcript(chat) == first
