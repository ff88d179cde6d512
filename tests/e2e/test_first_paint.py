"""A long conversation paints without a freeze, in a real JupyterLab + Chromium: its latest messages are drawn first, at
the bottom and in view; older ones are drawn only when the reader scrolls up to them (mouse wheel, keyboard), in order,
and the message the reader looks at stays where it is while they are drawn above it. A pending approval restored after
Restart Kernel in such a conversation still runs its tool. Timings are benchmarks/first_paint.py's."""

from __future__ import annotations

import base64
import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.cells import record_tool_chat
from tests.e2e.chat_page import IDLE_TIME_BACK, NO_IDLE_TIME, ChatPage
from tests.e2e.lab import CELLS, Lab
from tests.e2e.test_streamed_list import ITEMS_VIEW, shown_numbers

pytestmark = pytest.mark.browser

TOTAL = 600
KEY = "long"
IDS = [f"{role}{n}" for n in range(TOTAL // 2) for role in ("u", "a")]


def long_conversation(total: int = TOTAL) -> dict[str, Any]:
    """Notebook metadata holding a conversation of `total` messages under KEY (as benchmarks/first_paint.py seeds
    it)."""
    messages: list[dict[str, Any]] = []
    for n in range(total // 2):
        messages += [
            {"id": f"u{n}", "role": "user", "content": f"question {n}"},
            {"id": f"a{n}", "role": "assistant",
             "content": f"**answer {n}**\n\n- a point\n- another point\n\n```python\nx = {n}\n```"},
        ]
    record = {"version": 1, "messages": messages, "turns": [], "paused_turn": None,
              "updated_at": "2026-01-01T00:00:00Z"}
    entry = {"active": "main", "items": {"main": record}}
    return {"notebook_chat": {"version": 2, "conversations": {KEY: entry}}}


CHAT = record_tool_chat(KEY)

LIST = f"{CELLS} .nbc-root:not([data-dead=true]) .nbc-messages"

# Resolves once the page had two idle periods in a row after the frames that follow (nothing left to draw on its own).
SETTLED = """() => new Promise((done) => {
  const idle = (n) => requestIdleCallback(() => (n ? requestAnimationFrame(() => idle(n - 1)) : done(true)));
  idle(2);
})"""

NOTCH = 300

# Resolves once the list's scroll position, height and undrawn count stayed the same for three frames in a row.
SETTLED_SCROLL = """(sel) => new Promise((done) => {
  const list = document.querySelector(sel);
  let last = null, still = 0;
  const tick = () => {
    const now = `${list.scrollTop}|${list.scrollHeight}|${list.dataset.older}`;
    still = now === last ? still + 1 : 0;
    last = now;
    if (still >= 3) done(); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})"""
# The message at the pointer's height (a user message may be narrower than the list: its row counts), or the next one.
UNDER_POINTER = """([sel, x, y]) => {
  const m = [...document.querySelector(sel).querySelectorAll('.nbc-message')]
    .find((el) => el.getBoundingClientRect().bottom > y);
  return { id: m.dataset.messageId, top: m.getBoundingClientRect().top };
}"""
TOP_OF = """([sel, id]) =>
  document.querySelector(sel).querySelector(`[data-message-id="${id}"]`).getBoundingClientRect().top"""


def drawn_ids(lab: Lab) -> list[str]:
    ids: list[str] = lab.page.evaluate(
        "(sel) => [...document.querySelector(sel).querySelectorAll('.nbc-message')].map((m) => m.dataset.messageId)",
        LIST)
    return ids


def open_long_chat(lab: Lab) -> ChatPage:
    lab.open_notebook("long.ipynb", [CHAT], metadata=long_conversation())
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.root.locator(f'.nbc-message[data-message-id="a{TOTAL // 2 - 1}"] .nbc-content strong').wait_for()
    lab.page.locator(LIST).scroll_into_view_if_needed()  # the notebook scrolls the chat's list into the page's view
    lab.page.evaluate(SETTLED)
    return chat


def in_list_view(lab: Lab, message_id: str, inner: str = "") -> bool:
    """The message (or `inner`, a selector inside it) is drawn and inside the list's box (what the list shows)."""
    inside: bool = lab.page.evaluate(
        """([sel, id, inner]) => { const l = document.querySelector(sel);
           const m = l.querySelector(`[data-message-id="${id}"] ${inner}`);
           if (!m) return false;
           const box = l.getBoundingClientRect(), r = m.getBoundingClientRect();
           return r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.height > 0 }""", [LIST, message_id, inner])
    return inside


def test_a_long_conversation_draws_only_its_latest_messages_at_the_bottom_in_view(lab: Lab) -> None:
    chat = open_long_chat(lab)
    latest = chat.root.locator(f'.nbc-message[data-message-id="a{TOTAL // 2 - 1}"]')
    expect(latest).to_be_in_viewport()
    assert in_list_view(lab, f"a{TOTAL // 2 - 1}")
    at_bottom: bool = lab.page.evaluate(
        "(sel) => { const l = document.querySelector(sel); return l.scrollHeight - l.scrollTop - l.clientHeight < 2 }",
        LIST)
    assert at_bottom
    drawn = drawn_ids(lab)
    assert drawn == IDS[-len(drawn):]  # the latest ones, in order
    assert len(drawn) < TOTAL // 10  # nobody scrolled: the older ones cost nothing
    assert chat.root.locator(".nbc-messages").get_attribute("data-older") == str(TOTAL - len(drawn))


def test_the_first_view_the_kernel_sends_of_a_long_conversation_holds_only_its_latest_messages(lab: Lab) -> None:
    lab.open_notebook("long-window.ipynb", [CHAT], metadata=long_conversation())
    cdp = lab.page.context.new_cdp_session(lab.page)
    cdp.send("Network.enable")
    frames: list[bytes] = []
    cdp.on("Network.webSocketFrameReceived", lambda event: frames.append(
        base64.b64decode(event["response"]["payloadData"]) if event["response"]["opcode"] == 2
        else event["response"]["payloadData"].encode()))
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.root.locator(f'.nbc-message[data-message-id="a{TOTAL // 2 - 1}"] .nbc-content strong').wait_for()
    cdp.detach()

    snapshots = [frame for frame in frames if b'"kind": "snapshot"' in frame]
    assert len(snapshots) == 1
    ids = re.findall(rb'"id": "([ua][0-9]+)"', snapshots[0])
    assert ids[-1] == IDS[-1].encode()  # the latest message, then as far back as its window reaches
    assert 0 < len(ids) < TOTAL // 10  # not the conversation: the kernel holds the older ones until asked


def test_a_long_stored_conversation_reaches_the_kernel_compressed_and_whole(lab: Lab) -> None:
    metadata = long_conversation(3000)
    stored = len(json.dumps(metadata["notebook_chat"]["conversations"][KEY]))
    lab.open_notebook("long-packed.ipynb", [CHAT, "print('KERNEL HOLDS', len(chat.messages))"], metadata=metadata)
    cdp = lab.page.context.new_cdp_session(lab.page)
    cdp.send("Network.enable")
    sent: list[int] = []
    cdp.on("Network.webSocketFrameSent", lambda event: sent.append(len(event["response"]["payloadData"])))
    lab.run_cell(0)
    ChatPage(lab).root.locator('.nbc-message[data-message-id="a1499"] .nbc-content strong').wait_for()
    cdp.detach()
    lab.run_cell(1)

    assert lab.wait_for_output(1, "KERNEL HOLDS").strip() == "KERNEL HOLDS 3000"
    assert stored > 200_000
    assert max(sent) < stored // 4  # the ready message: the record went packed, not as its JSON


def tool_rounds(total: int) -> dict[str, Any]:
    """Notebook metadata holding `total` messages under KEY in rounds of six: a question, a reply calling three tools,
    their ~8 KB results and an answer (about 13 MB of JSON for 3,000)."""
    result = "row,value\n" + "".join(f"{n},{n * 7}\n" for n in range(900))
    messages: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for n in range(total // 6):
        turn, calls = f"turn_{n}", [f"call_{n}_{k}" for k in range(3)]
        messages += [
            {"id": f"u{n}", "role": "user", "content": f"question {n}"},
            {"id": f"c{n}", "role": "assistant", "content": None,
             "tool_calls": [{"id": call, "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
                            for call in calls],
             "state": {"turn_id": turn, "tool_calls": {call: {"status": "success"} for call in calls}}},
            *({"id": f"t_{call}", "role": "tool", "tool_call_id": call, "content": result,
               "metadata": {"tool_name": "lookup"}} for call in calls),
            {"id": f"a{n}", "role": "assistant", "content": f"**answer {n}**", "state": {"turn_id": turn}},
        ]
        turns.append({"id": turn, "started_at": "2026-01-01T00:00:00.000Z", "ended_at": "2026-01-01T00:00:01.000Z",
                      "end_reason": "completed", "detail": None})
    record = {"version": 1, "messages": messages, "turns": turns, "paused_turn": None,
              "updated_at": "2026-01-01T00:00:02Z"}
    return {"notebook_chat": {"version": 2, "conversations": {KEY: {"active": "main", "items": {"main": record}}}}}


# The longest main-thread task from now on (the longtask observer: tasks over 50 ms).
LONGEST_TASK = """() => {
  window.__longest = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
  }).observe({ type: 'longtask' });
}"""


def test_megabytes_of_stored_tool_results_reach_the_kernel_whole_without_freezing_the_page(lab: Lab) -> None:
    metadata = tool_rounds(3000)
    stored = len(json.dumps(metadata["notebook_chat"]["conversations"][KEY]))
    lab.open_notebook("tool-rounds.ipynb", [CHAT, "print('KERNEL HOLDS', len(chat.messages))"], metadata=metadata)
    lab.page.evaluate(LONGEST_TASK)
    lab.run_cell(0)
    ChatPage(lab).root.locator('.nbc-message[data-message-id="a499"] .nbc-content strong').wait_for()
    lab.run_cell(1)

    assert lab.wait_for_output(1, "KERNEL HOLDS").strip() == "KERNEL HOLDS 3000"
    assert stored > 12_000_000
    # its JSON is made a slice per task (record_pack.js): stringified in one go it was a task of 0.11-0.14 s
    assert lab.page.evaluate("() => window.__longest") < 100


def test_the_mouse_wheel_reveals_every_older_message_in_order_not_moving_the_one_under_the_pointer(lab: Lab) -> None:
    open_long_chat(lab)
    box = lab.page.locator(LIST).bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + 60  # near the top: a notch up moves its message down, still in view
    lab.page.mouse.move(x, y)
    counts, moves = [len(drawn_ids(lab))], []
    for _ in range(30):
        under: dict[str, Any] = lab.page.evaluate(UNDER_POINTER, [LIST, x, y])
        lab.page.mouse.wheel(0, -NOTCH)
        lab.page.evaluate(SETTLED_SCROLL, LIST)
        top: float = lab.page.evaluate(TOP_OF, [LIST, under["id"]])
        moves.append((under["id"], top - under["top"]))
        counts.append(len(drawn_ids(lab)))
    # each notch moves the message under the pointer down by the notch, whatever was drawn above it meanwhile (without
    # keeping it in place: by the height of every message drawn above); the browser rounds each scroll offset it is
    # given, so each slice's compensation may be off by a fraction of a pixel (measured up to 2.4 px over a step)
    assert [(m, moved) for m, moved in moves if abs(moved - NOTCH) >= 4] == [], moves
    assert counts == sorted(counts)
    assert counts[-1] > counts[0] + 20  # older messages were drawn as the reader came near them
    assert drawn_ids(lab) == IDS[-counts[-1]:]  # above the first paint's, in order
    deadline = time.monotonic() + 120
    while not in_list_view(lab, "u0"):
        assert time.monotonic() < deadline, f"still {drawn_ids(lab)[0]} at the top after 120 s of scrolling"
        lab.page.mouse.wheel(0, -3000)
        lab.page.evaluate(SETTLED_SCROLL, LIST)
    assert drawn_ids(lab) == IDS  # every message, once, in order


def test_paging_up_with_the_keyboard_reveals_older_messages_in_order_without_moving_the_one_in_view(lab: Lab) -> None:
    open_long_chat(lab)
    box = lab.page.locator(LIST).bounding_box()
    assert box is not None
    y = box["y"] + 60
    lab.page.locator(LIST).focus()
    before, moves = drawn_ids(lab), []
    for _ in range(25):
        under: dict[str, Any] = lab.page.evaluate(UNDER_POINTER, [LIST, 0, y])
        lab.page.keyboard.press("PageUp")
        lab.page.evaluate(SETTLED_SCROLL, LIST)
        top: float = lab.page.evaluate(TOP_OF, [LIST, under["id"]])
        moves.append(top - under["top"])
    after = drawn_ids(lab)
    assert len(after) > len(before) + 20
    assert after == IDS[-len(after):]  # the older ones went in above, in order
    # every press pages up by as much (most of a list height), whatever was drawn above the view meanwhile
    assert min(moves) > 100
    assert max(moves) - min(moves) < 4, moves


def test_an_older_message_is_drawn_complete_when_scrolled_to(lab: Lab) -> None:
    chat = open_long_chat(lab)
    lab.page.locator(LIST).focus()
    target = chat.root.locator('.nbc-message[data-message-id="a250"]')
    for _ in range(200):
        if target.count():
            break
        lab.page.keyboard.press("PageUp")
    target.scroll_into_view_if_needed()
    lab.page.evaluate(SETTLED_SCROLL, LIST)
    expect(target.locator(".nbc-content strong")).to_have_text("answer 250")
    expect(target.locator(".nbc-content li")).to_have_text(["a point", "another point"])
    expect(target.locator(".nbc-code pre")).to_contain_text("x = 250")
    expect(target.locator(".nbc-code .nbc-code-bar button").first).to_be_visible()  # the code block's toolbar
    assert in_list_view(lab, "a250", ".nbc-code")


def test_approve_on_a_pending_approval_restored_after_restart_in_a_long_conversation_runs_the_tool_once(
    lab: Lab,
) -> None:
    chat = open_long_chat(lab)
    runs = lab.server.root / lab.folder / "runs.txt"
    chat.send("Please record_run for Alpha")
    call_id = chat.wait_pending_card().get_attribute("data-tool-call-id")
    lab.wait_paused_turn(KEY)

    lab.restart_kernel()
    lab.run_cell(0)
    card = lab.page.locator(f"{LIST} [data-tool-call-id='{call_id}']")
    card.locator("[data-action=approve]").wait_for()
    lab.page.evaluate(SETTLED_SCROLL, LIST)
    message_id = card.evaluate("(el) => el.closest('.nbc-message').dataset.messageId")
    assert in_list_view(lab, message_id, f"[data-tool-call-id='{call_id}']")  # at the bottom, in view
    assert len(drawn_ids(lab)) < TOTAL // 10  # restored as lazily as it was first drawn
    assert not runs.exists()

    card.locator("[data-action=approve]").click()
    lab.page.locator(f"{LIST} .nbc-message[data-role=assistant][data-loading=false]",
                     has_text="I called record_run and got: recorded").wait_for(timeout=30_000)
    deadline = time.monotonic() + 10
    while not runs.exists():
        assert time.monotonic() < deadline, "the approved tool never ran"
        time.sleep(0.1)
    assert runs.read_text().splitlines() == ["Alpha"]


# Conversations of other shapes: replies of heavy markdown (a heading, a table, code, math), long replies.
def markdown_reply(n: int) -> str:
    """A tall reply: four sections, each with a heading, a table, a python code block and one inline formula."""
    section = (f"## Result {n}\n\nThe table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
               f"```python\nx = {n}\nprint(x)\n```\n\nAnd math $e^{{i\\pi}}+1=0$.\n\n")
    return section * 4


def long_reply(n: int, size: int) -> str:
    """About `size` characters of markdown paragraphs and code, ending with a paragraph naming its end."""
    unit = ("### Step\n\nThe residuals show no trend and the variance is stable across the range.\n\n"
            "```python\nfor name, group in df.groupby('region'):\n    print(name)\n```\n\n")
    return unit * (size // len(unit)) + f"End of long reply {n}.\n"


def conversation_of(replies: list[str]) -> dict[str, Any]:
    """Notebook metadata holding a conversation under KEY: a question before each of `replies` (ids u<n>, a<n>)."""
    messages: list[dict[str, Any]] = []
    for n, reply in enumerate(replies):
        messages += [{"id": f"u{n}", "role": "user", "content": f"question {n}"},
                     {"id": f"a{n}", "role": "assistant", "content": reply}]
    record = {"version": 1, "messages": messages, "turns": [], "paused_turn": None,
              "updated_at": "2026-01-01T00:00:00Z"}
    return {"notebook_chat": {"version": 2, "conversations": {KEY: {"active": "main", "items": {"main": record}}}}}


def open_chat_of(lab: Lab, replies: list[str], name: str) -> ChatPage:
    """Show a chat of `replies`, wait until its latest reply is drawn whole and the page settled."""
    lab.open_notebook(name, [CHAT], metadata=conversation_of(replies))
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.root.locator(f'.nbc-message[data-message-id="a{len(replies) - 1}"][data-drawn="true"]').wait_for()
    lab.page.locator(LIST).scroll_into_view_if_needed()
    lab.page.evaluate(SETTLED_SCROLL, LIST)
    lab.page.evaluate(SETTLED)
    return chat


def wheel_up(lab: Lab, notches: int) -> list[tuple[str, float]]:
    """Scroll up over the list a notch at a time, each until it settles: how far the message under the pointer moved
    (notches that reached the list's top, where the wheel moves less, are left out)."""
    box = lab.page.locator(LIST).bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + 60
    lab.page.mouse.move(x, y)
    moves = []
    for _ in range(notches):
        under: dict[str, Any] = lab.page.evaluate(UNDER_POINTER, [LIST, x, y])
        lab.page.mouse.wheel(0, -NOTCH)
        lab.page.evaluate(SETTLED_SCROLL, LIST)
        top: float = lab.page.evaluate(TOP_OF, [LIST, under["id"]])
        if lab.page.evaluate("(sel) => document.querySelector(sel).scrollTop", LIST) > 0:
            moves.append((under["id"], top - under["top"]))
    return moves


def test_tall_replies_are_drawn_until_the_list_is_filled_not_a_fixed_count(lab: Lab) -> None:
    open_chat_of(lab, [markdown_reply(n) for n in range(60)], "tall.ipynb")
    # what is drawn above the view reaches the margin the list keeps ready (1.5 list heights), and without its oldest
    # message it would not: nothing beyond what the box shows and that margin was drawn
    above: dict[str, float] = lab.page.evaluate(
        """(sel) => { const l = document.querySelector(sel); const [first, second] = l.querySelectorAll('.nbc-message');
           return { top: l.scrollTop, height: l.clientHeight,
                    first: second.getBoundingClientRect().top - first.getBoundingClientRect().top } }""",
        LIST)
    assert above["top"] >= 1.5 * above["height"]
    assert above["top"] - above["first"] < 1.5 * above["height"]
    drawn = drawn_ids(lab)
    assert drawn == [i for n in range(60) for i in (f"u{n}", f"a{n}")][-len(drawn):]


def test_markdown_replies_with_math_show_the_latest_reply_readable_with_its_formulas_rendered(lab: Lab) -> None:
    chat = open_chat_of(lab, [markdown_reply(n) for n in range(300)], "markdown.ipynb")
    latest = chat.root.locator('.nbc-message[data-message-id="a299"]')
    expect(latest.locator(".nbc-content h2")).to_have_count(4)
    expect(latest.locator(".nbc-content h2").first).to_have_text("Result 299")
    expect(latest.locator(".nbc-content table")).to_have_count(4)
    expect(latest.locator(".nbc-code pre").first).to_contain_text("x = 299")
    expect(latest.locator(".nbc-content math")).to_have_count(4)
    assert in_list_view(lab, "a299", ".nbc-content > p:last-child math")  # the reply's end shows, at the bottom
    expect(chat.root.locator(".nbc-math-source")).to_have_count(0)  # no formula left as its TeX source


def test_scrolling_up_through_markdown_replies_moves_by_the_notch_and_draws_their_formulas(lab: Lab) -> None:
    chat = open_chat_of(lab, [markdown_reply(n) for n in range(300)], "markdown-scroll.ipynb")
    before = len(drawn_ids(lab))
    moves = wheel_up(lab, 25)
    assert [(m, moved) for m, moved in moves if abs(moved - NOTCH) >= 4] == [], moves
    drawn = drawn_ids(lab)
    assert len(drawn) > before
    replies = [i for i in drawn if i.startswith("a")]
    for reply in replies:
        expect(chat.root.locator(f'.nbc-message[data-message-id="{reply}"] .nbc-content math')).to_have_count(4)
    expect(chat.root.locator(".nbc-math-source")).to_have_count(0)


# Records, the first time the latest reply's end paragraph is on the page, how much of the reply was drawn by then.
WATCH_END = """([id, end]) => {
  window.__end = null;
  const observer = new MutationObserver(() => {
    const m = document.querySelector(`[data-message-id="${id}"]`);
    const last = m?.querySelector('.nbc-content > p:last-child');
    if (last && last.textContent === end) {
      window.__end = { drawn: m.dataset.drawn, sections: m.querySelectorAll('.nbc-content h3').length };
      observer.disconnect();
    }
  });
  observer.observe(document.body, { childList: true, subtree: true });
}"""


def show_huge_latest_reply(lab: Lab, name: str, watcher: str) -> int:
    """Show a chat whose latest reply (a99) is 200 KB, with `watcher` installed before; wait until that reply is drawn
    whole and return how many sections it has."""
    replies = [f"reply {n}" for n in range(99)] + [long_reply(99, 200_000)]
    lab.open_notebook(name, [CHAT], metadata=conversation_of(replies))
    lab.page.evaluate(watcher, ["a99", "End of long reply 99."])
    lab.run_cell(0)
    sections = replies[-1].count("### Step")
    latest = ChatPage(lab).root.locator('.nbc-message[data-message-id="a99"][data-drawn="true"]')
    expect(latest.locator(".nbc-content h3")).to_have_count(sections)
    return sections


def test_a_200_kb_latest_reply_shows_its_end_first_then_the_rest_above_it(lab: Lab) -> None:
    sections = show_huge_latest_reply(lab, "huge-first.ipynb", WATCH_END)  # drawn whole in the end
    first: dict[str, Any] = lab.page.evaluate("() => window.__end")
    assert first["drawn"] == "false", first  # its end came first, alone
    assert first["sections"] < sections / 4, first


def test_a_200_kb_latest_reply_is_drawn_whole_with_its_end_at_the_bottom(lab: Lab) -> None:
    replies = [f"reply {n}" for n in range(99)] + [long_reply(99, 200_000)]
    chat = open_chat_of(lab, replies, "huge.ipynb")
    latest = chat.root.locator('.nbc-message[data-message-id="a99"]')
    expect(latest.locator(".nbc-content > p").last).to_have_text("End of long reply 99.")
    assert in_list_view(lab, "a99", ".nbc-content > p:last-child")
    expect(latest.locator(".nbc-content h3")).to_have_count(replies[-1].count("### Step"))
    assert drawn_ids(lab)[-1] == "a99"



def test_scrolling_up_through_a_200_kb_latest_reply_moves_what_is_under_the_pointer_by_the_notch(lab: Lab) -> None:
    replies = [f"reply {n}" for n in range(99)] + [long_reply(99, 200_000)]
    open_chat_of(lab, replies, "huge-scroll.ipynb")
    moves = wheel_up(lab, 20)
    assert len(moves) >= 10  # the notches moved over the reply, not at the list's top
    assert [(m, moved) for m, moved in moves if abs(moved - NOTCH) >= 4] == [], moves

# From the first frame the latest reply's end paragraph is on the page: whether an idle callback asked for then runs
# while the rest of the reply is still being drawn above it (the page is idle between its slices), and the longest
# main-thread task that began after the end showed (the cell's run and the widget's first paint before it are not
# this drawing's: the first-paint benchmark measures them).
WATCH_IDLE = """([id, end]) => {
  window.__idle = { ranBeforeDrawn: null, longest: 0, endShown: null };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const shown = window.__idle.endShown;
      if (shown !== null && entry.startTime >= shown) {
        window.__idle.longest = Math.max(window.__idle.longest, Math.round(entry.duration));
      }
    }
  }).observe({ type: 'longtask' });
  const observer = new MutationObserver(() => {
    const m = document.querySelector(`[data-message-id="${id}"]`);
    if (m?.querySelector('.nbc-content > p:last-child')?.textContent !== end) return;
    observer.disconnect();
    window.__idle.endShown = performance.now();
    requestIdleCallback(() => { window.__idle.ranBeforeDrawn = m.dataset.drawn === 'false'; });
  });
  observer.observe(document.body, { childList: true, subtree: true });
}"""


def test_the_rest_of_a_200_kb_latest_reply_is_drawn_in_idle_time_once_its_end_shows(lab: Lab) -> None:
    show_huge_latest_reply(lab, "huge-idle.ipynb", WATCH_IDLE)
    idle: dict[str, Any] = lab.page.evaluate("() => window.__idle")
    assert idle["ranBeforeDrawn"] is True, idle  # the page had idle time while the slices above the end were drawn
    # the slices above the view go in without their layout, laid out a budget at a time (unlaid_blocks.js): put in
    # laid out, the page's layout of each took a task of 110-190 ms (drawn in one task the reply takes over 0.5 s)
    assert idle["longest"] < 100, idle


def code_block_reply(size: int) -> tuple[str, str]:
    """A reply that is one python code block of about `size` characters, and the code it holds."""
    code = "".join(f"def step_{n}(frame, scale={n}):\n    return frame.assign(value=frame['value'] * scale)  # {n}\n"
                   for n in range(size // 90)) + "# end of the block"
    return f"```python\n{code}\n```\n", code


def test_a_latest_reply_that_is_one_80_kb_code_block_is_drawn_whole_and_highlighted_without_a_long_task(
        lab: Lab) -> None:
    reply, code = code_block_reply(80_000)
    lab.open_notebook("code-block.ipynb", [CHAT],
                      metadata=conversation_of([f"reply {n}" for n in range(99)] + [reply]))
    lab.page.evaluate(LONGEST_TASK)
    lab.run_cell(0)
    latest = ChatPage(lab).root.locator('.nbc-message[data-message-id="a99"][data-drawn="true"]')
    block = latest.locator(".nbc-content pre code")
    expect(block).to_have_count(1)
    assert block.text_content() == code
    expect(block.locator(".hljs-keyword").first).to_have_text("def")
    # rendered, highlighted, then put in (and laid out): each in a frame of its own; in one, a task of 0.11-0.12 s
    assert lab.page.evaluate("() => window.__longest") < 100


ROWS = 1_100
LONG_TABLE = "| step | name | value |\n|---:|---|---:|\n" + "".join(
    f"| {n} | name {n} with `code` and a **note** | {n * 7} |\n" for n in range(1, ROWS + 1))
LONG_NUMBERED = "".join(f"{n}. step {n} with **bold**, `code {n}` and a [link](https://example.com/{n})\n"
                        for n in range(1, ROWS + 1))


def show_one_block_reply(lab: Lab, reply: str, name: str) -> ChatPage:
    """Show a chat whose latest reply (a99) is `reply`, with no idle time for the page (what it leaves to idle time
    waits: IDLE_TIME_BACK) and the longest task watched, until that reply's last row (item) is in the list's view."""
    lab.open_notebook(name, [CHAT], metadata=conversation_of([f"reply {n}" for n in range(99)] + [reply]))
    lab.page.evaluate(NO_IDLE_TIME)
    lab.page.evaluate(LONGEST_TASK)
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.root.locator('.nbc-message[data-message-id="a99"] .nbc-content tr, .nbc-message[data-message-id="a99"] li'
                      ).last.wait_for()
    lab.page.evaluate(SETTLED_SCROLL, LIST)
    return chat


def test_a_latest_reply_that_is_one_long_table_shows_its_last_rows_first_and_lays_out_the_rest_in_idle_time(
        lab: Lab) -> None:
    chat = show_one_block_reply(lab, LONG_TABLE, "long-table.ipynb")
    first = chat.root.locator(".nbc-messages").evaluate(ITEMS_VIEW, ".nbc-content tbody > tr")
    assert first["items"] == ROWS
    assert first["unlaid"] > ROWS * 0.8, first  # the rows above the view wait for their layout
    assert first["boxless"] == first["unlaid"], first
    assert first["newestLaidOut"], first
    assert first["lastInView"], first
    lab.page.evaluate(IDLE_TIME_BACK)
    latest = chat.root.locator('.nbc-message[data-message-id="a99"][data-drawn="true"]')
    latest.wait_for()
    rows = latest.locator(".nbc-content tbody > tr")
    assert rows.evaluate_all("rows => rows.map((row) => row.firstElementChild.textContent)") == [
        str(n) for n in range(1, ROWS + 1)]
    expect(latest.locator(".nbc-unlaid, [class='']")).to_have_count(0)  # every row laid out, as one render has it
    # laid out whole in the frame that put it in, the table took a task of 0.1-0.13 s
    assert lab.page.evaluate("() => window.__longest") < 100


def test_a_latest_reply_that_is_one_long_numbered_list_shows_its_last_items_first_each_with_its_own_number(
        lab: Lab) -> None:
    chat = show_one_block_reply(lab, LONG_NUMBERED, "long-numbered.ipynb")
    items = chat.messages("assistant").last.locator(".nbc-content > ol > li")
    laid_out = items.evaluate_all(
        "items => items.flatMap((item, at) => item.classList.contains('nbc-unlaid') ? [] : [at + 1])")
    assert 0 < len(laid_out) < ROWS / 5
    assert laid_out[-1] == ROWS
    assert shown_numbers(lab, chat) == [f"{number}." for number in laid_out]
    lab.page.evaluate(IDLE_TIME_BACK)
    chat.root.locator('.nbc-message[data-message-id="a99"][data-drawn="true"]').wait_for()
    assert shown_numbers(lab, chat) == [f"{number}." for number in range(1, ROWS + 1)]
    expect(items.and_(chat.root.locator("[value], .nbc-unlaid"))).to_have_count(0)  # numbered as one render


def test_a_long_table_above_the_end_of_the_latest_reply_is_laid_out_in_idle_time_without_a_long_task(
        lab: Lab) -> None:
    rows = 3 * ROWS
    table = "| step | name | value |\n|---:|---|---:|\n" + "".join(
        f"| {n} | name {n} with `code` and a **note** | {n * 7} |\n" for n in range(1, rows + 1))
    replies = [f"reply {n}" for n in range(99)] + [f"{table}\n{long_reply(99, 30_000)}"]
    lab.open_notebook("table-above.ipynb", [CHAT], metadata=conversation_of(replies))
    lab.page.evaluate(LONGEST_TASK)
    lab.run_cell(0)
    latest = ChatPage(lab).root.locator('.nbc-message[data-message-id="a99"][data-drawn="true"]')
    latest.wait_for()
    drawn = latest.locator(".nbc-content tbody > tr")
    assert drawn.evaluate_all("rows => rows.map((row) => row.firstElementChild.textContent)") == [
        str(n) for n in range(1, rows + 1)]
    expect(latest.locator(".nbc-unlaid")).to_have_count(0)
    expect(latest.locator(".nbc-content > p").last).to_have_text("End of long reply 99.")
    # the table above the view goes in without its layout, then is laid out with its last rows, then the rows above
    # them a budget at a time: laid out with all its rows at once, a task of 0.2 s
    assert lab.page.evaluate("() => window.__longest") < 100
