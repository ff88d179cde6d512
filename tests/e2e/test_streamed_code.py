"""A long code block streams in pieces (js/widget/src/streaming_markdown.js): while its fence is open, the lines that
arrived are highlighted once and only the open rest is drawn again each frame; when it closes, the block is drawn
whole, highlighted, with the whole code — in a real JupyterLab."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

CODE = "".join(f"def step_{n}(frame, scale={n}):\n    \"\"\"Scale and summarise.\"\"\"\n"
               f"    return frame.assign(value=frame['value'] * scale)  # step {n}\n\n" for n in range(1, 121))
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
    partial = drawn.inner_text()
    assert partial
    assert CODE.startswith(partial.rstrip("\n")[:-1])  # the code so far (its last line may be partial)
    assert drawn.locator(".hljs-keyword").count() > 0

    reply = chat.wait_reply_containing("Run it below the chat.", timeout=60_000)
    code = reply.locator(".nbc-code code.hljs")
    assert code.count() == 1
    assert reply.locator(".nbc-code-open").count() == 0
    assert code.evaluate("el => el.textContent") == CODE.rstrip("\n")
    assert code.locator(".hljs-title.function_").count() == 120
