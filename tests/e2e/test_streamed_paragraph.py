"""A long paragraph streams piece by piece (js/widget/src/streaming_markdown.js): while it is open, the text that
nothing to come can change is drawn once into the paragraph and only its open end is drawn again each frame, and it
ends drawn exactly as the reply drawn in one go; the caret at the end of a streaming reply goes with the frame that
draws the reply's end, restyling only the block it was on — in a real JupyterLab."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.chat_page import ChatPage, open_chat
from tests.e2e.lab import Lab
from tests.e2e.test_streamed_list import (
    SECOND_VIEW,
    SETUP,
    drawn_in_one_go,
    layout_reads_while_open,
    streamed,
    watched_while_open,
)
from tests.e2e.timeline import style_recalculations, timeline_while

pytestmark = pytest.mark.browser

PARAGRAPH = "".join(
    f"Sentence {n} scales **column {n}** with `frame.assign(v={n})`, see [the guide](https://example.com/{n}) "
    f"and $x_{{{n}}}$ in it; the rest of the sentence is plain words about the data.\n"
    for n in range(1, 161)
).rstrip("\n")
REPLY = f"Here is the summary.\n\n{PARAGRAPH}\n\nThat is all."

# At every change of the chat's DOM: whether the latest reply shows its caret (the ▍ after its last block). Notes how
# much text the reply held when the caret stopped showing.
WATCH_CARET = """root => {
  const state = window.__caret = { seen: false, goneAt: null };
  const look = () => {
    const reply = [...root.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
    const content = reply?.querySelector('.nbc-content');
    if (!content || state.goneAt !== null) return;
    const end = content.lastElementChild ?? content;
    const caret = getComputedStyle(end, '::after').content.includes('\u258d');
    if (caret) state.seen = true;
    else if (state.seen) state.goneAt = content.textContent.length;
  };
  new MutationObserver(look).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
}"""


def restyles_while(lab: Lab, action: Any) -> list[int]:
    """The elements the page restyled in each style recalculation (the browser's own timeline) while `action` runs."""
    return [event["args"]["elementCount"] for event in style_recalculations(timeline_while(lab, action))]


def start(lab: Lab, name: str) -> ChatPage:
    return open_chat(lab, name, [SETUP.format(reply=REPLY, chunks=1500, key="summary"), SECOND_VIEW])


def test_a_long_paragraph_is_drawn_piece_by_piece_as_it_streams_stays_when_it_ends_and_equals_one_render(
    lab: Lab,
) -> None:
    chat = start(lab, "summary.ipynb")
    state = watched_while_open(lab, chat, "p:last-child", 4_000, "Summarise")
    assert state["kept"] > 5, state  # frames that added text to the open paragraph
    assert state["redrawn"] == 0, state  # none drew it anew
    html = streamed(chat)
    assert html == drawn_in_one_go(lab)
    ended = chat.messages("assistant").last.locator(".nbc-content > p").nth(1)
    assert ended.evaluate("el => el === window.__blockDrawn")  # the paragraph drawn while open stayed
    assert ended.locator("strong").count() == 160
    assert ended.locator("math").count() == 160


def test_a_long_paragraph_streaming_piece_by_piece_times_its_redraws_with_its_layout_done_again_whole(lab: Lab) -> None:
    # its lines are laid out again whole at each redraw: the work the redraws are held back by
    chat = open_chat(lab, "timed.ipynb", [SETUP.format(reply=PARAGRAPH, chunks=1500, key="timed"), SECOND_VIEW])
    assert layout_reads_while_open(lab, chat, "p", 4_000, "Summarise") > 5


def test_the_caret_of_a_streaming_reply_goes_with_the_frame_that_draws_its_end(lab: Lab) -> None:
    chat = start(lab, "caret.ipynb")
    lab.page.evaluate(WATCH_CARET, chat.root.element_handle())
    chat.send("Summarise")
    streamed(chat)
    state = lab.page.evaluate("() => window.__caret")
    assert state["seen"], state  # the caret showed while the reply streamed
    final = chat.messages("assistant").last.locator(".nbc-content").evaluate("el => el.textContent.length")
    assert state["goneAt"] == final, state  # it went when the whole reply was drawn, not before


def test_the_caret_going_at_the_end_of_a_long_reply_restyles_its_last_block_not_the_whole_reply(lab: Lab) -> None:
    chat = start(lab, "caret-restyle.ipynb")
    chat.send("Summarise")
    reply = chat.messages("assistant").last
    reply.locator("xpath=self::*[@data-loading='true']").wait_for(timeout=30_000)

    def to_the_end() -> None:
        streamed(chat)
        lab.page.wait_for_function("() => new Promise((done) => requestAnimationFrame(() => "
                                   "requestAnimationFrame(() => done(true))))")

    counts = restyles_while(lab, to_the_end)
    elements = reply.locator(".nbc-content").evaluate("el => el.querySelectorAll('*').length")
    assert elements > 1_000
    assert counts, "no style recalculation traced"
    # a restyle of the whole reply (every element of it) was what taking the caret away cost: 20-26 ms at 80 KB
    assert max(counts) < elements // 4, (max(counts), elements)
