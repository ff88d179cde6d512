"""Streams ~80 KB of markdown in 20,000 chunks through a `Chat` in a real JupyterLab + Chromium, and the same text
through a bare anywidget that only appends text with 16 ms batching (the transport limit), in the same run.

Run: python benchmarks/widget_stream.py [--chunks N] [--pace SECONDS] [--history N[,N...]] [--shape S[,S...]|all]
                                        [--runs R] [--keep DIR] [--profile] [--trace] [--traffic] [--frames]
  --shape S    what the reply is (markdown_reply): mix (default; headings, paragraphs, lists, tables, math, code),
               code (one 80 KB fenced block), paragraph (one long paragraph), list (one long list), table (one long
               table), math (inline and display formulas), ordered (one long numbered list), quote (one long
               blockquote), nested (a list of lists), cjk (one paragraph of Chinese), escapes (one paragraph dense
               with escaped punctuation, backslashes and code spans); several run one after another, "all" runs each.
  --pace S     spread the stream over about S seconds (sleep between chunk groups) instead of as fast as possible,
               so the browser renders many deltas (as with a real model); default 0 = as fast as possible.
  --history N  stream into a chat whose notebook already holds N messages (restored from the notebook's metadata,
               as after a kernel restart); several values run one after another in the same JupyterLab and the
               report ends with the ratios of their bytes (e.g. --history 10,1000). Default: none.
It builds what it needs itself: the reference render needs the widget's esbuild (js/widget/node_modules), installed
with `npm ci` when missing.

Prints, for each widget: kernel→browser custom messages (and their bytes), the kernel's CPU time while it streams
(time.process_time around the cell's stream: every thread of the kernel's process), time from the cell's start until the
final text is in the DOM, end-of-stream lag (DOM complete minus the kernel's stream end; split into "delivery": how
long the last message that draws took from the kernel's send to the page's websocket, and "drawn after": the page's
drawing from its arrival until the DOM is complete), whether the final DOM
text equals the streamed text, and the ratios. For the chat, "the final DOM equals a full render" is checked
against a reference widget in the same page that renders the final text in one go with js/widget/src/markdown.js
(renderMarkdown + enhanceCodeBlocks, bundled here with the widget's esbuild); that reference's own time ("one go":
rendering, sanitizing, highlighting and layout of the final text in one task, cold and warm) is printed too, the least
main-thread work drawing the reply takes.
Kernel times are time.time(), browser times Date.now(): one machine, one clock. --profile samples the page's functions
(and prints the hottest by self time, by total time near the stream's end, and the widget's own JS time); a sampling
profiler slows script down, so the figures to compare are those of runs without it. --trace sums the page's main-thread
timeline events from the cell's start to DOM complete. --frames lists the chat's long animation frames around the
stream's end (what ran in each, and the style and layout it forced), and when each message that draws reached the page
and when it reached a second client of the kernel's websocket, one that does nothing else (what more the page took
was its main thread's).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
if __name__ == "__main__":
    from browser_needs import ensure_browser_tools

    ensure_browser_tools()  # .venv and chromium, from a clean clone

from playwright.sync_api import Page, sync_playwright
from reply_shapes import SHAPES, markdown_reply
from tornado.websocket import websocket_connect

from tests.e2e.chat_page import DRAWN_HTML
from tests.e2e.lab import CELLS, Lab, launch_chromium, start_lab_server

SETUP = r'''
import asyncio, json, pathlib, time
import anywidget, traitlets
from notebook_chat import Chat
from notebook_chat.engine import CancelHandle
from notebook_chat.testing import ScriptedProvider
from notebook_chat.testing.scripted import ScriptedReply


__MARKDOWN_REPLY__

TEXT = markdown_reply(80_000, __SHAPE__)
CHUNKS = __CHUNKS__
PACE = __PACE__
PIECES = [TEXT[i * len(TEXT) // CHUNKS:(i + 1) * len(TEXT) // CHUNKS] for i in range(CHUNKS)]


def scripted_reply():
    chunks = [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": piece},
                                                              "finish_reason": None}]} for piece in PIECES]
    chunks.append({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return ScriptedReply(chunks)


class PacedProvider(ScriptedProvider):
    """A ScriptedProvider whose stream sleeps every `every` chunks so it lasts about `seconds` (0: no sleeping)."""

    def __init__(self, seconds, groups=1000):
        super().__init__()
        self.seconds, self.groups = seconds, groups

    async def __call__(self, body, cancel):
        stream = await super().__call__(body, cancel)
        if not self.seconds:
            return stream
        return self._paced(stream)

    async def _paced(self, stream):
        every = max(1, CHUNKS // self.groups)
        number = 0
        async for chunk in stream:
            yield chunk
            number += 1
            if number % every == 0:
                await asyncio.sleep(self.seconds / self.groups)


def described(content):
    """What one kernel→browser message carries: its parts over 200 bytes (op, path, bytes), for the traffic log."""
    parts = []
    for name, value in content.items():
        if name == "ops" and isinstance(value, list):
            for op in value:
                size = len(json.dumps(op))
                if size > 200:
                    parts.append([op.get("op", ""), "/".join(map(str, op.get("path", [op.get("field", "")])))[-60:],
                                  size])
        else:
            size = len(json.dumps(value))
            if size > 200:
                parts.append(["", name, size])
    return parts


def counted(widget):
    """Wrap widget.send: count the custom messages (and their JSON bytes) the kernel sends to the browser."""
    tally = {"messages": 0, "bytes": 0, "kinds": {}, "kind_bytes": {}, "log": []}
    send = widget.send
    def counting(content, buffers=None):
        size = len(json.dumps(content))
        tally["messages"] += 1
        tally["bytes"] += size
        kind = str(content.get("kind", "append"))
        tally["kinds"][kind] = tally["kinds"].get(kind, 0) + 1
        tally["kind_bytes"][kind] = tally["kind_bytes"].get(kind, 0) + size
        tally["log"].append([round(time.time(), 3), kind, size, described(content)])
        # when it left the kernel, for the page to tell how long it took to arrive (not counted in the bytes)
        return send({**content, "sent_at": time.time()}, buffers)
    widget.send = counting
    return tally


class Bare(anywidget.AnyWidget):
    _esm = """
    export default { render({ model, el }) {
      const out = document.createElement('div'); out.className = 'bare-text'; out.style.whiteSpace = 'pre-wrap';
      el.append(out);
      model.on('msg:custom', (msg) => { if (msg.append) out.append(msg.append); });
    } };
    """


async def bare_stream(widget, stream, interval=0.016):
    """Append text in batches of at most `interval` seconds: the least a widget can do."""
    buffer, last = [], time.monotonic()
    async for chunk in stream:
        text = chunk["choices"][0]["delta"].get("content")
        if text:
            buffer.append(text)
        now = time.monotonic()
        if buffer and now - last >= interval:
            widget.send({"append": "".join(buffer)})
            buffer, last = [], now
    if buffer:
        widget.send({"append": "".join(buffer)})


async def until(predicate, timeout=30):
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("the browser did not answer")


provider = PacedProvider(PACE).add(scripted_reply())
chat = Chat(provider, key="bench")
chat_sent = counted(chat.widget)
bare = Bare()
bare_sent = counted(bare)
print("SETUP", json.dumps({"chars": len(TEXT), "chunks": len(PIECES)}))
'''

SHOW_CHAT = "chat"
SHOW_BARE = "bare"

RUN_CHAT = r'''
await until(lambda: chat.widget.notebook_available is not None)
chat_sent.update(messages=0, bytes=0, kinds={}, kind_bytes={}, log=[])
t0, cpu0 = time.time(), time.process_time()
await chat.send("Write the report.")
t_end, cpu = time.time(), time.process_time() - cpu0
print("RUN", json.dumps({"t0": t0, "t_end": t_end, "kernel_cpu": cpu, "state": str(chat.state.request_state),
                         "kernel_text_ok": chat.reply == TEXT}))
'''

RUN_BARE = r'''
t0, cpu0 = time.time(), time.process_time()
await bare_stream(bare, await PacedProvider(PACE).add(scripted_reply())({}, CancelHandle()))
t_end, cpu = time.time(), time.process_time() - cpu0
print("RUN", json.dumps({"t0": t0, "t_end": t_end, "kernel_cpu": cpu}))
'''

COUNTS = 'await asyncio.sleep(0.5)\nprint("COUNTS", json.dumps({"chat": chat_sent, "bare": bare_sent}))'
REFERENCE = r'''
class Reference(anywidget.AnyWidget):
    _esm = pathlib.Path(__REFERENCE_ESM__).read_text()
    text = traitlets.Unicode("").tag(sync=True)

Reference(text=chat.reply)
'''

# The final text drawn in one go, twice: the first time ("cold": every library's code runs for the first time in this
# module) is removed, the second ("warm") is the reference. Each is timed from rendering through sanitizing and
# highlighting to the layout it causes (not painting): what the page needs at least to draw the reply, in one task.
REFERENCE_ENTRY = """
import { enhanceCodeBlocks, renderMarkdown } from "__MARKDOWN_JS__";
function drawn(el, text) {
  const started = performance.now();
  const body = document.createElement("div");
  body.className = "nbc-content reference";
  body.innerHTML = renderMarkdown(text);
  enhanceCodeBlocks(body, { cache: new Map(), insertCell: () => {} });
  el.append(body);
  void body.offsetHeight;
  return [body, performance.now() - started];
}
export default { render({ model, el }) {
  const [first, cold] = drawn(el, model.get("text"));
  first.remove();
  const [, warm] = drawn(el, model.get("text"));
  el.dataset.oneGo = JSON.stringify({ cold: cold / 1000, warm: warm / 1000 });
} };
"""
WIDGET_JS = Path(__file__).resolve().parents[1] / "js" / "widget"

CELL_SETUP, CELL_CHAT, CELL_BARE, CELL_RUN_CHAT, CELL_RUN_BARE, CELL_COUNTS, CELL_REFERENCE = range(7)

PROFILE_TOP = False
TRAFFIC = False
TRACE = False
FRAMES = False

CHAT_TEXT = ".nbc-message[data-role='assistant'] .nbc-content"
UNLAID = "nbc-unlaid"  # the chat's blocks put in without layout yet (js/widget/src/unlaid_blocks.js)
REFERENCE_TEXT = ".nbc-content.reference"
BARE_TEXT = ".bare-text"

# Records when the watched element last changed: a MutationObserver on the cell notes that something inside the
# element changed (text or nodes), and the next animation frame takes the time (the frame after the change, as a
# reader would see it). The same recorder watches both widgets and its cost per change is the same for both (no
# reading of the whole text or querying of the whole cell per frame, which would cost the chat's rich DOM more than
# the bare widget's one text node). With `sample`, it also notes the text's length at most every 100 ms (the
# growth timeline of --profile). The main thread's long tasks (> 50 ms: frames the page could not draw) too.
# Separately, when the reader's view last changed ("view final"): a frame whose changed nodes (added nodes, changed
# text: their own boxes; at most 200 looked at) include one inside the visible box (the window, cut by every ancestor
# of the watched element that scrolls); a chat that draws a fast reply's newest text first and the blocks above it
# later has its view final before its DOM is complete.
RECORDER = """([cells, cell, selector, sample, unlaid]) => {
  window.__benchRecorder?.observer.disconnect();
  window.__benchRecorder?.mutations.disconnect();
  const state = { changed: 0, viewChanged: 0, laidOut: 0, unlaidSeen: false, frames: 0, active: true, busy: 0,
                  longest: 0, tasks: [], growth: [] };
  state.observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!state.active) continue;
      state.busy += entry.duration;
      state.longest = Math.max(state.longest, entry.duration);
      state.tasks.push([performance.timeOrigin + entry.startTime, entry.duration]);
    }
  });
  state.observer.observe({ type: 'longtask' });
  const root = document.querySelectorAll(cells)[cell];
  const latest = () => {  // the latest match: a new reply's once it shows
    const found = root.querySelectorAll(selector);
    return found.length ? found[found.length - 1] : null;
  };
  state.el = latest();
  let dirty = false, sampled = 0;
  const touched = new Set();
  state.mutations = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === 1 && (node.matches(selector) || node.querySelector(selector))) state.el = latest();
      }
      if (state.el && state.el.contains(record.target)) {
        dirty = true;
        if (touched.size < 200) {
          if (record.type === 'characterData') touched.add(record.target);
          for (const node of record.addedNodes) touched.add(node);
        }
      }
    }
  });
  const visibleBox = () => {
    let box = { top: 0, bottom: innerHeight, left: 0, right: innerWidth };
    for (let el = state.el?.parentElement; el; el = el.parentElement) {
      if (!/(auto|scroll)/.test(getComputedStyle(el).overflowY) || el.scrollHeight <= el.clientHeight) continue;
      const r = el.getBoundingClientRect();
      box = { top: Math.max(box.top, r.top), bottom: Math.min(box.bottom, r.bottom),
              left: Math.max(box.left, r.left), right: Math.min(box.right, r.right) };
    }
    return box;
  };
  const inView = () => {
    const box = visibleBox();
    const range = document.createRange();
    for (const node of touched) {
      if (!node.isConnected || (node.nodeType !== 1 && node.nodeType !== 3)) continue;
      if (node.nodeType === 3) range.selectNodeContents(node);  // a text node: its own box, not its parent's
      const r = (node.nodeType === 3 ? range : node).getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;  // nothing drawn (white space between blocks)
      if (r.bottom > box.top && r.top < box.bottom && r.right > box.left && r.left < box.right) return true;
    }
    return false;
  };
  state.mutations.observe(root, { childList: true, characterData: true, subtree: true });
  const tick = () => {
    if (!state.active) return;
    state.frames += 1;
    if (state.el) {  // blocks in the DOM whose layout waits (unlaid_blocks.js): laid out when none is left
      const waiting = state.el.getElementsByClassName(unlaid).length > 0;
      if (waiting) state.unlaidSeen = true, state.laidOut = 0;
      else if (state.unlaidSeen && !state.laidOut) state.laidOut = Date.now();
    }
    if (dirty) {
      dirty = false;
      state.changed = Date.now();
      if (inView()) state.viewChanged = state.changed;
      touched.clear();
      if (sample && state.changed - sampled >= 100) {
        sampled = state.changed;
        state.growth.push([state.changed, state.el.textContent.length]);
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  window.__benchRecorder = state;
}"""


# Keeps the page's long animation frames (over 50 ms: what ran in each, the style and layout each script forced), for
# --frames.
FRAME_LOG = """(() => {
  window.__benchFrames = [];
  try {
    new PerformanceObserver((list) => {
      for (const frame of list.getEntries()) {
        window.__benchFrames.push({
          at: performance.timeOrigin + frame.startTime, duration: frame.duration,
          render: frame.renderStart ? frame.startTime + frame.duration - frame.renderStart : 0,
          scripts: frame.scripts.map((script) => ({ invoker: script.invoker, duration: script.duration,
                                                    forced: script.forcedStyleAndLayoutDuration })) });
      }
    }).observe({ type: 'long-animation-frame' });
  } catch (err) { console.warn('no long-animation-frame entries here', err); }
})()"""


# Notes when each kernel→browser custom message the benchmark sent (counted: "sent_at", its kernel time) reached the
# page: the websocket's message event, before JupyterLab handles it (its kind too: a persist draws nothing).
ARRIVALS = """(() => {
  window.__benchArrivals = [];
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        const at = Date.now();
        const text = typeof event.data === 'string' ? event.data : decoder.decode(event.data);
        const sent = /"sent_at": ?([0-9.]+)/.exec(text);
        if (sent) window.__benchArrivals.push([at, Number(sent[1]), /"kind": ?"(\\w+)"/.exec(text)?.[1] ?? '']);
      });
    }
  };
})()"""


def delivery(page: Page, run: dict[str, Any], done: float) -> dict[str, Any]:
    """The last message that draws something (not a persist) sent before the run's end: how long after the kernel
    sent it the page had it ("delivery"), and how long the page drew after that until the DOM was complete; and when
    each message that draws reached the page (s, its kind, s since the kernel sent it)."""
    arrivals = [(at / 1000, sent, kind) for at, sent, kind in page.evaluate("window.__benchArrivals.splice(0)")
                if kind != "persist"]
    timeline = [(arrived, kind, arrived - sent) for arrived, sent, kind in arrivals]
    arrivals = [arrival for arrival in arrivals if arrival[1] <= run["t_end"]]
    if not arrivals:
        return {"delivery": float("nan"), "drawn_after": float("nan"), "arrivals": timeline}
    arrived, sent, _ = max(arrivals, key=lambda arrival: arrival[1])
    return {"delivery": arrived - sent, "drawn_after": done - arrived, "arrivals": timeline}


def run_output(lab: Lab, cell: int, tag: str, timeout: float = 120_000) -> dict[str, Any]:
    text = lab.wait_for_output(cell, rf"{tag} \{{", timeout=timeout)
    match = re.search(rf"{tag} (\{{.*\}})", text)
    if match is None:
        raise AssertionError(f"no {tag} line in cell {cell}: {text!r}")
    result: dict[str, Any] = json.loads(match.group(1))
    return result


def watch(page: Page, cell: int, selector: str) -> None:
    page.evaluate(RECORDER, [CELLS, cell, selector, PROFILE_TOP, UNLAID])


def settled(page: Page, quiet: float = 1.5, timeout: float = 120.0) -> dict[str, Any]:
    """Wait until the watched text has not changed for `quiet` seconds; return the recorder's state."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state: dict[str, Any] = page.evaluate(
            "() => { const { observer, mutations, el, ...state } = window.__benchRecorder;"
            " return { ...state, now: Date.now() }; }"
        )
        if state["changed"] and state["now"] - state["changed"] > quiet * 1000:
            page.evaluate("() => { const state = window.__benchRecorder;"
                          " state.active = false; state.mutations.disconnect(); }")
            return state
        time.sleep(0.1)
    raise AssertionError("the DOM did not settle")


def element_text(page: Page, cell: int, selector: str, prop: str = "textContent") -> str | None:
    """The latest match's text, or its HTML as one render gives it (DRAWN_HTML: the pieces a long code block streamed
    in stay blocks of their own)."""
    found = page.locator(CELLS).nth(cell).locator(selector)
    if found.count() == 0:
        return None
    text: str = found.last.evaluate(DRAWN_HTML if prop == "innerHTML" else f"el => el.{prop}")
    return text


def measure(lab: Lab, run_cell: int, show_cell: int, selector: str) -> dict[str, Any]:
    cdp = lab.page.context.new_cdp_session(lab.page)
    if PROFILE_TOP:  # a sampling profiler slows script down: only when its figures are asked for
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    watch(lab.page, show_cell, selector)
    lab.page.evaluate("window.__benchArrivals.length = 0")
    if FRAMES:
        lab.page.evaluate("window.__benchFrames.length = 0")
    observer = KernelObserver(lab) if FRAMES else None
    cdp.send("Performance.enable")
    before = metrics(cdp)
    if PROFILE_TOP:
        cdp.send("Profiler.start")
    events: list[dict[str, Any]] = []
    trace_clock = 0.0
    if TRACE:
        cdp.on("Tracing.dataCollected", lambda data: events.extend(data["value"]))
        cdp.send("Tracing.start", {"categories": "devtools.timeline", "transferMode": "ReportEvents"})
        trace_clock = trace_clock_mark(lab.page)
    lab.run_cell(run_cell, timeout=300_000)
    # the cell's output is read once the page settled: reading it earlier (Playwright's selector engine walks the
    # whole page, the chat's DOM too) cost the page about 10 ms while the chat still drew the reply's end
    state = settled(lab.page)
    run = run_output(lab, run_cell, "RUN")
    stopped_at = float(lab.page.evaluate("Date.now()")) / 1000
    profile = cdp.send("Profiler.stop")["profile"] if PROFILE_TOP else {"nodes": []}
    if TRACE:
        finished: list[bool] = []
        cdp.on("Tracing.tracingComplete", lambda _: finished.append(True))
        cdp.send("Tracing.end")
        for _ in range(300):
            if finished:
                break
            lab.page.wait_for_timeout(100)
    after = metrics(cdp)
    cdp.detach()
    frames = lab.page.evaluate("window.__benchFrames.splice(0)") if FRAMES else []
    done = state["changed"] / 1000
    view_done = (state["viewChanged"] or state["changed"]) / 1000
    laid_out = max(done, state["laidOut"] / 1000)
    spent = {name: after[name] - before[name] for name in ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration")}
    return {**run, **delivery(lab.page, run, done), "dom_done": done, "to_dom": done - run["t0"],
            "lag": done - run["t_end"],
            "to_view": view_done - run["t0"], "view_lag": view_done - run["t_end"],
            "to_laid_out": laid_out - run["t0"], "laid_out_lag": laid_out - run["t_end"], "frames": state["frames"],
            "busy": state["busy"] / 1000, "longest": state["longest"] / 1000,
            "script": spent["ScriptDuration"], "layout": spent["LayoutDuration"] + spent["RecalcStyleDuration"],
            "tasks": state["tasks"], "growth": state["growth"],
            "observed": observer.close() if observer else {},
            "trace": trace_summary(events, trace_clock, run["t0"], done) if TRACE else [],
            "top_longest": top_functions(profile, since=longest_task(state)[0], until=sum(longest_task(state)),
                                         stopped_at=stopped_at),
            "widget_js": self_time(profile, lambda url: url.startswith("blob:")) if PROFILE_TOP else None,
            "long_frames": [frame for frame in frames if frame["at"] / 1000 >= run["t_end"] - 0.3
                            and frame["at"] / 1000 <= max(done, run["t_end"])],
            "top": top_functions(profile),
            "top_end": top_functions(profile, since=run["t_end"] - 0.5, until=max(done, run["t_end"]),
                                     stopped_at=stopped_at),
            "top_end_total": top_functions(profile, count=24, since=run["t_end"] - 0.5,
                                           until=max(done, run["t_end"]), stopped_at=stopped_at, total=True)}


class KernelObserver:
    """A second websocket on the kernel's channels, with a thread of its own that does nothing else: when each message
    the benchmark sent reached a client whose main thread is free (the kernel's and the server's share of the page's
    delivery)."""

    def __init__(self, lab: Lab) -> None:
        self.arrivals: dict[float, float] = {}
        kernel = lab.server.api("GET", "/api/kernels")[0]["id"]
        self.url = f"{lab.server.url.replace('http', 'ws', 1)}/api/kernels/{kernel}/channels?token={lab.server.token}"
        self.loop = asyncio.new_event_loop()
        self.connected = threading.Event()
        self.connection: Any = None
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.observe(),), daemon=True)
        self.thread.start()
        if not self.connected.wait(10):
            raise RuntimeError(f"no second websocket on {self.url}")

    async def observe(self) -> None:
        self.connection = await websocket_connect(self.url)
        self.connected.set()
        while (message := await self.connection.read_message()) is not None:
            text = message if isinstance(message, str) else message.decode("utf-8", "replace")
            sent = re.search(r'"sent_at": ?([0-9.]+)', text)
            if sent:
                self.arrivals[round(float(sent.group(1)), 3)] = time.time()

    def close(self) -> dict[float, float]:
        """Stop observing; the kernel's send time (rounded to the millisecond) of each message -> when it arrived."""
        self.loop.call_soon_threadsafe(self.connection.close)
        self.thread.join(10)
        return self.arrivals


