"""What the kernel says in the widget of a Chat(locale="zh-CN") is Chinese too, in a real JupyterLab: a refusal of
a header action while a reply streams (its reason built from two sentences of the table), and the headings of a
conversation inserted as notebook cells."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import open_chat
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

SLOW_CHAT = '''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text("慢 " * 400, chunks=400, delay=0.05), locale="zh-CN", key="zh-slow")
chat
'''

CODE_CHAT = '''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

chat = Chat(ScriptedProvider().text("先运行：\\n\\n```python\\nx = 41 + 1\\n```"), locale="zh-CN", key="zh-export")
chat
'''


def test_a_new_conversation_refused_while_a_reply_streams_says_why_in_chinese(lab: Lab) -> None:
    chat = open_chat(lab, "zh-refused.ipynb", [SLOW_CHAT])
    chat.send("写一段长回复")
    chat.wait_state("processing")
    chat.root.locator(".nbc-message[data-role=assistant]", has_text="慢").wait_for()  # the reply is streaming
    chat.root.locator("[data-action=new-conversation]").click()
    expect(chat.root.locator(".nbc-error")).to_have_text("此对话正在写入回复：请先停止或等待它，然后再新建对话")


def test_a_conversation_inserted_as_cells_has_chinese_headings(lab: Lab) -> None:
    chat = open_chat(lab, "zh-export.ipynb", [CODE_CHAT])
    chat.send("怎么得到 x？")
    chat.wait_reply_containing("先运行")
    chat.wait_state("completed")
    toggle = chat.root.locator("[data-action=conversation-list]")
    toggle.click()
    chat.root.locator("[data-action=export-cells]").click()
    lab.wait_for_cell_count(5)
    cells = lab.cell_sources()
    assert cells[1:] == [
        ["markdown", "# 怎么得到 x？"],
        ["markdown", "## 你\n\n怎么得到 x？"],
        ["markdown", "## 助手\n\n先运行："],
        ["code", "x = 41 + 1"],
    ]
