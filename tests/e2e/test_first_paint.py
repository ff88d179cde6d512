"""A long conversation paints without a freeze, in a real JupyterLab + Chromium: the latest messages are drawn first
(at the bottom, in view), the older ones follow above them in slices until all are there in order, and a reader who
scrolled up while they arrive sees the same messages stay where they are. Timings are benchmarks/first_paint.py's."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.lab import CELLS, Lab

pytestmark = pytest.mark.browser

TOTAL = 600

LONG_CHAT = f'''
from notebook_chat import Chat
from notebook_chat.persistence import MemoryStore
from notebook_chat.providers import DemoModel

messages = []
for n in range({TOTAL} // 2):
    messages += [{{"id": f"u{{n}}", "role": "user", "content": f"question {{n}}"}},
                 {{"id": f"a{{n}}", "role": "assistant",
                   "content": f"**answer {{n}}**\\n\\n- a point\\n- another point\\n\\n```python\\nx = {{n}}\\n```"}}]
store = MemoryStore()
store.save("long", {{"version": 1, "messages": messages, "turns": [], "paused_turn": None,
                    "updated_at": "2026-01-01T00:00:00Z"}})
chat = Chat(DemoModel(), key="long", store=store)
chat
'''

# Counts the drawn messages after every DOM change from before the cell runs; once the reader has scrolled
# (window.__paintWatch.anchor set), it records how far the anchored message moved on screen at each change.
WATCH = """(cells) => {
  const state = { counts: [], moved: 0, anchor: null, top: 0 };
  const observer = new MutationObserver(() => {
    const cell = document.querySelectorAll(cells)[0];
    const count = cell ? cell.querySelectorAll('.nbc-message').length : 0;
    if (count && state.counts.at(-1) !== count) state.counts.push(count);
    if (state.anchor) {
      state.moved = Math.max(state.moved, Math.abs(state.anchor.getBoundingClientRect().top - state.top));
    }
  });
  observer.observe(document.body, { childList: true, subtree: true });
  window.__paintWatch = state;
}"""

SCROLL_UP = """(cells) => {
  const list = document.querySelectorAll(cells)[0].querySelector('.nbc-messages');
  list.scrollTop = Math.max(0, list.scrollTop - 400);
  const box = list.getBoundingClientRect();
  const anchor = [...list.querySelectorAll('.nbc-message')].find((m) => m.getBoundingClientRect().top >= box.top);
  const state = window.__paintWatch;
  state.anchor = anchor;
  state.top = anchor.getBoundingClientRect().top;
  return { drawn: list.querySelectorAll('.nbc-message').length, id: anchor.dataset.messageId };
}"""


def drawn_ids(lab: Lab) -> list[str]:
    ids: list[str] = lab.page.evaluate(
        "(cells) => [...document.querySelectorAll(cells)[0].querySelectorAll('.nbc-message')]"
        ".map((m) => m.dataset.messageId)", CELLS)
    return ids


def open_long_chat(lab: Lab) -> None:
    lab.open_notebook("long.ipynb", [LONG_CHAT])
    lab.page.evaluate(WATCH, CELLS)
    lab.start_cell(0)
    lab.cell(0).locator(f'.nbc-message[data-message-id="a{TOTAL // 2 - 1}"] .nbc-content strong').wait_for()


def test_a_long_conversation_draws_its_latest_messages_first_and_the_rest_above_them_in_slices(lab: Lab) -> None:
    open_long_chat(lab)
    latest = lab.cell(0).locator(f'.nbc-message[data-message-id="a{TOTAL // 2 - 1}"]')
    assert latest.is_visible()
    lab.page.wait_for_function(f"() => window.__paintWatch.counts.at(-1) === {TOTAL}", timeout=120_000)
    counts: list[int] = lab.page.evaluate("() => window.__paintWatch.counts")
    assert counts[0] < TOTAL // 10  # the first paint held only the latest messages
    assert len(counts) > 3  # the rest came in several slices
    assert counts == sorted(counts)
    assert drawn_ids(lab) == [f"{role}{n}" for n in range(TOTAL // 2) for role in ("u", "a")]
    assert latest.is_visible()  # still at the bottom once everything is drawn


def test_scrolling_up_while_older_messages_arrive_keeps_the_read_message_in_place(lab: Lab) -> None:
    open_long_chat(lab)
    scrolled: dict[str, Any] = lab.page.evaluate(SCROLL_UP, CELLS)
    assert scrolled["drawn"] < TOTAL  # older messages are still being drawn above
    lab.page.wait_for_function(f"() => window.__paintWatch.counts.at(-1) === {TOTAL}", timeout=120_000)
    lab.page.wait_for_timeout(500)  # the last slice's markdown renders
    moved: float = lab.page.evaluate("() => window.__paintWatch.moved")
    # scrollHeight is whole pixels, so each slice's compensation may be off by a fraction of a pixel (measured 1.3-2.5
    # px over ~20 slices); a jump is a line or more (without the compensation: thousands of pixels)
    assert moved < 4, f"message {scrolled['id']} moved {moved}px while older messages were drawn above it"
    assert lab.cell(0).locator(".nbc-button-jump-latest").is_visible()


# Scrolls from the latest message up to the first one, a step at a time, as a reader does; at each step the message
# at the top of the view must stay where the step put it once the messages that came into view are drawn (messages
# out of view are not laid out until they are near it, so their height is only known then).
SCROLL_TO_THE_FIRST = """async (cells) => {
  const list = document.querySelectorAll(cells)[0].querySelector('.nbc-messages');
  const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  let moved = 0, steps = 0, worst = null;
  while (list.scrollTop > 0 && steps < 2000) {
    list.scrollTop = Math.max(0, list.scrollTop - 250);
    steps += 1;
    const top = list.getBoundingClientRect().top;
    const anchor = [...list.querySelectorAll('.nbc-message')].find((m) => m.getBoundingClientRect().top >= top);
    const before = anchor.getBoundingClientRect().top;
    await frames();
    const shift = Math.abs(anchor.getBoundingClientRect().top - before);
    if (shift > moved) { moved = shift; worst = anchor.dataset.messageId; }
  }
  const first = list.querySelector('.nbc-message');
  return { moved, steps, worst, scrollTop: list.scrollTop, first: first.dataset.messageId };
}"""


def test_scrolling_up_to_the_first_message_reveals_older_messages_without_a_jump(lab: Lab) -> None:
    open_long_chat(lab)
    lab.page.wait_for_function(f"() => window.__paintWatch.counts.at(-1) === {TOTAL}", timeout=120_000)
    lab.page.wait_for_timeout(500)  # the last slice's markdown renders
    scrolled: dict[str, Any] = lab.page.evaluate(SCROLL_TO_THE_FIRST, CELLS)
    assert scrolled["steps"] > 20  # a long way up
    assert scrolled["scrollTop"] == 0
    assert scrolled["first"] == "u0"
    assert scrolled["moved"] < 4, f"message {scrolled['worst']} moved {scrolled['moved']}px as it came into view"


def test_the_first_message_is_drawn_complete_when_scrolled_to(lab: Lab) -> None:
    open_long_chat(lab)
    lab.page.wait_for_function(f"() => window.__paintWatch.counts.at(-1) === {TOTAL}", timeout=120_000)
    first = lab.cell(0).locator('.nbc-message[data-message-id="a0"]')
    first.scroll_into_view_if_needed()
    expect(first.locator(".nbc-content strong")).to_have_text("answer 0")  # drawn in the frame after the scroll
    expect(first.locator(".nbc-content li")).to_have_text(["a point", "another point"])
    expect(first.locator(".nbc-code pre")).to_contain_text("x = 0")
    expect(first.locator(".nbc-code .nbc-code-bar button").first).to_be_visible()  # the code block's toolbar
    expect(first).to_be_in_viewport()
