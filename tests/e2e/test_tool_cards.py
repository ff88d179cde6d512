"""Tool cards people can read (issue 13, item 7): labelled sections, the tool's description, code edited as code,
"You edited the arguments" for the user while the model keeps its own note, who decided and when, and Stop while
paused reading the same in badge and text."""

from __future__ import annotations

import json

import pytest

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, documentation_screenshot

pytestmark = pytest.mark.browser

SCREENSHOT = documentation_screenshot("screenshot-pending-card.png")
CODE = "total = 0\nfor n in range(4):\n    total += n\nprint(total)"
CALL = [{"name": "run_snippet", "arguments": {"code": CODE, "label": "sum"}, "id": "call_run"}]
SETUP = f'''
import json
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider

ran = []

@tool(approval=True)
def run_snippet(code: str, label: str) -> str:
    """Run a short Python snippet in a scratch namespace and report what it printed."""
    ran.append({{"code": code, "label": label}})
    return f"ran {{label}}: {{len(code.splitlines())}} lines"

provider = ScriptedProvider().tool_calls({CALL!r}).text("Done.")
chat = Chat(provider, tools=[run_snippet], key="cards")
chat
'''
PROBE = 'print("RAN", json.dumps(ran)); print("SENT", json.dumps(provider.requests[-1]["messages"][-1]))'


def open_chat(lab: Lab, name: str) -> ChatPage:
    lab.open_notebook(name, [SETUP, PROBE])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat


def test_a_pending_card_labels_its_parts_shows_the_description_and_edits_code_as_code(lab: Lab) -> None:
    chat = open_chat(lab, "pending-card.ipynb")
    chat.send("Sum the first four numbers")
    card = chat.wait_pending_card()

    assert card.locator(".nbc-tool-description").inner_text() == (
        "Run a short Python snippet in a scratch namespace and report what it printed.")
    assert card.locator(".nbc-tool-section-label").first.inner_text().lower() == (
        "arguments (editable before approving)")
    code = card.locator("[data-field=argument][data-argument=code]")
    assert code.input_value() == CODE, "the code is shown as escaped JSON, not as code"
    assert json.loads(card.locator("[data-field=arguments]").input_value()) == {"label": "sum"}
    assert card.locator(".nbc-tool-args").count() == 0, "the code is shown twice"
    chat.root.screenshot(path=str(SCREENSHOT))

    code.fill(CODE.replace("range(4)", "range(10)"))
    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("Done.")

    done = chat.card("success")
    assert done.locator(".nbc-tool-edited").inner_text() == "You edited the arguments before approving."
    assert done.locator(".nbc-tool-decision").inner_text().startswith("Approved by you · ")
    result = done.locator("[data-section=result]")
    assert result.locator(".nbc-tool-section-label").inner_text().lower() == "result"
    assert result.locator(".nbc-tool-result").inner_text() == "ran sum: 4 lines"
    assert "[The user edited" not in chat.root.inner_text()
    assert "range(10)" in done.locator(".nbc-tool-code[data-argument=code]").inner_text()
    ran_probe = kernel_value(lab, 1, "RAN")
    assert ran_probe == [{"code": CODE.replace("range(4)", "range(10)"), "label": "sum"}]
    sent = kernel_value(lab, 1, "SENT")
    assert sent["role"] == "tool"
    assert sent["content"].startswith("[The user edited the arguments before approving;")


def test_a_denied_card_says_who_denied_it_and_why(lab: Lab) -> None:
    chat = open_chat(lab, "denied-card.ipynb")
    chat.send("Sum the first four numbers")
    card = chat.wait_pending_card()
    card.locator("[data-action=deny]").click()
    card.locator("[data-field=deny-reason]").fill("not now")
    card.locator("[data-action=deny-confirm]").click()
    chat.wait_reply_containing("Done.")

    denied = chat.card("denied")
    decision = denied.locator(".nbc-tool-decision").inner_text()
    assert decision.startswith("Denied by you · ")
    assert decision.endswith(": not now")
    assert denied.locator(".nbc-tool-status").inner_text() == "denied"


def test_stop_while_a_card_waits_reads_stopped_in_the_badge_and_the_text(lab: Lab) -> None:
    chat = open_chat(lab, "stopped-card.ipynb")
    chat.send("Sum the first four numbers")
    chat.wait_pending_card()
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")

    card = chat.card("denied")
    assert card.locator(".nbc-tool-status").inner_text() == "stopped"
    assert card.locator(".nbc-tool-decision").inner_text() == "Not run: the turn was stopped before a decision."
    assert kernel_value(lab, 1, "RAN") == []