TRACE_CLOCK_MARK = "widget-stream-clock"


def trace_clock_mark(page: Page) -> float:
    """Put a mark in the trace and return when it was made (epoch seconds): it maps the trace's clock to the epoch."""
    at: float = page.evaluate(
        f"(() => {{ const at = Date.now(); console.timeStamp('{TRACE_CLOCK_MARK}'); return at; }})()")
    return at / 1000


def trace_summary(events: list[dict[str, Any]], clock_mark: float, since: float, until: float
                  ) -> list[tuple[str, float, int]]:
    """Seconds and count of the renderer main thread's timeline events by name (complete events, nested ones
    included: a Layout inside a FunctionCall counts in both) that began between `since` and `until` (epoch seconds:
    the cell's start and DOM complete, not what the page did after it, such as the reference render's); the trace's
    clock is mapped to the epoch by the mark made at `clock_mark` (trace_clock_mark)."""
    threads = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
               and e.get("args", {}).get("name") == "CrRendererMain"}
    marks = [e["ts"] for e in events if e.get("name") == "TimeStamp"
             and e.get("args", {}).get("data", {}).get("message") == TRACE_CLOCK_MARK]
    if not marks:
        raise AssertionError("the trace holds no clock mark: its events can't be placed in time")
    offset = marks[0] / 1e6 - clock_mark
    totals: dict[str, list[float]] = {}
    for event in events:
        if (event.get("ph") == "X" and (event["pid"], event["tid"]) in threads
                and since <= event["ts"] / 1e6 - offset <= until):
            total = totals.setdefault(event["name"], [0.0, 0])
            total[0] += event.get("dur", 0) / 1e6
            total[1] += 1
    return sorted(((name, seconds, int(count)) for name, (seconds, count) in totals.items()), key=lambda r: -r[1])


def longest_task(state: dict[str, Any]) -> tuple[float, float]:
    """(start, duration) in epoch seconds of the longest main-thread task while watching ((0, 0): none)."""
    tasks = sorted(state["tasks"], key=lambda task: -task[1])
    return (tasks[0][0] / 1000, tasks[0][1] / 1000) if tasks else (0.0, 0.0)


def top_functions(profile: dict[str, Any], count: int = 12, since: float | None = None, until: float | None = None,
                  stopped_at: float = 0.0, total: bool = False) -> list[tuple[str, float]]:
    """The functions with the most sampled self time (seconds), as "name url:line"; with `total`, the most time in
    them and what they called (each function once per sample, however deep it recurs); with `since`/`until` (epoch
    seconds) only the samples in that window (the profile's clock is mapped to the epoch by its end, `stopped_at`)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parents = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    totals: dict[str, float] = {}
    clock = float(profile.get("startTime", 0)) + float((profile.get("timeDeltas") or [0])[0])
    for sample, delta in zip(profile.get("samples", [])[1:], profile.get("timeDeltas", [])[1:], strict=False):
        clock += delta
        if since is not None and until is not None:
            at = stopped_at - (float(profile.get("endTime", clock)) - clock) / 1e6
            if not since <= at <= until:
                continue
        names: set[str] = set()
        node_id: int | None = sample
        while node_id is not None:
            frame = nodes[node_id]["callFrame"]
            names.add(f"{frame.get('functionName') or '(anonymous)'} {frame.get('url', '')[-40:]}:"
                      f"{frame.get('lineNumber')}")
            node_id = parents.get(node_id) if total else None
        for name in names:
            totals[name] = totals.get(name, 0.0) + delta / 1e6
    return sorted(totals.items(), key=lambda item: -item[1])[:count]


def metrics(cdp: Any) -> dict[str, float]:
    """Chromium's cumulative page metrics (seconds of script, layout, style recalculation, ...)."""
    return {item["name"]: float(item["value"]) for item in cdp.send("Performance.getMetrics")["metrics"]}


