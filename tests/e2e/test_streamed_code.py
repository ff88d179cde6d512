"""A long code block streams in pieces (js/widget/src/streaming_markdown.js, open_code_view.js): while its fence is
open, the lines that arrived are highlighted once and only the open rest is drawn again each frame; when it closes
(or the reply ends inside it), the block drawn is finished in place — the same element, highlighted whole as one render
of it, its Copy giving the whole code — in a real JupyterLab. Its pieces stay blocks of their own (each frame's lines
laid out alone), which show, select and copy as one render's run of text."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage, open_chat
from tests.e2e.lab import Lab
from tests.e2e.test_streamed_list import drawn_in_one_go, streamed

pytestmark = pytest.mark.browser

CODE = "".join(f"def step_{n}(frame, scale={n}):\n    \"\"\"Scale and summarise.\"\"\"\n"
               f"    return frame.assign(value=frame['value'] * scale)  # step {n}\n\n" for n in range(1, 121))
# the code block's text: the fence's lines without the last line break (its blank last line kept, as CommonMark reads
# a fence's lines)
FENCED = CODE[:-1]
REPLY = f"Here is the pipeline:\n\n```python\n{CODE}```\n\nRun it below the chat."
SETUP = f"""
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=1500, delay=0.004), key="code")
chat
"""
OPEN_BLOCK = """el => {
  const reply = [...el.querySelectorAll('.nbc-message[data-role=assistant]')].pop();
  const open = reply?.querySelector('.nbc-code code.hljs .nbc-code-open');
  return reply?.dataset.loading === 'true' && open !== null && open.previousSibling !== null;
}"""


def test_a_long_code_block_is_highlighted_in_pieces_while_it_streams_and_drawn_whole_when_it_closes(lab: Lab) -> None:
    lab.open_notebook("code.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Write the pipeline")
    lab.page.wait_for_function(OPEN_BLOCK, arg=chat.root.element_handle(), timeout=60_000)
    drawn = chat.messages("assistant").last.locator(".nbc-code code.hljs")
    partial = drawn.text_content() or ""
    assert partial
    assert CODE.startswith(partial.rstrip("\n")[:-1])  # the code so far (its last line may be partial)
    assert drawn.locator(".hljs-keyword").count() > 0

    reply = chat.wait_reply_containing("Run it below the chat.", timeout=60_000)
    code = reply.locator(".nbc-code code.hljs")
    assert code.count() == 1
    assert reply.locator(".nbc-code-open").count() == 0
    assert code.evaluate("el => el.textContent") == FENCED
    assert code.locator(".hljs-title.function_").count() == 120


SECOND_VIEW = "chat"
SELECTED_TEXT = """code => {
  const range = document.createRange();
  range.selectNodeContents(code);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
  return getSelection().toString();
}"""
LAID_OUT = """code => {
  const pre = code.parentElement.getBoundingClientRect();
  const last = [...code.querySelectorAll('.hljs-title')].slice(-3);
  return [pre.height, ...last.map((title) => title.getBoundingClientRect().top - pre.top)];
}"""
PIECES_ARE_BLOCKS = """block => [...block.querySelectorAll('code > .nbc-code-piece')]
  .map((piece) => getComputedStyle(piece).display)"""
MARK_OPEN_BLOCK = """el => {
  const block = [...el.querySelectorAll('.nbc-message[data-role=assistant]')].pop().querySelector('.nbc-code');
  block.dataset.seen = 'while-open';
}"""


@pytest.mark.parametrize("ending", ["```\n\nRun it below the chat.", ""], ids=["closed", "ends-open"])
def test_a_long_code_block_drawn_in_pieces_is_finished_in_place_as_the_reply_drawn_in_one_go(
    lab: Lab, ending: str
) -> None:
    lab.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    reply = f"Here is the pipeline:\n\n```py\n{CODE}{ending}"
    setup = SETUP.replace(repr(REPLY), repr(reply))
    chat = open_chat(lab, f"code-{bool(ending)}.ipynb", [setup, SECOND_VIEW])
    chat.send("Write the pipeline")
    lab.page.wait_for_function(OPEN_BLOCK, arg=chat.root.element_handle(), timeout=60_000)
    chat.root.evaluate(MARK_OPEN_BLOCK)
    block = chat.messages("assistant").last.locator(".nbc-code")
    assert set(block.evaluate(PIECES_ARE_BLOCKS)) == {"block"}  # each frame's new lines laid out on their own
    streamed(chat)
    expect(block).to_have_count(1)
    assert block.get_attribute("data-seen") == "while-open"  # the element drawn while the block was open
    block.evaluate("el => el.removeAttribute('data-seen')")
    assert block.locator(".nbc-code-open").count() == 0
    assert block.locator("code").get_attribute("class") == "language-py hljs"  # as marked names it, highlighted
    assert streamed(chat) == drawn_in_one_go(lab)
    whole = lab.output(1).locator(".nbc-message[data-role=assistant]").last.locator(".nbc-code code")
    selected = FENCED.rstrip("\n")  # a selection of the block ends at its last character
    assert block.locator("code").evaluate(SELECTED_TEXT) == whole.evaluate(SELECTED_TEXT) == selected
    lab.page.keyboard.press("Control+c")  # the reader's selection copied
    assert lab.page.evaluate("() => navigator.clipboard.readText()") == selected
    whole.evaluate(SELECTED_TEXT)
    lab.page.keyboard.press("Control+c")
    assert lab.page.evaluate("() => navigator.clipboard.readText()") == selected
    assert block.locator("code").evaluate(LAID_OUT) == whole.evaluate(LAID_OUT)  # as tall, its lines where they are
    block.locator("[data-action=copy-code]").click()
    expect(block.locator("[data-action=copy-code]")).to_have_text("Copied")
    assert lab.page.evaluate("() => navigator.clipboard.readText()") == FENCED
