"""A reply that arrives faster than it can be drawn shows its newest text first (js/widget/src/streaming_markdown.js
`ahead`, skipped_blocks.js): the blocks far behind its end are drawn later, in their place, without moving what the
reader sees (above a reader who follows the reply, laid out later still: unlaid_blocks.js; while they wait, its newest
text is redrawn about every BEHIND_MS, not at every frame), and the reply ends drawn
exactly as one that was drawn block by block — in a real JupyterLab."""

from __future__ import annotations

import itertools
import statistics

import pytest
from playwright.sync_api import Locator

from tests.e2e.chat_page import (
    DRAWN_HTML,
    GATED,
    IDLE_ONLY_AT_TIMEOUT,
    IDLE_TIME_BACK,
    NO_IDLE_TIME,
    ChatPage,
    open_chat,
)
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SECTIONS = 200
REPLY = "".join(
    f"## Section {n}\n\nParagraph {n} with **bold**, `code` and $x_{{{n}}}^2$ here, the quick brown fox jumps.\n\n"
    f"| column | value |\n|---|---|\n| a{n} | {n * 3} |\n\n"
    f"```python\ndef step_{n}(frame):\n    return frame * {n}\n```\n\n"
    for n in range(1, SECTIONS + 1)
) + "The end of the report."
SETUP = f"""
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=2, delay=0.05), key="fast")
chat
"""
SECOND_VIEW = "chat"

# The order in which the reply's section headings are put into the page (skipped blocks are drawn between frames too,
# so a frame may see many at once) and how many were in when its last line was put in; per frame while the reply is
# drawn: whether its last line shows, where it is in the list's box, and how far the list is from its end.
WATCH = """root => {
  const state = window.__fastStream = { order: [], frames: [], done: false, mostUnlaid: 0, headingsAtEnd: null };
  const seen = new Set();
  const note = (node) => {
    const paragraphs = node.nodeType !== 1 ? [] : node.matches('p') ? [node] : [...node.querySelectorAll('p')];
    if (state.headingsAtEnd === null && paragraphs.some((p) => p.textContent === 'The end of the report.'
        && p.closest('.nbc-message[data-role=assistant] .nbc-content'))) {
      state.headingsAtEnd = seen.size;
    }
    const headings = node.nodeType !== 1 ? [] : node.matches('h2') ? [node] : node.querySelectorAll('h2');
    for (const h of headings) {
      if (!seen.has(h.textContent) && h.closest('.nbc-message[data-role=assistant] .nbc-content')) {
        seen.add(h.textContent);
        state.order.push(h.textContent);
      }
    }
  };
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) note(node);
  }).observe(root, { childList: true, subtree: true });
  const tick = () => {
    const reply = [...root.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
    const list = root.querySelector('.nbc-messages');
    if (reply) {
      const unlaid = reply.getElementsByClassName('nbc-unlaid').length;
      state.mostUnlaid = Math.max(state.mostUnlaid, unlaid);
      const last = [...reply.querySelectorAll('.nbc-content > p')]
        .find((p) => p.textContent === 'The end of the report.');
      if (last) {
        state.frames.push({
          top: last.getBoundingClientRect().top - list.getBoundingClientRect().top,
          fromEnd: list.scrollHeight - list.scrollTop - list.clientHeight,
          headings: reply.querySelectorAll('.nbc-content > h2').length,
          drawn: reply.dataset.drawn === 'true',
          unlaid,
        });
      }
      if (reply.dataset.drawn === 'true' && reply.dataset.loading === 'false' && last) { state.done = true; return; }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def stream_fast(lab: Lab, slow_skipped: bool = False) -> tuple[ChatPage, dict]:
    """The reply streamed fast, watched (WATCH); with `slow_skipped`, on a page that draws skipped blocks slowly, so
    drawing them takes several frames however fast the machine is."""
    chat = open_chat(lab, "fast.ipynb", [SETUP, SECOND_VIEW])
    lab.page.evaluate(WATCH, chat.root.element_handle())
    if slow_skipped:
        lab.page.evaluate(SLOW_SKIPPED, chat.root.element_handle())
    chat.send("Write the report")
    lab.page.wait_for_function("() => window.__fastStream.done", timeout=60_000)
    state: dict = lab.page.evaluate("() => window.__fastStream")
    return chat, state


def test_a_reply_arriving_faster_than_it_is_drawn_shows_its_end_before_the_blocks_above_it(lab: Lab) -> None:
    _, state = stream_fast(lab)
    order = [int(heading.split()[-1]) for heading in state["order"]]
    assert sorted(order) == list(range(1, SECTIONS + 1))
    assert order != sorted(order)  # some sections were drawn after later ones: the newest text came first
    assert order.index(SECTIONS) < len(order) - 1
    assert state["headingsAtEnd"] < SECTIONS, state["headingsAtEnd"]  # put in while blocks above it waited


def test_the_blocks_drawn_above_the_end_of_a_fast_reply_do_not_move_the_readers_view(lab: Lab) -> None:
    _, state = stream_fast(lab, slow_skipped=True)  # else a fast page may draw them all between two frames
    frames = state["frames"]
    assert any(frame["headings"] < SECTIONS for frame in frames), "the end never showed before every block was drawn"
    assert frames[-1]["headings"] == SECTIONS
    assert frames[-1]["fromEnd"] <= 24  # the reader follows the reply: the list is at its end
    fills = [(before, after) for before, after in itertools.pairwise(frames)
             if after["headings"] > before["headings"] and before["fromEnd"] <= 24]
    assert fills, "no frame drew skipped blocks while the reader was at the end"
    for before, after in fills:  # blocks appeared above: the last line stays where it was, the list at its end
        assert abs(after["top"] - before["top"]) <= 2, (before, after)  # scroll offsets are whole pixels
        assert after["fromEnd"] <= 24, (before, after)


def test_a_fast_reply_ends_drawn_exactly_as_the_same_reply_drawn_in_one_go(lab: Lab) -> None:
    chat, _ = stream_fast(lab)
    lab.run_cell(1)  # a second view of the chat draws the stored reply, not streaming
    views = lab.output(1).locator(".nbc-root")
    views.locator(".nbc-message[data-role=assistant][data-drawn=true]").last.wait_for(timeout=30_000)
    streamed = chat.messages("assistant").last.locator(".nbc-content")
    drawn_whole = views.locator(".nbc-message[data-role=assistant]").last.locator(".nbc-content")
    html = streamed.evaluate(DRAWN_HTML)
    assert "<!---->" not in html  # no run of skipped blocks is left
    assert html == drawn_whole.evaluate(DRAWN_HTML)
    assert streamed.locator("h2").count() == SECTIONS
    assert streamed.locator("math").count() == SECTIONS
    assert streamed.locator(".nbc-code .hljs-keyword").count() >= SECTIONS


HELD_SETUP = GATED + f"""
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