def self_time(profile: dict[str, Any], wanted: Any) -> float:
    """Seconds of sampled CPU time spent in functions whose script URL satisfies `wanted` (anywidget loads each
    widget's ESM from a blob: URL; DOM work those functions call, like innerHTML parsing, counts as theirs)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    total = 0
    for sample, delta in zip(profile.get("samples", [])[1:], deltas[1:], strict=False):
        if wanted(nodes[sample]["callFrame"].get("url", "")):
            total += delta
    return total / 1e6


def benchmark(chunks: int, pace: float, keep: Path | None, histories: list[int | None], repeat: int,
              shapes: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix="widget-stream-")) if keep is None else keep
    server = start_lab_server(work)
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.add_init_script(ARRIVALS)
            if FRAMES:
                page.add_init_script(FRAME_LOG)
            lab = Lab(page, server, server.new_folder("bench"), work / "artifacts")
            try:
                medians = []
                for shape in shapes:
                    for history in histories:
                        results = []
                        for attempt in range(repeat):
                            results.append(run_notebook(lab, chunks, pace, history, attempt, shape))
                            lab.shutdown_kernels()
                        medians.append(median_run(results))
                for shape in shapes:
                    compare_histories([run for run in medians if run["shape"] == shape])
                print_targets(medians, chunks, pace, repeat)
            except Exception:
                for cell in range(lab.cells().count()):
                    print(f"--- cell {cell} output:\n{lab.output_text(cell)[-2000:]}", file=sys.stderr)
                print(f"screenshot: {lab.screenshot('widget-stream-failure')}", file=sys.stderr)
                raise
            finally:
                lab.shutdown_kernels()
                browser.close()
    finally:
        server.stop()


def history_metadata(count: int) -> dict[str, Any]:
    """Notebook metadata holding a conversation of `count` messages under the benchmark chat's key, in today's layout
    (a version-1 record would be migrated by the first write, which sends the whole entry once)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from record_validation import record

    return {"notebook_chat": {"version": 2, "conversations": {"bench": {"active": "main",
                                                                          "items": {"main": record(count)}}}}}


