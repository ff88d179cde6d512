"""JupyterLab focuses a cell's node in command mode, and a rule of its CodeMirror theme (`.cm-content :focus
::selection`) makes the browser restyle everything under an element whose focus changes: the focus moving onto or off
the chat's cell restyles what the reader sees of the chat, not every element of a long conversation — in a real
JupyterLab (benchmarks/focus_restyle.py measures it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab
from tests.e2e.timeline import style_recalculations, timeline_while

pytestmark = pytest.mark.browser

STEPS = 150
REPLY = "".join(
    f"Step {n}:\n\n```python\n" + "".join(f"total_{i} = frame['{n}'].sum() * {i}  # part {i}\n" for i in range(8))
    + "```\n\n" for n in range(STEPS))
RECORD = {"version": 1, "turns": [], "paused_turn": None, "updated_at": "2026-01-01T00:00:00Z",
          "messages": [{"id": "u0", "role": "user", "content": "Show the steps"},
                       {"id": "a0", "role": "assistant", "content": REPLY}]}
METADATA = {"notebook_chat": {"version": 2, "conversations": {"steps": {"active": "main", "items": {"main": RECORD}}}}}
SETUP = """
from notebook_chat import Chat
from notebook_chat.providers import DemoModel

Chat(DemoModel(), key="steps")
"""


def most_restyled_while(lab: Lab, action: Any) -> int:
    """The elements of the largest style recalculation while `action` runs and the page settles."""
    events = timeline_while(lab, lambda: (action(), lab.page.wait_for_timeout(500)))
    return max((event["args"]["elementCount"] for event in style_recalculations(events)), default=0)


def test_selecting_the_chats_cell_restyles_the_code_in_view_not_every_code_block_of_the_conversation(lab: Lab) -> None:
    lab.open_notebook("focus.ipynb", [SETUP, "x = 1"], metadata=METADATA)
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    reply = chat.messages("assistant").last
    lab.page.wait_for_function("reply => reply.dataset.drawn === 'true'", arg=reply.element_handle(), timeout=60_000)
    assert reply.locator(".nbc-code").count() == STEPS
    elements = chat.root.evaluate("root => root.querySelectorAll('*').length")
    lab.cell(1).locator(".jp-InputArea-editor").click()
    lab.page.keyboard.press("Escape")  # command mode in the next cell
    restyled = most_restyled_while(lab, lambda: lab.page.keyboard.press("ArrowUp"))  # the chat's cell takes the focus
    assert "jp-mod-active" in (lab.cell(0).get_attribute("class") or "")
    # the code blocks out of view keep their style: what the reader sees, and the blocks' boxes, are restyled
    assert restyled < elements / 3, (restyled, elements)


def test_a_code_block_scrolled_into_view_shows_its_highlighted_code(lab: Lab) -> None:
    lab.open_notebook("scrolled.ipynb", [SETUP], metadata=METADATA)
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    reply = chat.messages("assistant").last
    lab.page.wait_for_function("reply => reply.dataset.drawn === 'true'", arg=reply.element_handle(), timeout=60_000)
    first = reply.locator(".nbc-code").first
    first.scroll_into_view_if_needed()
    box = first.locator("pre").bounding_box()
    assert box is not None
    assert box["height"] > 8 * 12  # its eight lines are laid out, not a placeholder's height
    assert first.locator(".hljs-string").first.is_visible()
