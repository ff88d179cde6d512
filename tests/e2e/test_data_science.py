"""Data-science features in a real JupyterLab: a figure made by an approved `run_python` call shows as an image in
its tool card, and "Insert cell below" on a code block of a reply adds that code as a new cell under the chat."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, documentation_screenshot

pytestmark = pytest.mark.browser

SCREENSHOT = documentation_screenshot("screenshot-plot-card.png")

SALES = """
import json
import pandas as pd
import notebook_chat.tools
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider

sales = pd.DataFrame({"month": ["Jan", "Feb", "Mar", "Apr"], "revenue": [120, 135, 128, 160]})
"""

PLOT_CODE = """import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
plt.plot(sales["month"], sales["revenue"])
peak = int(sales["revenue"].max())"""

PLOT_CHAT = f"""
provider = (ScriptedProvider()
            .tool_calls([{{"name": "run_python", "arguments": {{"code": {PLOT_CODE!r}}}, "id": "call_plot"}}])
            .text("Here is the plot."))
chat = Chat(provider, tools=notebook_chat.tools.kernel(), key="plot")
chat
"""


def test_a_figure_from_an_approved_run_python_call_shows_as_an_image_in_its_card(lab: Lab) -> None:
    probe = 'print("PEAK", json.dumps(globals().get("peak")))'
    lab.open_notebook("plot.ipynb", [SALES + PLOT_CHAT, probe])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Plot the revenue by month")

    card = chat.wait_pending_card()
    assert card.locator(".nbc-tool-name").inner_text() == "run_python"
    assert kernel_value(lab, 1, "PEAK") is None
    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("Here is the plot.")
    assert chat.wait_state("completed") == "completed"

    done = chat.card("success")
    assert done.get_attribute("data-tool-call-id") == "call_plot"
    image = done.locator(".nbc-tool-display img")
    image.wait_for()
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,iVBORw0KGgo")
    lab.page.wait_for_function("img => img.complete", arg=image.element_handle())
    assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [640, 480]
    assert "[1 figure: 640x480 PNG shown to the user]" in done.locator(".nbc-tool-result").inner_text()
    assert kernel_value(lab, 1, "PEAK") == 160
    done.screenshot(path=str(SCREENSHOT))


CODE = 'monthly = sales.set_index("month")["revenue"]\nmonthly.pct_change()'
REPLY = f"Growth month over month:\n\n```python\n{CODE}\n```\n\nRun it below the chat."

INSERT_CHAT = f"""
chat = Chat(ScriptedProvider().text({REPLY!r}, chunks=6), key="insert")
chat
"""


def test_insert_cell_below_adds_the_code_of_a_reply_as_a_cell_right_under_the_chat(lab: Lab) -> None:
    lab.open_notebook("insert.ipynb", [SALES + INSERT_CHAT, "print('after the chat')"])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("How did revenue grow?")
    reply = chat.wait_reply_containing("Run it below the chat.")

    insert = reply.locator(".nbc-code [data-action=insert-cell]")
    expect(insert).to_have_count(1)
    insert.click()
    lab.wait_for_cell_count(3)

    sources = lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
        ".map(cell => [cell.cell_type, cell.getSource()])"
    )
    assert sources[1] == ["code", CODE]
    assert sources[2] == ["code", "print('after the chat')"]
    assert sources[0][1].startswith(SALES)