def run_notebook(lab: Lab, chunks: int, pace: float, history: int | None = None, attempt: int = 0,
                 shape: str = "mix") -> dict[str, Any]:
    setup = (SETUP.replace("__MARKDOWN_REPLY__", inspect.getsource(markdown_reply))
             .replace("__CHUNKS__", str(chunks)).replace("__PACE__", repr(pace)).replace("__SHAPE__", repr(shape)))
    reference = REFERENCE.replace("__REFERENCE_ESM__", repr(str(reference_esm(lab.server.root / "reference.js"))))
    name = f"bench-{shape}-{attempt}.ipynb" if history is None else f"bench-{shape}-{history}-{attempt}.ipynb"
    metadata = None if history is None else history_metadata(history)
    lab.open_notebook(name, [setup, SHOW_CHAT, SHOW_BARE, RUN_CHAT, RUN_BARE, COUNTS, reference], metadata=metadata)
    lab.run_cell(CELL_SETUP)
    info = run_output(lab, CELL_SETUP, "SETUP")
    lab.run_cells(CELL_CHAT, CELL_BARE)
    chat = measure(lab, CELL_RUN_CHAT, CELL_CHAT, CHAT_TEXT)
    bare = measure(lab, CELL_RUN_BARE, CELL_BARE, BARE_TEXT)
    lab.run_cell(CELL_COUNTS)
    counts = run_output(lab, CELL_COUNTS, "COUNTS")
    lab.run_cell(CELL_REFERENCE)
    lab.page.wait_for_function(
        "([cells, cell, sel]) => document.querySelectorAll(cells)[cell].querySelectorAll(sel).length > 0",
        arg=[CELLS, CELL_REFERENCE, REFERENCE_TEXT],
    )
    time.sleep(1.0)
    page = lab.page
    one_go = json.loads(page.evaluate(
        "([cells, cell]) => document.querySelectorAll(cells)[cell].querySelector('[data-one-go]').dataset.oneGo",
        [CELLS, CELL_REFERENCE]))
    chat_text, chat_html = (element_text(page, CELL_CHAT, CHAT_TEXT, prop) for prop in ("textContent", "innerHTML"))
    ref_text, ref_html = (element_text(page, CELL_REFERENCE, REFERENCE_TEXT, prop)
                          for prop in ("textContent", "innerHTML"))
    checks = {
        f"chat DOM text ({len(chat_text or '')} chars) = full render text (no loss)": bool(chat_text)
        and chat_text == ref_text,
        "chat DOM = full render DOM (innerHTML)": bool(chat_html) and chat_html == ref_html,
        "chat reply in the kernel = streamed text": bool(chat["kernel_text_ok"]),
        "bare DOM text = streamed text (no loss)": element_text(page, CELL_BARE, BARE_TEXT)
        == markdown_reply(80_000, shape),
    }
    print(f"\n=== reply shape {shape!r}" + ("" if history is None else
                                              f", the chat's notebook held {history:,} messages before the stream")
          + " ===")
    report(info, chat, bare, counts, checks)
    if chat_html and ref_html and chat_html != ref_html:
        at = next((i for i, (a, b) in enumerate(zip(chat_html, ref_html, strict=False)) if a != b),
                  min(len(chat_html), len(ref_html)))
        print(f"  the chat's DOM differs at character {at:,}: chat {chat_html[max(0, at - 80):at + 80]!r}\n"
              f"  full render {ref_html[max(0, at - 80):at + 80]!r}")
    print("the final text drawn in one go (render, sanitize, highlight, layout; one task): "
          f"cold {one_go['cold']:.2f} s, warm {one_go['warm']:.2f} s")
    return {"shape": shape, "history": history, "chat": counts["chat"], "bare": counts["bare"], "lag": chat["lag"],
            "to_dom": chat["to_dom"], "bare_to_dom": bare["to_dom"], "bare_lag": bare["lag"],
            "to_view": chat["to_view"], "view_lag": chat["view_lag"], "bare_to_view": bare["to_view"],
            "laid_out_lag": chat["laid_out_lag"], "dom_ratio": chat["to_dom"] / max(bare["to_dom"], 0.001),
            "longest": chat["longest"], "delivery": chat["delivery"], "drawn_after": chat["drawn_after"],
            "bare_delivery": bare["delivery"], "bare_drawn_after": bare["drawn_after"],
            "kernel_cpu": chat["kernel_cpu"], "bare_kernel_cpu": bare["kernel_cpu"],
            "one_go_cold": one_go["cold"], "one_go_warm": one_go["warm"], "checks_ok": all(checks.values())}