provider = Gated(ScriptedProvider().text({REPLY + chr(10) * 2 + "Paragraph 1: the reply holds here."!r}, chunks=2), 0)
chat = Chat(provider, key="held")
chat
"""


def held_with_every_section_in(lab: Lab, chat: ChatPage) -> Locator:
    """Send: the reply comes in two big deltas, then holds (still streaming) until Stop; return it once every section
    heading is in the page."""
    chat.send("Write the report")
    reply = chat.messages("assistant").last
    reply.get_by_text("Paragraph 1: the reply holds here.").wait_for(timeout=30_000)
    lab.page.wait_for_function(
        "([reply, sections]) => reply.querySelectorAll('.nbc-content > h2').length === sections",
        arg=[reply.element_handle(), SECTIONS], timeout=30_000)
    return reply


def test_the_blocks_a_fast_reply_skipped_are_drawn_while_it_still_streams(lab: Lab) -> None:
    chat = open_chat(lab, "held.ipynb", [HELD_SETUP])
    reply = held_with_every_section_in(lab, chat)
    assert reply.get_attribute("data-loading") == "true"  # drawn while the reply still streams, not after its end
    assert "<!---->" not in reply.locator(".nbc-content").evaluate("el => el.innerHTML")
    list_end = chat.root.locator(".nbc-messages").evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight")
    assert list_end <= 24  # the reader who followed the reply is still at its end
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")


BEHIND_SECTIONS = 1200
BEHIND_REPLY = "".join(
    f"## Section {n}\n\nParagraph {n} with **bold** and `code`, the quick brown fox jumps over the lazy dog.\n\n"
    f"| column | value |\n|---|---|\n| a{n} | {n * 3} |\n\n"
    for n in range(1, BEHIND_SECTIONS + 1)
)
BEHIND_SETUP = f"""
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({BEHIND_REPLY!r}, chunks=90, delay=0.01), key="behind")
chat
"""
BEHIND_MS = 100  # message_list.js

# A page that draws the blocks a reply skipped slowly (15 ms each slice: a busy machine), noting after each change of
# the reply's body when it changed, the newest section drawn (a section drawn at the reply's end raises it; skipped
# blocks are older) and whether skipped blocks wait (their markers, empty comments, in the body).
SLOW_SKIPPED = """root => {
  const after = Comment.prototype.after;
  Comment.prototype.after = function (...nodes) {
    const until = performance.now() + 15;
    while (performance.now() < until);
    return after.apply(this, nodes);
  };
  const state = window.__behind = { changes: [] };
  let newest = 0;
  new MutationObserver(() => {
    const body = [...root.querySelectorAll('.nbc-message[data-role=assistant] .nbc-content')].pop();
    if (!body) return;
    for (const h of body.querySelectorAll(':scope > h2')) {
      newest = Math.max(newest, Number(h.textContent.split(' ')[1]));
    }
    const waiting = [...body.childNodes].some((node) => node.nodeType === Node.COMMENT_NODE);
    const reply = body.closest('.nbc-message');
    state.changes.push({ at: performance.now(), newest, waiting, streaming: reply.dataset.loading === 'true' });
  }).observe(root, { childList: true, subtree: true });
}"""


def test_a_reply_that_outruns_drawing_redraws_its_newest_text_about_every_behind_ms_while_skipped_blocks_wait(
        lab: Lab) -> None:
    chat = open_chat(lab, "behind.ipynb", [BEHIND_SETUP])
    lab.page.evaluate(SLOW_SKIPPED, chat.root.element_handle())
    chat.send("Write the report")
    chat.wait_state("completed")
    changes = lab.page.evaluate("() => window.__behind.changes")
    # the frames that drew newer text at the reply's end, and whether blocks waited from each until the next
    draws = [i for i, change in enumerate(changes) if change["newest"] > (changes[i - 1]["newest"] if i else 0)]
    held = [changes[b]["at"] - changes[a]["at"] for a, b in itertools.pairwise(draws)
            if changes[b]["streaming"] and all(change["waiting"] for change in changes[a:b])]
    assert len(held) >= 3, (len(draws), held)  # the reply did outrun drawing, again and again
    # the frames between drew older blocks (15 ms each here) instead of the newest text at every frame (about every
    # 50 ms on this page); the rest of a delta too big for one frame is drawn in the next one at once
    assert statistics.median(held) >= 0.9 * BEHIND_MS, held
    assert chat.messages("assistant").last.locator(".nbc-content > h2").count() == BEHIND_SECTIONS


# Animation frames four times a second (a page whose frames come late: a busy machine, a slow compositor), counting the
# frames that begin while a run of the reply's skipped blocks still waits to be drawn (its marker, an empty comment, in
# the reply's body) after a frame that began with the reply ended (that frame draws its end), and noting at each frame
# whether the reply holds (its last line shown, still streaming) and blocks wait.
SLOW_FRAMES = """root => {
  const raf = window.requestAnimationFrame.bind(window);
  const state = window.__slowFrames = { frames: 0, ended: 0, waiting: 0, holding: [] };
  const queue = new Map();
  let ids = 1e6;
  window.requestAnimationFrame = (callback) => {
    queue.set(++ids, callback);
    if (queue.size === 1) setTimeout(() => raf((time) => {
      const run = [...queue.values()];
      queue.clear();
      state.frames += 1;
      const reply = [...root.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
      const content = reply?.querySelector('.nbc-content');
      const waiting = content && [...content.childNodes].some((node) => node.nodeType === Node.COMMENT_NODE);
      if (waiting && state.ended) state.waiting += 1;
      if (reply?.dataset.loading === 'true' && content?.textContent.includes('the reply holds here')) {
        state.holding.push(Boolean(waiting));
      }
      if (reply?.dataset.loading === 'false') state.ended += 1;
      for (const callback of run) callback(time);
    }), 250);
    return ids;
  };
  window.cancelAnimationFrame = (id) => { queue.delete(id); };
}"""


def held_with_blocks_waiting(lab: Lab) -> tuple[ChatPage, Locator]:
    """A fast reply that holds (still streaming) with skipped blocks waiting, on a page with four frames a second
    (SLOW_FRAMES) and idle time only at an idle callback's timeout (blocks wait for the end)."""
    chat = open_chat(lab, "held.ipynb", [HELD_SETUP])
    lab.page.evaluate(IDLE_ONLY_AT_TIMEOUT)
    lab.page.evaluate(SLOW_FRAMES, chat.root.element_handle())
    chat.send("Write the report")  # two big deltas, then the reply holds (still streaming) until Stop
    reply = chat.messages("assistant").last
    reply.get_by_text("Paragraph 1: the reply holds here.").wait_for(timeout=60_000)
    assert "<!---->" in reply.locator(".nbc-content").evaluate("el => el.innerHTML")  # blocks still wait
    return chat, reply


def test_the_blocks_skipped_above_a_reader_following_a_reply_do_not_wait_for_frames_after_its_end(lab: Lab) -> None:
    chat, reply = held_with_blocks_waiting(lab)
    chat.root.locator("[data-action=stop]").click()  # the reply ends
    lab.page.wait_for_function("reply => reply.dataset.drawn === 'true'", arg=reply.element_handle(), timeout=60_000)
    state = lab.page.evaluate("() => window.__slowFrames")
    # once the frame that draws the reply's end has run, tasks between the frames draw the blocks left above the reader:
    # no later frame finds one still waiting, where drawing them a slice per frame left them waiting across frames
    assert state["ended"] > 0
    assert state["waiting"] == 0, state
    assert reply.locator(".nbc-content > h2").count() == SECTIONS
    assert chat.root.locator(".nbc-messages").evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight") <= 24


# Idle callbacks run at once with no idle time left (a page whose next frame is due): what one does is done before
# that frame.
IDLE_AT_ONCE_WITHOUT_TIME = """() => {
  window.requestIdleCallback = (callback) => setTimeout(() => callback({ didTimeout: false, timeRemaining: () => 0 }));
  window.cancelIdleCallback = (id) => clearTimeout(id);
}"""

# How many of the reply's blocks waited for their layout when its last skipped block went in (its run's marker, an
# empty comment, left the body), and at each (slowed) frame after that, as the frame began.
LAST_BLOCK_SHOWN = """root => {
  const body = () => [...root.querySelectorAll('.nbc-message[data-role=assistant] .nbc-content')].pop();
  const unlaid = () => body().getElementsByClassName('nbc-unlaid').length;
  const state = window.__lastBlock = { unlaidWhenDrawn: null, unlaidAtFrames: [] };
  new MutationObserver((records) => {
    const markerLeft = records.some((r) => [...r.removedNodes].some((n) => n.nodeType === Node.COMMENT_NODE));
    const waiting = [...body().childNodes].some((n) => n.nodeType === Node.COMMENT_NODE);
    if (markerLeft && !waiting && state.unlaidWhenDrawn === null) state.unlaidWhenDrawn = unlaid();
  }).observe(root, { childList: true, subtree: true });
  const frame = () => {
    if (state.unlaidWhenDrawn !== null) state.unlaidAtFrames.push(unlaid());
    if (state.unlaidAtFrames.length < 3) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""


def test_the_frame_after_a_fast_replys_last_block_shows_it_before_any_block_above_is_laid_out(lab: Lab) -> None:
    chat, reply = held_with_blocks_waiting(lab)
    lab.page.evaluate(IDLE_AT_ONCE_WITHOUT_TIME)
    lab.page.evaluate(LAST_BLOCK_SHOWN, chat.root.element_handle())
    chat.root.locator("[data-action=stop]").click()  # the reply ends: tasks draw the blocks left, without layout
    lab.page.wait_for_function("() => window.__lastBlock.unlaidAtFrames.length >= 3", timeout=60_000)
    state = lab.page.evaluate("() => window.__lastBlock")
    # the frame that shows the last blocks comes first: no idle callback laid a slice out before it (with no idle
    # time left, one that did put that frame off); the frames after it lay the blocks out
    assert state["unlaidWhenDrawn"] > 0, state
    assert state["unlaidAtFrames"][0] == state["unlaidWhenDrawn"], state
    lab.page.wait_for_function("reply => reply.getElementsByClassName('nbc-unlaid').length === 0",
                               arg=reply.element_handle(), timeout=60_000)
    assert reply.locator(".nbc-content > h2").count() == SECTIONS
    assert chat.root.locator(".nbc-messages").evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight") <= 24


def test_the_blocks_skipped_above_a_reader_following_a_streaming_reply_are_drawn_in_the_pages_idle_time(
        lab: Lab) -> None:
    chat = open_chat(lab, "held.ipynb", [HELD_SETUP])
    lab.page.evaluate(SLOW_FRAMES, chat.root.element_handle())  # frames 4 times a second, idle between
    # and frames keep coming while the reply holds: a page that draws nothing asks for none (the widget's drawing done,
    # no frame would come to look)
    lab.page.evaluate("() => { const tick = () => requestAnimationFrame(tick); tick(); }")
    chat.send("Write the report")  # two big deltas, then the reply holds (still streaming) until Stop
    reply = chat.messages("assistant").last
    reply.get_by_text("Paragraph 1: the reply holds here.").wait_for(timeout=60_000)
    lab.page.wait_for_function("() => window.__slowFrames.holding.length >= 3", timeout=30_000)

    state = lab.page.evaluate("() => window.__slowFrames")
    # a frame draws the skipped blocks for at most SKIPPED_BUDGET_MS (several frames for this reply's); between the
    # frames, the idle time draws the rest: from the second frame on with the reply holding, none waits
    assert not any(state["holding"][1:]), state["holding"]
    assert reply.get_attribute("data-loading") == "true"  # drawn while it still streams
    assert reply.locator(".nbc-content > h2").count() == SECTIONS
    assert chat.root.locator(".nbc-messages").evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight") <= 24
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")


# Animation frames 50 ms apart (a busy page's), counting the reply's section headings their callbacks put in: those not
# put in by a frame came in tasks between the frames.
HEADINGS_BY_FRAMES = """root => {
  const raf = window.requestAnimationFrame.bind(window);
  const state = window.__byFrames = { inFrames: 0 };
  const headings = () => {
    const reply = [...root.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
    return reply ? reply.querySelectorAll('.nbc-content > h2').length : 0;
  };
  const cancel = window.cancelAnimationFrame.bind(window);
  const waiting = new Map();
  let ids = 1e6;
  window.requestAnimationFrame = (callback) => {
    const id = ++ids;
    waiting.set(id, setTimeout(() => raf((time) => {
      waiting.delete(id);
      const before = headings();
      try { callback(time); } finally { state.inFrames += headings() - before; }
    }), 50));
    return id;
  };
  window.cancelAnimationFrame = (id) => (waiting.has(id) ? clearTimeout(waiting.get(id)) : cancel(id));
  state.restore = () => { window.requestAnimationFrame = raf; window.cancelAnimationFrame = cancel; };
}"""


def test_the_blocks_skipped_above_a_reader_following_a_streaming_reply_are_drawn_between_frames_without_idle_time(
        lab: Lab) -> None:
    chat = open_chat(lab, "held.ipynb", [HELD_SETUP])
    lab.page.evaluate(NO_IDLE_TIME)  # no idle callbacks (frames that follow each other leave none)
    lab.page.evaluate(HEADINGS_BY_FRAMES, chat.root.element_handle())
    reply = held_with_every_section_in(lab, chat)
    assert reply.get_attribute("data-loading") == "true"
    in_frames = lab.page.evaluate("() => window.__byFrames.inFrames")
    # tasks between the frames drew some of them (the frames alone would have drawn every one)
    assert in_frames < SECTIONS, in_frames
    assert chat.root.locator(".nbc-messages").evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight") <= 24
    lab.page.evaluate(IDLE_TIME_BACK)
    lab.page.evaluate("() => window.__byFrames.restore()")
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")


RESTORED_KEY = "restored"
RESTORED_SETUP = f"""
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=6, delay=0.05), key={RESTORED_KEY!r})
chat
"""


def restored(count: int) -> dict:
    """Notebook metadata holding `count` short questions and answers under RESTORED_KEY (they fill the list's box)."""
    messages = []
    for n in range(count):
        messages += [{"id": f"u{n}", "role": "user", "content": f"question {n}"},
                     {"id": f"a{n}", "role": "assistant", "content": f"Answer {n}: " + "a few words. " * 30}]
    record = {"version": 1, "messages": messages, "turns": [], "paused_turn": None,
              "updated_at": "2026-01-01T00:00:00Z"}
    return {"notebook_chat": {"version": 2, "conversations": {RESTORED_KEY: {"active": "main",
                                                                             "items": {"main": record}}}}}


def test_a_chat_restored_with_a_few_messages_follows_a_reply_started_from_a_cell_to_its_end(lab: Lab) -> None:
    lab.open_notebook("restored.ipynb", [RESTORED_SETUP, 'await chat.send("Write the report")'], metadata=restored(10))
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    lab.page.evaluate(WATCH, chat.root.element_handle())
    lab.run_cell(1)
    lab.page.wait_for_function("() => window.__fastStream.done", timeout=60_000)
    frames = lab.page.evaluate("() => window.__fastStream.frames")
    assert frames[-1]["fromEnd"] <= 24, frames[-1]  # the list followed the reply to its end
    assert chat.root.locator("[data-action=jump-latest]").is_hidden()


def test_blocks_drawn_above_a_reader_following_a_fast_reply_are_laid_out_later_all_by_its_end(lab: Lab) -> None:
    _, state = stream_fast(lab)
    assert state["mostUnlaid"] > 0  # blocks were put in before their layout
    assert state["frames"][-1]["unlaid"] == 0
    assert state["frames"][-1]["fromEnd"] <= 24
    laid_out = [(before, after) for before, after in itertools.pairwise(state["frames"])
                if after["unlaid"] < before["unlaid"] and before["fromEnd"] <= 24]
    assert laid_out, "no frame laid blocks out while the reader was at the end"
    for before, after in laid_out:  # the reader who follows stays at the end, the last line where it was
        assert after["fromEnd"] <= 24, (before, after)
        assert abs(after["top"] - before["top"]) <= 2, (before, after)


# the list's distance from its end, the unlaid blocks left, and the section heading nearest the middle of its box
VIEW = """list => {
  const reply = [...list.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
  const box = list.getBoundingClientRect();
  const middle = (box.top + box.bottom) / 2;
  const headings = [...reply.querySelectorAll('.nbc-content > h2')];
  const nearest = headings.reduce((best, h) => Math.abs(h.getBoundingClientRect().top - middle)
    < Math.abs(best.getBoundingClientRect().top - middle) ? h : best);
  return { fromEnd: list.scrollHeight - list.scrollTop - list.clientHeight,
           unlaid: reply.getElementsByClassName('nbc-unlaid').length,
           section: Number(nearest.textContent.split(' ')[1]) };
}"""


def held_with_blocks_unlaid(lab: Lab) -> ChatPage:
    """A fast reply that holds (still streaming) with every block drawn and, the page having no idle time, blocks
    above the reader's view not laid out yet."""
    chat = open_chat(lab, "held.ipynb", [HELD_SETUP])
    lab.page.evaluate(NO_IDLE_TIME)
    reply = held_with_every_section_in(lab, chat)
    view = chat.root.locator(".nbc-messages").evaluate(VIEW)
    assert view["unlaid"] > 0
    assert view["fromEnd"] <= 24
    # not styled, laid out or painted: no box at all (a box of no height would still have been styled and built)
    boxed = reply.locator(".nbc-unlaid").evaluate_all("els => els.filter((el) => el.getClientRects().length).length")
    assert boxed == 0
    return chat


def scrolled_up_view(lab: Lab, chat: ChatPage) -> dict:
    """The view once the list stopped scrolling; Stop ends the reply and the page gets its idle time back."""
    messages = chat.root.locator(".nbc-messages")
    messages.evaluate("""list => new Promise((done) => {  // the same offset over two frames 100 ms apart
        let top = list.scrollTop;
        const look = () => list.scrollTop === top ? done(true) : (top = list.scrollTop, setTimeout(look, 100));
        setTimeout(look, 100); })""")
    view: dict = messages.evaluate(VIEW)
    lab.page.evaluate(IDLE_TIME_BACK)
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")
    return view


def test_a_reader_who_scrolls_up_with_the_wheel_finds_every_block_laid_out_just_above_the_end(lab: Lab) -> None:
    chat = held_with_blocks_unlaid(lab)
    chat.messages("assistant").last.get_by_text("Paragraph 1: the reply holds here.").hover()
    lab.page.mouse.wheel(0, -4_000)  # a fling: past the text drawn last, into the blocks laid out later
    view = scrolled_up_view(lab, chat)
    assert view["unlaid"] == 0
    assert 3_000 <= view["fromEnd"] <= 5_000, view
    assert view["section"] >= SECTIONS - 40, view  # 4,000 px above the end, not where blocks without height put it


def test_a_reader_who_pages_up_with_the_keyboard_finds_every_block_laid_out_just_above_the_end(lab: Lab) -> None:
    chat = held_with_blocks_unlaid(lab)
    chat.root.locator(".nbc-messages").focus()
    lab.page.keyboard.press("PageUp")
    view = scrolled_up_view(lab, chat)
    assert view["unlaid"] == 0
    assert 100 <= view["fromEnd"] <= 1_500
    assert view["section"] >= SECTIONS - 10


def test_a_scroll_without_input_lays_every_block_out_keeping_what_the_reader_sees(lab: Lab) -> None:
    chat = held_with_blocks_unlaid(lab)
    # e.g. find in page or a screen reader moving the view: no wheel, key or pointer first
    moved = chat.root.locator(".nbc-messages").evaluate("""list => new Promise((done) => {
        list.scrollIntoView({ block: 'nearest' });
        list.scrollTop -= 400;
        const box = list.getBoundingClientRect();
        const seen = document.elementFromPoint(box.left + box.width / 2, box.top + 40);
        const before = seen.getBoundingClientRect().top;
        requestAnimationFrame(() => requestAnimationFrame(() =>
          done({ moved: seen.getBoundingClientRect().top - before, connected: seen.isConnected })));
      })""")
    view = scrolled_up_view(lab, chat)
    assert view["unlaid"] == 0
    assert moved["connected"]
    assert abs(moved["moved"]) <= 2, moved
