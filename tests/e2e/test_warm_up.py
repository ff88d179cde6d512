"""A displayed chat warms its markdown renderer up while the page is idle (js/widget/src/warm_up.js), so the first
reply is not drawn by code that runs for the first time: without drawing anything and without a task of 100 ms, in a
real JupyterLab."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

Chat(ScriptedProvider().text("Done."), key="warm")
"""

# From before the chat is displayed: every long task (start, duration) and when the chat's root first says it holds
# the kernel's view (data-synced) and that its renderer is warm (data-warm=true).
WATCH = """() => {
  const state = window.__warm = { tasks: [], synced: null, warm: null };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.tasks.push([entry.startTime, entry.duration]);
  }).observe({ type: 'longtask' });
  new MutationObserver(() => {
    const root = document.querySelector('.nbc-root');
    if (root?.dataset.synced === 'true' && state.synced === null) state.synced = performance.now();
    if (root?.dataset.warm === 'true' && state.warm === null) state.warm = performance.now();
  }).observe(document.body, { subtree: true, childList: true, attributes: true,
                              attributeFilter: ['data-synced', 'data-warm'] });
}"""


def warmed_up(lab: Lab) -> tuple[ChatPage, dict[str, Any]]:
    lab.open_notebook("warm.ipynb", [SETUP])
    lab.page.evaluate(WATCH)
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    lab.output(chat.cell).locator(".nbc-root[data-warm=true]").wait_for(timeout=30_000)
    state: dict[str, Any] = lab.page.evaluate("() => window.__warm")
    return chat, state


def test_a_displayed_chat_warms_its_renderer_up_after_its_first_view_with_no_task_of_100_ms(lab: Lab) -> None:
    _, state = warmed_up(lab)
    assert state["synced"] is not None, state
    assert state["warm"] is not None, state
    assert state["warm"] >= state["synced"], state
    during = [task for task in state["tasks"] if state["synced"] <= task[0] <= state["warm"]]
    # a step costs a few ms; KaTeX's evaluation, in an idle callback before them, is one task of 30-60 ms
    assert [task for task in during if task[1] >= 100] == [], state


def test_the_warm_up_draws_nothing_the_reader_sees(lab: Lab) -> None:
    chat, _ = warmed_up(lab)
    assert chat.root.locator(".nbc-message").count() == 0
    assert lab.page.get_by_text("grouping the frame").count() == 0  # the warm-up reply was never inserted
    assert chat.root.locator(".nbc-empty").is_visible()