def median_run(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over repeated runs of one case (bytes and messages too: they vary a little with
    timing); the checks must hold in every run."""
    def middle(get: Any) -> Any:
        return statistics.median(get(result) for result in results)

    sent = {side: {field: middle(lambda r, side=side, field=field: r[side][field]) for field in ("bytes", "messages")}
            for side in ("chat", "bare")}
    return {"shape": results[0]["shape"], "history": results[0]["history"], "runs": len(results), **sent,
            **{key: middle(lambda r, key=key: r[key])
               for key in ("lag", "to_dom", "bare_to_dom", "bare_lag", "dom_ratio", "longest", "to_view",
                           "view_lag", "bare_to_view", "laid_out_lag", "one_go_cold", "one_go_warm", "delivery",
                           "drawn_after", "bare_delivery", "bare_drawn_after", "kernel_cpu", "bare_kernel_cpu")},
            "checks_ok": all(result["checks_ok"] for result in results)}


def print_targets(medians: list[dict[str, Any]], chunks: int, pace: float, repeat: int) -> None:
    """Issue 17's targets beside the measured medians."""
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    speed = "as fast as possible" if not pace else f"paced over ~{pace:g} s"
    print(f"\nmedians of {repeat} run(s), {chunks:,} chunks {speed} (load average now {load}):")
    print("DOM: the chat's whole reply drawn (its last change); view: the last change inside the reader's view; "
          "laid out: no block of the reply left waiting for its layout (blocks drawn above a reader who follows the "
          "reply are laid out in idle time); one go: the final text drawn in one task, warm (a floor for the page's "
          "work)")
    print(f"{'shape':>9} {'history':>9} {'chat to DOM s':>14} {'bare to DOM s':>14} {'DOM ratio':>10} {'target':>7} "
          f"{'chat lag s':>11} {'target':>7} {'view ratio':>11} {'view lag s':>11} {'laid out lag s':>15} "
          f"{'bare lag s':>11} "
          f"{'longest task s':>15} {'one go s':>9} {'checks':>7}")
    for run in medians:
        history = "-" if run["history"] is None else f"{run['history']:,}"
        print(f"{run['shape']:>9} {history:>9} {run['to_dom']:>14.2f} {run['bare_to_dom']:>14.2f} "
              f"{run['dom_ratio']:>9.2f}x "
              f"{'<= 2x':>7} {run['lag']:>11.2f} {'<= 0.1':>7} "
              f"{run['to_view'] / max(run['bare_to_dom'], 0.001):>10.2f}x {run['view_lag']:>11.2f} "
              f"{run['laid_out_lag']:>15.2f} "
              f"{run['bare_lag']:>11.2f} {run['longest']:>15.3f} {run['one_go_warm']:>9.2f} "
              f"{'ok' if run['checks_ok'] else 'FAIL':>7}")
    for run in medians:
        met = [("DOM <= 2x bare", run["dom_ratio"] <= 2), ("end lag <= 0.1 s", run["lag"] <= 0.1),
               ("view <= 2x bare", run["to_view"] <= 2 * run["bare_to_dom"]),
               ("view lag <= 0.1 s", run["view_lag"] <= 0.1)]
        print(f"  {run['shape']}: " + ", ".join(f"{name} {'met' if ok else 'MISSED'}" for name, ok in met))
        print(f"  {run['shape']}: end lag = the last message that draws reaching the page after the kernel sent it, "
              "then the page drawing until its DOM is complete: "
              f"chat {run['delivery']:.3f} + {run['drawn_after']:.3f} s, "
              f"bare {run['bare_delivery']:.3f} + {run['bare_drawn_after']:.3f} s")
    with_history = [run for run in medians if run["history"] is not None]
    if len(with_history) >= 2:
        small, large = with_history[0], with_history[-1]
        print(f"bytes: {large['history']:,} vs {small['history']:,} messages "
              f"{large['chat']['bytes'] / max(1, small['chat']['bytes']):.2f}x (target <= 1.5x), "
              f"{large['chat']['bytes'] / max(1, large['bare']['bytes']):.2f}x the bare widget (target <= 3x); "
              f"kernel CPU during the stream {large['kernel_cpu'] / max(small['kernel_cpu'], 0.001):.2f}x")


def compare_histories(runs: list[dict[str, Any]]) -> None:
    """Bytes kernel→browser and kernel CPU of the same reply streamed into chats of different lengths, in this one
    run."""
    if len(runs) < 2:
        return
    base = runs[0]
    print(f"\nsame reply, chats of different lengths (ratios to the {base['history']:,}-message chat):")
    for run in runs:
        print(f"  {run['history']:>6,} messages: {run['chat']['bytes'] / 1000:9.1f} KB in {run['chat']['messages']:>5} "
              f"messages = {run['chat']['bytes'] / base['chat']['bytes']:.2f}x; "
              f"{run['chat']['bytes'] / max(1, run['bare']['bytes']):.2f}x the bare widget's bytes; "
              f"kernel CPU {run['kernel_cpu']:.3f} s = {run['kernel_cpu'] / max(base['kernel_cpu'], 0.001):.2f}x "
              f"({run['kernel_cpu'] / max(run['bare_kernel_cpu'], 0.001):.2f}x the bare widget's); "
              f"end lag {run['lag']:.2f} s; DOM {run['to_dom'] / max(run['bare_to_dom'], 0.001):.2f}x the bare widget")


def reference_esm(target: Path) -> Path:
    """Bundle REFERENCE_ENTRY (the widget's own markdown module) into `target` with the widget's esbuild."""
    return bundle_with_widget_modules(REFERENCE_ENTRY.replace("__MARKDOWN_JS__", "./src/markdown.js"), target, "esm")


def bundle_with_widget_modules(entry_source: str, target: Path, module_format: str) -> Path:
    """Bundle `entry_source` (a module that imports js/widget/src/ files as ./src/...) into `target` with the widget's
    esbuild (installed with `npm ci` when missing)."""
    esbuild = WIDGET_JS / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        print(f"[bench] installing the widget's build tools (npm ci in {WIDGET_JS})", flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], check=True, cwd=WIDGET_JS)
    entry = WIDGET_JS / f".bench-entry-{target.stem}.js"
    entry.write_text(entry_source)
    try:
        subprocess.run([str(esbuild), str(entry), "--bundle", f"--format={module_format}", f"--outfile={target}",
                        "--log-level=warning"], check=True, cwd=WIDGET_JS)
    finally:
        entry.unlink()
    return target


