"""Formulas in a reply are drawn as MathML in a real JupyterLab + Chromium, inline and display, while streaming and
once finished (KaTeX is loaded when the first formula is drawn, not with the widget)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

REPLY = "The area is $\\pi r^2$, and\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n\nfor every $n$."

SETUP = f'''
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=40, delay=0.01), key="math")
chat
'''


def test_a_reply_with_inline_and_display_math_is_drawn_as_mathml(lab: Lab) -> None:
    lab.open_notebook("math.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("What is the area?")
    reply = chat.wait_reply_containing("for every")
    chat.wait_state("completed")
    formulas = reply.locator(".nbc-content math")
    expect(formulas).to_have_count(3)
    expect(reply.locator('.nbc-content math[display="block"]')).to_have_count(1)
    expect(reply.locator(".nbc-content math").first.locator("mi").first).to_have_text("π")
    assert "$" not in reply.locator(".nbc-content").inner_text()  # no formula left as TeX source
