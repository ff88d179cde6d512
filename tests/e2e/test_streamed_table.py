"""A long table streams row by row (js/widget/src/streaming_markdown.js): while it is open, each finished row is drawn
once into the table and only its last row is drawn again, and when it ends the table drawn stays; rows a fast reply
brings by the hundred above a reader who follows it are laid out later (unlaid_blocks.js), its last rows at once; and
it ends drawn exactly as the reply drawn in one go — in a real JupyterLab."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import IDLE_TIME_BACK, ChatPage, open_chat
from tests.e2e.lab import Lab
from tests.e2e.test_streamed_list import (
    ITEMS_VIEW,
    check_newest_shown_first_and_the_rest_laid_out_later,
    drawn_in_one_go,
    held_fast_reply,
    streamed,
    watched_while_open,
)

pytestmark = pytest.mark.browser

ROWS = 400
TABLE = "| step | name | value | note |\n|---:|---|---:|---|\n" + "".join(
    f"| {n} | name {n} with `code` | {n * 7} | a **note** on [row {n}](https://example.com/{n}) |\n"
    for n in range(1, ROWS)
)
LAST_ROW = f"| {ROWS} | Paragraph 1: the reply holds here. | 0 | last |"
SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({reply!r}, chunks=1500, delay=0.004), key="table")
chat
"""
SECOND_VIEW = "chat"
TABLE_ROWS = ".nbc-content tbody > tr"


def test_a_long_table_is_drawn_row_by_row_as_it_streams_stays_when_it_ends_and_equals_one_render(lab: Lab) -> None:
    chat = open_chat(lab, "table.ipynb", [SETUP.format(reply=f"Results:\n\n{TABLE}\nThat is all."), SECOND_VIEW])
    state = watched_while_open(lab, chat, "table:last-child > tbody", 2_000, "Tabulate the steps")
    assert state["kept"] > 10, state  # frames that added rows to the open table
    assert state["redrawn"] == 0, state  # none drew it anew
    html = streamed(chat)
    body = chat.messages("assistant").last.locator(".nbc-content > table > tbody")
    assert body.evaluate("el => el === window.__blockDrawn")  # the table drawn while open stayed when it ended
    assert html == drawn_in_one_go(lab)
    assert body.locator("> tr").count() == ROWS - 1


def held_with_rows_unlaid(lab: Lab) -> ChatPage:
    """A fast reply whose table came in two deltas of about 200 rows, holding (still streaming) on its last row, the
    page having no idle time: the rows above the reader's view are not laid out yet."""
    return held_fast_reply(lab, "Results:\n\n" + TABLE + LAST_ROW, "held-table", "Tabulate the steps")


def test_rows_a_fast_reply_brings_by_the_hundred_show_the_newest_first_and_lay_out_the_rest_later(lab: Lab) -> None:
    chat = held_with_rows_unlaid(lab)
    check_newest_shown_first_and_the_rest_laid_out_later(lab, chat, TABLE_ROWS, ROWS)


def test_a_reader_who_scrolls_up_a_fast_table_finds_every_row_laid_out(lab: Lab) -> None:
    chat = held_with_rows_unlaid(lab)
    assert chat.root.locator(".nbc-messages").evaluate(ITEMS_VIEW, TABLE_ROWS)["unlaid"] > 100
    chat.messages("assistant").last.get_by_text("Paragraph 1: the reply holds here.").hover()
    lab.page.mouse.wheel(0, -3_000)
    messages = chat.root.locator(".nbc-messages")
    messages.evaluate("""list => new Promise((done) => {  // the same offset over two frames 100 ms apart
        let top = list.scrollTop;
        const look = () => list.scrollTop === top ? done(true) : (top = list.scrollTop, setTimeout(look, 100));
        setTimeout(look, 100); })""")
    view = messages.evaluate(ITEMS_VIEW, TABLE_ROWS)
    assert view["unlaid"] == 0, view
    assert view["boxless"] == 0, view
    assert 2_000 <= view["fromEnd"] <= 4_000, view  # 3,000 px above the end, among rows laid out before the scroll
    lab.page.evaluate(IDLE_TIME_BACK)
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")