def report(info: dict[str, Any], chat: dict[str, Any], bare: dict[str, Any], counts: dict[str, Any],
           checks: dict[str, bool]) -> None:
    print(f"\n{info['chars']:,} chars in {info['chunks']:,} chunks\n")
    print(f"{'':<24}{'messages':>9}{'KB sent':>9}{'stream s':>9}{'to DOM s':>9}{'lag s':>7}{'view lag s':>11}"
          f"{'laid out lag s':>15}{'delivery s':>11}{'drawn after s':>14}{'kernel CPU s':>13}"
          f"{'frames':>7}{'long tasks s':>13}{'longest s':>10}{'script s':>9}{'layout s':>9}{'widget JS s':>12}")
    for name, row, sent in (("Chat widget", chat, counts["chat"]), ("bare anywidget (16 ms)", bare, counts["bare"])):
        print(f"{name:<24}{sent['messages']:>9}{sent['bytes'] / 1000:>9.1f}{row['t_end'] - row['t0']:>9.2f}"
              f"{row['to_dom']:>9.2f}{row['lag']:>7.2f}{row['view_lag']:>11.2f}{row['laid_out_lag']:>15.2f}"
              f"{row['delivery']:>11.3f}{row['drawn_after']:>14.3f}{row['kernel_cpu']:>13.3f}"
              f"{row['frames']:>7}{row['busy']:>13.2f}{row['longest']:>10.2f}"
              f"{row['script']:>9.2f}{row['layout']:>9.2f}"
              f"{'-' if row['widget_js'] is None else format(row['widget_js'], '.2f'):>12}")
    print(f"\nratio chat/bare: time to DOM {chat['to_dom'] / bare['to_dom']:.2f}x, "
          f"end-of-stream lag {chat['lag'] / max(bare['lag'], 0.001):.1f}x, "
          f"messages {counts['chat']['messages'] / max(1, counts['bare']['messages']):.2f}x, "
          f"kernel CPU {chat['kernel_cpu'] / max(bare['kernel_cpu'], 0.001):.2f}x")
    print(f"chat messages by kind: {counts['chat']['kinds']}")
    print(f"chat bytes by kind: {counts['chat']['kind_bytes']}")
    if TRAFFIC:
        print("chat messages kernel→browser over 1 KB (time from the first, kind, bytes, parts over 200 bytes):")
        log = counts["chat"]["log"]
        for stamp, kind, size, parts in log:
            if size > 1000:
                print(f"  {stamp - log[0][0]:7.3f} {kind:<10} {size:>8}  {parts}")
    if TRACE:
        for name, row in (("chat", chat), ("bare", bare)):
            print(f"{name}: main-thread timeline events from the cell's start to DOM complete (s, count): "
                  + ", ".join(f"{event} {seconds:.3f} ({count})" for event, seconds, count in row["trace"][:14]))
    if FRAMES:
        end = chat["t_end"]
        print(f"chat: from 0.3 s before the kernel's stream end to DOM complete ({chat['dom_done'] - end:+.3f} s), "
              "s after the stream end:")
        for arrived, kind, after_send in chat["arrivals"]:
            if end - 0.3 <= arrived <= chat["dom_done"]:
                observed = chat["observed"].get(round(arrived - after_send, 3))
                elsewhere = "" if observed is None else (
                    f"; a second client had it {(observed - arrived + after_send) * 1000:.0f} ms after it")
                print(f"  {arrived - end:+.3f}  {kind} arrived ({after_send * 1000:.0f} ms after the kernel sent it"
                      f"{elsewhere})")
        for frame in chat["long_frames"]:
            scripts = ", ".join(f"{script['invoker'] or '?'} {script['duration']:.0f} ms (forced style and layout "
                                f"{script['forced']:.0f})" for script in frame["scripts"])
            print(f"  {frame['at'] / 1000 - end:+.3f}  long frame {frame['duration']:.0f} ms (rendering "
                  f"{frame['render']:.0f}): {scripts or 'no script'}")
    if PROFILE_TOP:
        for name, row in (("chat", chat), ("bare", bare)):
            print(f"{name}: long tasks (start s after the kernel's stream end, ms): "
                  + " ".join(f"{start / 1000 - row['t_end']:+.2f}:{duration:.0f}" for start, duration in row["tasks"]))
            print(f"{name}: DOM text length (s after the stream end: chars): "
                  + " ".join(f"{at / 1000 - row['t_end']:+.2f}:{length}" for at, length in row["growth"][-12:]))
        print("chat: most self time in the page (s):")
        for name, seconds in chat["top"]:
            print(f"  {seconds:7.3f}  {name}")
        print("chat: most self time in the longest task (s):")
        for name, seconds in chat["top_longest"]:
            print(f"  {seconds:7.3f}  {name}")
        print("chat: most self time from 0.5 s before the kernel's stream end to DOM complete (s):")
        for name, seconds in chat["top_end"]:
            print(f"  {seconds:7.3f}  {name}")
        print("chat: most total time (self and callees) from 0.5 s before the kernel's stream end to DOM complete (s):")
        for name, seconds in chat["top_end_total"]:
            print(f"  {seconds:7.3f}  {name}")
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--pace", type=float, default=0.0)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--profile", action="store_true", help="also print the page's hottest functions")
    parser.add_argument("--traffic", action="store_true",
                        help="also list the chat's kernel→browser messages over 1 KB and what they carry")
    parser.add_argument("--trace", action="store_true",
                        help="also print the page's main-thread timeline (layout, style, paint, ...) by event, "
                             "from the cell's start to DOM complete")
    parser.add_argument("--frames", action="store_true",
                        help="also list the chat's long animation frames and message arrivals around the stream's end")
    parser.add_argument("--history", default=None, help="messages the chat holds before the stream: N or N,M,...")
    parser.add_argument("--shape", default="mix", help=f"the reply: {', '.join(SHAPES)} (comma-separated) or all")
    parser.add_argument("--runs", type=int, default=3, help="runs of each case; the summary shows their medians")
    args = parser.parse_args()
    PROFILE_TOP = args.profile
    TRAFFIC = args.traffic
    TRACE = args.trace
    FRAMES = args.frames
    histories: list[int | None] = [int(n) for n in args.history.split(",")] if args.history else [None]
    shapes = list(SHAPES) if args.shape == "all" else args.shape.split(",")
    unknown = [shape for shape in shapes if shape not in SHAPES]
    if unknown:
        parser.error(f"unknown --shape {', '.join(unknown)}: choose from {', '.join(SHAPES)} or all")
    benchmark(args.chunks, args.pace, args.keep, histories, args.runs, shapes)
