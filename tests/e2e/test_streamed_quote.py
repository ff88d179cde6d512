"""A long quote streams block by block (js/widget/src/streaming_markdown.js): while it is open, each finished block is
drawn once into the quote and only its last block is drawn again each frame, and it ends drawn exactly as the reply
drawn in one go; blocks a fast reply brings by the hundred above a reader who follows it are laid out later
(unlaid_blocks.js), its newest at once — in a real JupyterLab."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import open_chat
from tests.e2e.lab import Lab
from tests.e2e.test_streamed_list import (
    FAST_ITEMS,
    SECOND_VIEW,
    SETUP,
    check_newest_shown_first_and_the_rest_laid_out_later,
    drawn_in_one_go,
    held_fast_reply,
    streamed,
    watched_while_open,
)

pytestmark = pytest.mark.browser

QUOTE = "".join(
    f"> Quoted line {n} on **column {n}** with `frame.assign(v={n})`, see [the guide](https://example.com/{n}).\n>\n"
    + (f"> ```python\n> def step_{n}(x):\n>     return x * {n}\n> ```\n>\n" if n % 10 == 0 else "")
    for n in range(1, 101)
)
QUOTED_BLOCKS = ".nbc-content > blockquote > *"


def test_a_long_quote_is_drawn_block_by_block_as_it_streams_stays_when_it_ends_and_equals_one_render(lab: Lab) -> None:
    setup = SETUP.format(reply=f"The notes say:\n\n{QUOTE}\nThat is all.", chunks=1500, key="notes")
    chat = open_chat(lab, "notes.ipynb", [setup, SECOND_VIEW])
    state = watched_while_open(lab, chat, "blockquote:last-child", 3_000, "Quote the notes")
    assert state["kept"] > 10, state  # frames that added blocks to the open quote
    assert state["redrawn"] == 0, state  # none drew it anew
    html = streamed(chat)
    assert html == drawn_in_one_go(lab)
    ended = chat.messages("assistant").last.locator(".nbc-content > blockquote")
    assert ended.evaluate("el => el === window.__blockDrawn")  # the quote drawn while open stayed when it ended
    assert chat.messages("assistant").last.locator(".nbc-content > blockquote > p").count() == 100
    assert ended.locator(".nbc-code [data-action=copy-code]").count() == 10  # quoted code has its toolbar


def test_quoted_blocks_a_fast_reply_brings_by_the_hundred_show_the_newest_first_and_lay_out_the_rest_later(
    lab: Lab,
) -> None:
    lines = "".join(f"> line {n} with **bold**, `code {n}` and a [link](https://example.com/{n})\n>\n"
                    for n in range(1, FAST_ITEMS))
    reply = f"Notes:\n\n{lines}> Paragraph 1: the reply holds here.\n"
    chat = held_fast_reply(lab, reply, "fast-quote", "Quote the notes")
    check_newest_shown_first_and_the_rest_laid_out_later(lab, chat, QUOTED_BLOCKS, FAST_ITEMS)
