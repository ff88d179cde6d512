"""Drive the chat widget (js/widget/src) inside a notebook cell's output, through its DOM only.

Selectors come from the front end: `.nbc-root[data-state][data-synced]`,
`.nbc-message[data-role][data-loading][data-drawn]`, `.nbc-tool[data-tool-call-id][data-status]`, buttons
`[data-action=send|stop|approve|deny|deny-confirm|continue]`, fields `[data-field=input|deny-reason]`. Kernel state is
read by running a cell that prints `LABEL <json>`. Wait on the state you assert: `wait_ready` (the kernel's first
view is drawn), `wait_state` (a request state, every message drawn), `wait_reply_containing`, or Playwright `expect`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Locator

from tests.e2e.lab import Lab

TURN_OVER = ("completed", "aborted", "error", "paused", "idle")

# A message's drawn HTML as one render of its text gives it: a long code block streamed in pieces keeps them as blocks
# of their own (js/widget/src/open_code_view.js; the page lays out what a frame adds), which one render has not, and a
# code block laid out once is marked settled (settled_code.js: out of view, its style and layout wait).
DRAWN_HTML = """el => {
  const copy = el.cloneNode(true);
  for (const piece of copy.querySelectorAll('.nbc-code-piece')) piece.replaceWith(...piece.childNodes);
  for (const block of copy.querySelectorAll('.nbc-settled')) block.classList.remove('nbc-settled');
  return copy.innerHTML;
}"""

# The page has no idle time until IDLE_TIME_BACK: idle callbacks asked for meanwhile wait, then run.
NO_IDLE_TIME = """() => {
  const idle = window.requestIdleCallback;
  const waiting = [];
  window.requestIdleCallback = (callback) => (waiting.push(callback), waiting.length);
  window.__idleBack = () => { window.requestIdleCallback = idle; for (const callback of waiting) idle(callback); };
}"""
IDLE_TIME_BACK = "() => window.__idleBack()"

# A busy page (another notebook drawing, a slow machine): no idle time. An idle callback runs only at its timeout, and
# never without one.
IDLE_ONLY_AT_TIMEOUT = """() => {
  window.requestIdleCallback = (callback, options) => options?.timeout
    ? setTimeout(() => callback({ didTimeout: true, timeRemaining: () => 0 }), options.timeout) : 0;
  window.cancelIdleCallback = (id) => clearTimeout(id);
}"""

GATED = '''
import asyncio

class Gated:
    """Wraps a provider: a reply holds once "Paragraph N + 1:" begins, until a cell sets holds[N] (cells run while a
    reply streams; Stop ends a held reply), so a test checks a streaming reply however slow the machine is."""

    def __init__(self, inner, *after):
        self.inner = inner
        self.holds = {n: asyncio.Event() for n in after}

    async def __call__(self, body, cancel):
        return self.held(await self.inner(body, cancel))

    async def held(self, stream):
        text, waiting = "", sorted(self.holds)
        async for chunk in stream:
            yield chunk
            text += chunk["choices"][0]["delta"].get("content") or ""
            while waiting and f"Paragraph {waiting[0] + 1}:" in text:
                await self.holds[waiting.pop(0)].wait()
'''
"""Cell source defining `Gated(provider, *paragraphs)`: `provider = Gated(ScriptedProvider().text(...), 40)`, then a
cell `provider.holds[40].set()` lets the reply go on after paragraph 40."""


def printed(text: str, label: str) -> Any:
    """The JSON value printed on the line `LABEL <json>` of a cell's output."""
    match = re.search(rf"^{label} (.*)$", text, re.MULTILINE)
    assert match, f"no {label} line in output: {text!r}"
    return json.loads(match.group(1))


def kernel_value(lab: Lab, index: int, label: str) -> Any:
    """Run cell `index` (which prints `LABEL <json>`) and return the value."""
    lab.run_cell(index)
    return printed(lab.wait_for_output(index, rf"(?:^|\n){label} "), label)


@dataclass
class ChatPage:
    """The chat widget shown in the output of cell `cell`."""

    lab: Lab
    cell: int = 0

    @property
    def root(self) -> Locator:
        return self.lab.output(self.cell).locator(".nbc-root")

    def wait_ready(self, timeout: float = 30_000) -> None:
        """The widget is drawn, its composer accepts text and the kernel's first view has arrived (`data-synced`:
        the commands, tools and conversation it draws are the kernel's, not the empty ones a view starts with)."""
        self.root.locator("[data-field=input]").wait_for(timeout=timeout)
        self.lab.output(self.cell).locator(".nbc-root[data-synced=true]").wait_for(timeout=timeout)

    def wait_state(self, *states: str, timeout: float = 30_000) -> str:
        """Wait until the widget's request state is one of `states` and every message's text is drawn (a message's
        markdown is drawn in the animation frame after its text arrives: `data-drawn`); return the state."""
        self.lab.page.wait_for_function(
            "([el, states]) => states.includes(el.dataset.state)"
            " && !el.querySelector('.nbc-message[data-drawn=false]')",
            arg=[self.root.element_handle(), list(states)],
            timeout=timeout,
        )
        return str(self.root.get_attribute("data-state"))

    def send(self, text: str) -> None:
        self.root.locator("[data-field=input]").fill(text)
        self.root.locator("[data-action=send]").click()

    def messages(self, role: str) -> Locator:
        return self.root.locator(f".nbc-message[data-role={role}]")

    def texts(self, role: str) -> list[str]:
        return [text.strip() for text in self.messages(role).locator(".nbc-content").all_inner_texts()]

    def wait_reply_containing(self, text: str, timeout: float = 30_000) -> Locator:
        """The finished (not loading) assistant message whose drawn text is its latest and contains `text`."""
        reply = self.root.locator(".nbc-message[data-role=assistant][data-loading=false][data-drawn=true]",
                                  has_text=text).last
        reply.wait_for(timeout=timeout)
        return reply

    def card(self, status: str | None = None) -> Locator:
        selector = ".nbc-tool" if status is None else f".nbc-tool[data-status={status}]"
        return self.root.locator(selector)

    def wait_pending_card(self, timeout: float = 30_000) -> Locator:
        card = self.card("awaiting-approval").first
        card.locator("[data-action=approve]").wait_for(timeout=timeout)
        return card


def open_chat(lab: Lab, name: str, cells: list[str]) -> ChatPage:
    """Open a new notebook `name` with `cells`, run its first cell (which shows a chat) and wait for the chat."""
    lab.open_notebook(name, cells)
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat
