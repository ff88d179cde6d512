"""The chat's width never follows what it holds (`contain: inline-size` on its root, 45em preferred, no minimum): in a
box that sizes the chat to its content (an ipywidgets HBox), a reply with long lines does not widen it as it streams,
and a growing paragraph is not measured again for that at every frame; a narrower box shrinks it; in JupyterLab's
output area the chat is as wide as it was — in a real JupyterLab."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage, open_chat
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

LONG_LINES = " ".join(f"word{n}" for n in range(400))
REPLY = f"{LONG_LINES}\n\n```python\nvalue = {'x' * 600!r}\n```\n\n| a | b |\n|---|---|\n| {LONG_LINES} | b |"

SETUP = """
import ipywidgets
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({reply!r}, chunks=200, delay=0.004), key={key!r})
{show}
"""

# The chat root's width at every change inside it: the distinct widths seen.
WATCH_WIDTH = """root => {
  const state = window.__widths = { seen: [] };
  const note = () => {
    const width = Math.round(root.getBoundingClientRect().width);
    if (!state.seen.includes(width)) state.seen.push(width);
  };
  note();
  new MutationObserver(note).observe(root, { subtree: true, childList: true, characterData: true });
}"""


def start(lab: Lab, name: str, show: str) -> ChatPage:
    return open_chat(lab, name, [SETUP.format(reply=REPLY, key=name, show=show)])


def widths_while_replying(lab: Lab, chat: ChatPage) -> list[int]:
    chat.root.evaluate(WATCH_WIDTH)
    chat.send("Write long lines.")
    chat.wait_reply_containing("word399")
    chat.wait_state("completed")
    seen: list[int] = lab.page.evaluate("() => window.__widths.seen")
    return seen


def test_a_chat_in_a_box_that_sizes_it_to_its_content_keeps_its_width_while_a_reply_with_long_lines_streams(
    lab: Lab,
) -> None:
    chat = start(lab, "hbox-width.ipynb", "ipywidgets.HBox([chat.widget])")
    seen = widths_while_replying(lab, chat)
    assert len(seen) == 1, seen
    # wide enough to read: its preferred width (45em) decides it, not the reply's lines
    assert seen[0] >= 320, seen


def test_a_chat_in_a_box_narrower_than_its_preferred_width_shrinks_to_fit_the_box(lab: Lab) -> None:
    chat = start(lab, "narrow-hbox.ipynb", "ipywidgets.HBox([chat.widget], layout=ipywidgets.Layout(width='400px'))")
    seen = widths_while_replying(lab, chat)
    assert seen == [400], seen


def test_a_chat_in_the_output_area_is_as_wide_as_the_output_allows_up_to_its_maximum(lab: Lab) -> None:
    chat = start(lab, "output-width.ipynb", "chat")
    seen = widths_while_replying(lab, chat)
    available = chat.root.evaluate("root => root.parentElement.getBoundingClientRect().width")
    assert seen == [min(900, round(available))], (seen, available)
    # the reply's long lines wrap inside the message (the table and the code block scroll on their own)
    overflow = chat.root.evaluate(
        "root => { const list = root.querySelector('.nbc-messages'); return list.scrollWidth - list.clientWidth; }")
    assert overflow <= 0, overflow
