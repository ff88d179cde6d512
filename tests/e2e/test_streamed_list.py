"""A long list streams item by item (js/widget/src/streaming_markdown.js): while it is open, each finished item is
drawn once into the list and only its last item is drawn again each frame, and it ends drawn exactly as the reply
drawn in one go; items a fast reply brings by the hundred above a reader who follows it are laid out later
(unlaid_blocks.js), the newest that fill a view at once (tall items fill it with fewer), an ordered list's each showing
its own number; a loose ordered list whose next marker arrives after a blank line stays one list — in a real
JupyterLab."""

from __future__ import annotations

import math

import pytest

from tests.e2e.chat_page import DRAWN_HTML, GATED, IDLE_TIME_BACK, NO_IDLE_TIME, ChatPage, open_chat
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

ITEMS = "".join(
    f"- step {n} scales **column {n}** with `frame.assign(v={n})`, see [the guide](https://example.com/{n})\n"
    + (f"  ```python\n  def step_{n}(x):\n      return x * {n}\n  ```\n" if n % 10 == 0 else "")
    for n in range(1, 121)
)
LOOSE = "".join(f"{n}. **Step {n}**\n\n{' ' * len(f'{n}. ')}Scale column {n}.\n\n" for n in range(1, 13))
SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({reply!r}, chunks={chunks}, delay=0.004), key={key!r})
chat
"""
SECOND_VIEW = "chat"
FAST_ITEMS = 400
HELD_SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

provider = Gated(ScriptedProvider().text({reply!r}, chunks=2), 0)
chat = Chat(provider, key={key!r})
chat
"""


# The list's distance from its end, how many of the last reply's items (`selector` in it: a list's items, a table's
# rows) there are, put in without their layout and with no box at all, and whether its last item and the 20 just above
# it are laid out and in the list's box.
ITEMS_VIEW = """(list, selector) => {
  const reply = [...list.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
  const items = [...reply.querySelectorAll(selector)];
  const box = list.getBoundingClientRect();
  const last = items[items.length - 1].getBoundingClientRect();
  return { fromEnd: list.scrollHeight - list.scrollTop - list.clientHeight,
           items: items.length,
           unlaid: items.filter((item) => item.classList.contains('nbc-unlaid')).length,
           boxless: items.filter((item) => item.getClientRects().length === 0).length,
           lastInView: last.height > 0 && last.top >= box.top && last.bottom <= box.bottom + 1,
           newestLaidOut: items.slice(-20).every((item) => item.getClientRects().length > 0) };
}"""
LIST_ITEMS = ".nbc-content > ul > li, .nbc-content > ol > li"

# Per frame while the reply streams: once its open block (`selector` in its content: a list, a table's body, a
# paragraph) holds more than `size` characters, whether it is still the same element with the same first node (what
# arrived was drawn once) or was drawn anew. The block drawn while open is window.__blockDrawn.
WATCH = """([root, selector, size]) => {
  const state = window.__block = { kept: 0, redrawn: 0, done: false };
  let drawn = null;
  const tick = () => {
    const reply = [...root.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
    if (reply?.dataset.loading === 'false' && state.kept + state.redrawn > 0) { state.done = true; return; }
    const block = reply?.querySelector(`.nbc-content > ${selector}`);
    if (reply?.dataset.loading === 'true' && block && block.textContent.length > size) {
      window.__blockDrawn = block;
      const first = block.firstChild;
      const length = block.textContent.length;
      if (drawn && (drawn.block !== block || drawn.first !== first)) state.redrawn += 1;
      else if (drawn && length > drawn.length) state.kept += 1;
      drawn = { block, first, length };
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


# Counts the times the widget reads the layout of a streaming reply's content (offsetHeight: it times a redraw of the
# open tail with the layout it causes) while the content's last block (`selector`) holds more than `size` characters;
# window.__layoutReads.restore() puts the page's own offsetHeight back.
COUNT_LAYOUT_READS = """([selector, size]) => {
  const native = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'offsetHeight');
  const state = window.__layoutReads = {
    count: 0, restore: () => Object.defineProperty(HTMLElement.prototype, 'offsetHeight', native),
  };
  Object.defineProperty(HTMLElement.prototype, 'offsetHeight', {
    configurable: true,
    get() {
      const open = this.classList.contains('nbc-content') && this.closest('[data-loading=true]')
        && this.lastElementChild?.matches(selector) && this.lastElementChild.textContent.length > size;
      if (open) state.count += 1;
      return native.get.call(this);
    },
  });
}"""


def layout_reads_while_open(lab: Lab, chat: ChatPage, selector: str, size: int, prompt: str) -> int:
    """Send `prompt`; once the reply ended, how often the widget read its layout while its open block (`selector`)
    held more than `size` characters (COUNT_LAYOUT_READS)."""
    lab.page.evaluate(COUNT_LAYOUT_READS, [selector, size])
    chat.send(prompt)
    chat.messages("assistant").last.locator("xpath=self::*[@data-loading='false'][@data-drawn='true']").wait_for(
        timeout=60_000)
    count: int = lab.page.evaluate("() => (window.__layoutReads.restore(), window.__layoutReads.count)")
    return count


def watched_while_open(lab: Lab, chat: ChatPage, selector: str, size: int, prompt: str) -> dict[str, int]:
    """Send `prompt` and watch the reply's open block per frame until the reply ends (WATCH): frames that added to the
    block drawn (kept) and frames that drew it anew (redrawn)."""
    lab.page.evaluate(WATCH, [chat.root.element_handle(), selector, size])
    chat.send(prompt)
    lab.page.wait_for_function("() => window.__block.done", timeout=60_000)
    state: dict[str, int] = lab.page.evaluate("() => window.__block")
    return state


def drawn_in_one_go(lab: Lab, reply_selector: str = ".nbc-message[data-role=assistant]") -> str:
    """The innerHTML of the latest reply as a second view of the chat draws it from the kernel (not streaming)."""
    lab.run_cell(1)
    views = lab.output(1).locator(".nbc-root")
    views.locator(f"{reply_selector}[data-drawn=true]").last.wait_for(timeout=30_000)
    html: str = views.locator(reply_selector).last.locator(".nbc-content").evaluate(DRAWN_HTML)
    return html


def streamed(chat: ChatPage) -> str:
    reply = chat.messages("assistant").last
    reply.locator("xpath=self::*[@data-loading='false'][@data-drawn='true']").wait_for(timeout=60_000)
    html: str = reply.locator(".nbc-content").evaluate(DRAWN_HTML)
    return html


def test_a_long_list_is_drawn_item_by_item_as_it_streams_stays_when_it_ends_and_equals_one_render(lab: Lab) -> None:
    setup = SETUP.format(reply=f"Here are the steps:\n\n{ITEMS}\nThat is all.", chunks=1500, key="steps")
    chat = open_chat(lab, "steps.ipynb", [setup, SECOND_VIEW])
    state = watched_while_open(lab, chat, "ul:last-child", 3_000, "List the steps")
    assert state["kept"] > 10, state  # frames that added items to the open list
    assert state["redrawn"] == 0, state  # none drew it anew
    html = streamed(chat)
    assert html == drawn_in_one_go(lab)
    ended = chat.messages("assistant").last.locator(".nbc-content > ul")
    assert ended.evaluate("el => el === window.__blockDrawn")  # the list drawn while open stayed when it ended
    items = chat.messages("assistant").last.locator(".nbc-content > ul > li")
    assert items.count() == 120
    assert items.locator(".nbc-code [data-action=copy-code]").count() == 12  # code in items has its toolbar


def test_a_long_list_streaming_item_by_item_leaves_its_new_items_layout_to_the_frame_not_to_its_redraw_cost(
    lab: Lab,
) -> None:
    # its new items are laid out once: timing its redraws by their layout held a fast reply's list back between frames
    setup = SETUP.format(reply=f"Here are the steps:\n\n{ITEMS}", chunks=1500, key="paced")
    chat = open_chat(lab, "paced.ipynb", [setup, SECOND_VIEW])
    assert layout_reads_while_open(lab, chat, "ul", 3_000, "List the steps") == 0


def test_a_loose_ordered_list_streamed_a_few_characters_at_a_time_stays_one_list(lab: Lab) -> None:
    setup = SETUP.format(reply=f"Plan:\n\n{LOOSE}Done.", chunks=len(LOOSE) // 3, key="plan")
    chat = open_chat(lab, "plan.ipynb", [setup, SECOND_VIEW])
    chat.send("Plan it")
    html = streamed(chat)
    reply = chat.messages("assistant").last
    assert reply.locator(".nbc-content > ol").count() == 1  # not one list per item
    assert reply.locator(".nbc-content > ol > li").count() == 12
    assert html == drawn_in_one_go(lab)


def held_fast_reply(lab: Lab, reply: str, key: str, request: str) -> ChatPage:
    """A fast reply (two deltas) holding, still streaming, once "Paragraph 1:" begins (its last line), the page having
    no idle time."""
    chat = open_chat(lab, f"{key}.ipynb", [GATED + HELD_SETUP.format(reply=reply, key=key), SECOND_VIEW])
    lab.page.evaluate(NO_IDLE_TIME)
    chat.send(request)
    held = chat.messages("assistant").last
    held.get_by_text("Paragraph 1: the reply holds here.").wait_for(timeout=30_000)
    assert held.get_attribute("data-loading") == "true"
    return chat


def held_fast_list(lab: Lab, marker: str, key: str) -> ChatPage:
    """A held fast reply whose list of FAST_ITEMS items came in two deltas of about 200. `marker` is "-" or "1."
    (every item numbered 1.: markdown counts them)."""
    items = "".join(f"{marker} item {n} with **bold**, `code {n}` and a [link](https://example.com/{n})\n"
                    for n in range(1, FAST_ITEMS))
    reply = f"Steps:\n\n{items}{marker} Paragraph 1: the reply holds here.\n"
    return held_fast_reply(lab, reply, key, "List the steps")


def check_newest_shown_first_and_the_rest_laid_out_later(lab: Lab, chat: ChatPage, items: str, count: int) -> None:
    """A held fast reply (`items` in it: a list's items, a table's rows; `count` of them): the newest laid out and in
    view, most of the rest without a box until the page has idle time again; then, stopped, all of them laid out,
    the reader still at the end, and the reply drawn as in one go."""
    view = chat.root.locator(".nbc-messages").evaluate(ITEMS_VIEW, items)
    assert view["items"] == count
    assert view["unlaid"] > 100, view  # most items of each delta wait for their layout...
    assert view["boxless"] == view["unlaid"], view  # ...not styled, laid out or painted
    assert view["newestLaidOut"], view  # the reader sees the newest items at once
    assert view["lastInView"], view
    assert view["fromEnd"] <= 24, view
    lab.page.evaluate(IDLE_TIME_BACK)
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")
    html = streamed(chat)  # drawn: every item laid out (in idle time), the reader still at the end
    view = chat.root.locator(".nbc-messages").evaluate(ITEMS_VIEW, items)
    assert view["unlaid"] == 0, view
    assert view["boxless"] == 0, view
    assert view["fromEnd"] <= 24, view
    assert html == drawn_in_one_go(lab)


def test_items_a_fast_reply_brings_by_the_hundred_show_the_newest_first_and_lay_out_the_rest_later(lab: Lab) -> None:
    chat = held_fast_list(lab, "-", "fast-list")
    check_newest_shown_first_and_the_rest_laid_out_later(lab, chat, LIST_ITEMS, FAST_ITEMS)


# The reply's top-level list items: how many there are, how many wait for their layout (and how many have no box),
# and how many of the newest are laid out, up to the first that waits.
TALL_ITEMS_VIEW = """list => {
  const reply = [...list.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
  const items = [...reply.querySelectorAll('.nbc-content > ul > li')];
  let newest = 0;
  while (newest < items.length && !items[items.length - 1 - newest].classList.contains('nbc-unlaid')) newest += 1;
  return { items: items.length, newest,
           unlaid: items.filter((item) => item.classList.contains('nbc-unlaid')).length,
           boxless: items.filter((item) => item.getClientRects().length === 0).length };
}"""
TOPICS = "".join(f"- topic {n} with **bold**\n  - detail {n}.1 with `code`\n  - detail {n}.2\n"
                 f"    1. point {n} with a [link](https://example.com/{n})\n" for n in range(1, FAST_ITEMS))
WRAPPING = "".join(f"- item {n}: " + "the quick brown fox jumps over the lazy dog, " * 12 + "\n"
                   for n in range(1, FAST_ITEMS))


@pytest.mark.parametrize(
    ("items", "rows"),
    [(TOPICS, 4), (WRAPPING, 5)],  # a topic fills four (itself, two details, a point); an item of 550 characters, five
    ids=["holding-lists", "wrapping"],
)
def test_tall_items_a_fast_reply_brings_by_the_hundred_leave_only_the_newest_that_fill_a_views_rows_laid_out(
    lab: Lab, items: str, rows: int,
) -> None:
    # the view's rows are the window's height in rows of 16 px (viewRows); laying out that many tall items in every
    # frame of a fast reply, 4-5 times the rows of a view, held it back
    chat = held_fast_reply(lab, f"Topics:\n\n{items}- Paragraph 1: the reply holds here.\n", "fast-tall", "List them")
    view = chat.root.locator(".nbc-messages").evaluate(TALL_ITEMS_VIEW)
    view_rows = math.ceil(lab.page.evaluate("innerHeight") / 16)
    assert view["items"] == FAST_ITEMS
    assert view["newest"] == math.ceil(view_rows / rows) + 1, view  # and the open last item
    assert view["unlaid"] > 300, view
    assert view["boxless"] == view["unlaid"], view
    lab.page.evaluate(IDLE_TIME_BACK)
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")
    html = streamed(chat)
    view = chat.root.locator(".nbc-messages").evaluate(TALL_ITEMS_VIEW)
    assert view["unlaid"] == 0, view
    assert view["boxless"] == 0, view
    assert html == drawn_in_one_go(lab)


# Whether the newest items laid out, up to the first that waits for its layout, reach above the top of the list's
# view: the reader who follows the reply sees items only, no gap where one waits.
FILLS_VIEW = """list => {
  const reply = [...list.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
  const items = [...reply.querySelectorAll('.nbc-content > ul > li')];
  let first = items.length - 1;
  while (first > 0 && !items[first - 1].classList.contains('nbc-unlaid')) first -= 1;
  return { top: items[first].getBoundingClientRect().top, listTop: list.getBoundingClientRect().top,
           unlaid: items.filter((item) => item.classList.contains('nbc-unlaid')).length };
}"""


def test_on_a_tall_window_the_newest_items_laid_out_of_a_fast_reply_still_fill_the_view(lab: Lab) -> None:
    size = lab.page.viewport_size
    assert size is not None
    lab.page.set_viewport_size({"width": size["width"], "height": 2400})  # the list is 70% of it: 80 lines and more
    try:
        chat = held_fast_list(lab, "-", "fast-tall-window")
        view = chat.root.locator(".nbc-messages").evaluate(FILLS_VIEW)
    finally:
        lab.page.set_viewport_size(size)
    assert view["unlaid"] > 0, view
    assert view["top"] < view["listTop"], view


def shown_numbers(lab: Lab, chat: ChatPage) -> list[str]:
    """The numbers the page shows on the items of the last reply's ordered list, in order: the list markers of
    Chromium's accessibility tree (what it lays out and draws; an item without its layout has none)."""
    listed = chat.messages("assistant").last.locator(".nbc-content > ol")
    listed.evaluate("list => list.setAttribute('data-numbers', '')")
    cdp = lab.page.context.new_cdp_session(lab.page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        found = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "[data-numbers]"})["nodeId"]
        backend = cdp.send("DOM.describeNode", {"nodeId": found})["node"]["backendNodeId"]
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
        listed.evaluate("list => list.removeAttribute('data-numbers')")
    by_id = {node["nodeId"]: node for node in nodes}
    top = next(node for node in nodes if node.get("backendDOMNodeId") == backend)
    numbers = []
    for item_id in top.get("childIds", []):
        item = by_id.get(item_id, {})
        for child_id in item.get("childIds", []):
            child = by_id.get(child_id, {})
            if child.get("role", {}).get("value") == "ListMarker":
                numbers.append(str(child.get("name", {}).get("value", "")).strip())
    return numbers


def test_an_ordered_list_a_fast_reply_brings_by_the_hundred_shows_the_newest_first_each_with_its_own_number(
    lab: Lab,
) -> None:
    # an item without its layout has no number: the first item laid out after such items is given its own
    chat = held_fast_list(lab, "1.", "fast-numbers")
    view = chat.root.locator(".nbc-messages").evaluate(ITEMS_VIEW, LIST_ITEMS)
    assert view["items"] == FAST_ITEMS
    assert view["unlaid"] > 100, view  # most items of each delta wait for their layout
    assert view["boxless"] == view["unlaid"], view
    assert view["newestLaidOut"], view
    assert view["lastInView"], view
    laid_out = chat.messages("assistant").last.locator(".nbc-content > ol > li").evaluate_all(
        "items => items.flatMap((item, at) => item.classList.contains('nbc-unlaid') ? [] : [at + 1])")
    assert shown_numbers(lab, chat) == [f"{number}." for number in laid_out]
    lab.page.evaluate(IDLE_TIME_BACK)
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")
    html = streamed(chat)  # drawn: every item laid out (in idle time), numbered as the list counts them
    assert shown_numbers(lab, chat) == [f"{number}." for number in range(1, FAST_ITEMS + 1)]
    assert html == drawn_in_one_go(lab)
