"""The chat widget in a real JupyterLab: streaming, Approve / Deny, Stop and Continue, inert model HTML, and clicks
while another cell awaits. Each notebook's first cell shows `chat`; the test clicks in the page and reads the
kernel only through cells that print."""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, documentation_screenshot

pytestmark = pytest.mark.browser

SCREENSHOT = documentation_screenshot("screenshot-approval.png")

IMPORTS = """
import json, time
from notebook_chat import Chat, tool
from notebook_chat.providers import DemoModel
from notebook_chat.testing import ScriptedProvider
"""

SETTING_TOOL = '''
settings = {"mode": "draft"}

@tool(approval=True)
def update_setting(name: str, value: str) -> str:
    """Change one of the notebook's settings."""
    settings[name] = value
    return f"{name} is now {value}"
'''

SETTING_CALL = ('[{"name": "update_setting", "arguments": {"name": "mode", "value": "publish"}, '
                '"id": "call_setting"}]')


def open_chat(lab: Lab, name: str, setup: str, *probes: str) -> ChatPage:
    """Open a notebook whose cell 0 is `setup` (ending with `chat`) and cells 1.. are `probes`; run cell 0."""
    lab.open_notebook(name, [IMPORTS + setup, *probes])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat


def test_a_message_sent_to_the_demo_model_streams_its_reply_into_the_page(lab: Lab) -> None:
    chat = open_chat(lab, "stream.ipynb", 'chat = Chat(DemoModel(delay=0.005), key="demo")\nchat',
                     'print("REPLY", json.dumps(chat.reply))')
    assert chat.root.locator(".nbc-title").inner_text() == "DemoModel (offline)"
    lab.page.evaluate(
        """root => {
            window.__lengths = [];
            new MutationObserver(() => {
                const reply = root.querySelector('.nbc-message[data-role=assistant] .nbc-content');
                if (reply) window.__lengths.push(reply.textContent.length);
            }).observe(root, {childList: true, subtree: true, characterData: true});
        }""",
        chat.root.element_handle(),
    )
    chat.send("Hello there")

    reply = chat.wait_reply_containing("You wrote: Hello there")
    assert chat.wait_state("completed") == "completed"
    assert chat.texts("user") == ["Hello there"]
    assert "def get_weather(city: str) -> str:" in reply.locator("pre code").inner_text()
    lengths = sorted(set(lab.page.evaluate("window.__lengths")))
    assert len([n for n in lengths if 0 < n < lengths[-1]]) >= 3, f"no partial text drawn while streaming: {lengths}"
    kernel_reply = kernel_value(lab, 1, "REPLY")
    assert kernel_reply.startswith("Hello! I am the **offline demo model**")
    assert reply.locator("strong", has_text="offline demo model").count() == 1


def test_approving_a_tool_call_runs_the_tool_in_the_kernel_and_the_reply_continues(lab: Lab) -> None:
    setup = SETTING_TOOL + f"""
provider = (ScriptedProvider(label="Scripted model")
            .tool_calls({SETTING_CALL}, content="I will switch the notebook to publish mode.")
            .text("Done: the notebook is in publish mode.", chunks=10, delay=0.01))
chat = Chat(provider, tools=[update_setting], key="approval")
chat
"""
    chat = open_chat(lab, "approve.ipynb", setup, 'print("SETTINGS", json.dumps(settings))')
    chat.send("Switch to publish mode")

    card = chat.wait_pending_card()
    assert card.get_attribute("data-tool-call-id") == "call_setting"
    assert card.locator(".nbc-tool-name").inner_text() == "update_setting"
    assert card.locator("[data-action=deny]").is_visible()
    assert chat.wait_state("paused") == "paused"
    assert kernel_value(lab, 1, "SETTINGS") == {"mode": "draft"}
    chat.root.screenshot(path=str(SCREENSHOT))

    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("Done: the notebook is in publish mode.")
    assert chat.wait_state("completed") == "completed"
    done = chat.card("success")
    assert done.get_attribute("data-tool-call-id") == "call_setting"
    assert done.locator(".nbc-tool-result").inner_text() == "mode is now publish"
    assert kernel_value(lab, 1, "SETTINGS") == {"mode": "publish"}


def test_denying_a_tool_call_with_a_reason_sends_the_reason_to_the_model(lab: Lab) -> None:
    setup = SETTING_TOOL + f"""
provider = ScriptedProvider().tool_calls({SETTING_CALL}).text("Understood, I left it.", chunks=5)
chat = Chat(provider, tools=[update_setting], key="deny")
chat
"""
    probe = 'print("SENT", json.dumps(provider.requests[-1]["messages"][-1]))'
    chat = open_chat(lab, "deny.ipynb", setup, probe, 'print("SETTINGS", json.dumps(settings))')
    chat.send("Switch to publish mode")
    card = chat.wait_pending_card()

    card.locator("[data-action=deny]").click()
    card.locator("[data-field=deny-reason]").fill("not on a Friday")
    card.locator("[data-action=deny-confirm]").click()
    chat.wait_reply_containing("Understood, I left it.")

    assert chat.card("denied").get_attribute("data-tool-call-id") == "call_setting"
    sent = kernel_value(lab, 1, "SENT")
    assert (sent["role"], sent["tool_call_id"]) == ("tool", "call_setting")
    assert "Reason: not on a Friday" in sent["content"]
    assert kernel_value(lab, 2, "SETTINGS") == {"mode": "draft"}


STORY = " ".join(f"word{n}" for n in range(1, 301))


def test_stop_keeps_the_partial_reply_and_continue_sends_a_hidden_prompt_for_a_new_reply(lab: Lab) -> None:
    setup = f"""
provider = (ScriptedProvider().text({STORY!r}, chunks=300, delay=0.03)
            .text("Picking up where I stopped.", chunks=5))
chat = Chat(provider, key="stop")
chat
"""
    probe = 'print("LAST", json.dumps([chat.messages[-1]["content"], provider.requests[-1]["messages"][-1]]))'
    chat = open_chat(lab, "stop.ipynb", setup, probe)
    chat.send("Tell me a long story")
    streaming = chat.root.locator(".nbc-message[data-role=assistant][data-loading=true] .nbc-content")
    streaming.filter(has_text=re.compile(r"word20\b")).wait_for()

    chat.root.locator("[data-action=stop]").click()
    assert chat.wait_state("aborted") == "aborted"
    partial = chat.texts("assistant")[0]
    time.sleep(0.5)
    assert chat.texts("assistant") == [partial]
    assert STORY.startswith(partial), partial
    assert 20 < len(partial.split()) < 300, partial
    kept, _ = kernel_value(lab, 1, "LAST")
    assert kept.strip() == partial  # the DOM text is read stripped; a chunk may end on a space

    go = chat.root.locator(".nbc-continue [data-action=continue]")
    go.click()
    chat.wait_reply_containing("Picking up where I stopped.")
    assert chat.wait_state("completed") == "completed"
    assert chat.texts("assistant") == [partial, "Picking up where I stopped."]
    assert chat.texts("user") == ["Tell me a long story"]
    assert chat.root.locator(".nbc-continue").is_hidden()
    _, prompt = kernel_value(lab, 1, "LAST")
    assert prompt["role"] == "user"
    assert "stopped by the user" in prompt["content"]
    assert "stopped by the user" not in chat.root.inner_text()


HOSTILE = """Inert HTML below.

<img src=x onerror="window.__pwned='img'">

<script>window.__pwned='script'</script>

[markdown link](javascript:window.__pwned='markdown-link')

<a href="JaVaScRiPt:window.__pwned='anchor'">raw anchor</a>

**still bold**
"""


def test_html_in_a_model_reply_renders_inert(lab: Lab) -> None:
    setup = f"""
provider = ScriptedProvider().text({HOSTILE!r}, chunks=40, delay=0.01)
chat = Chat(provider, key="xss")
chat
"""
    chat = open_chat(lab, "xss.ipynb", setup)
    chat.send("Show me some HTML")
    reply = chat.wait_reply_containing("still bold")
    assert reply.locator("strong").inner_text() == "still bold"
    for text in ("markdown link", "raw anchor"):
        link = reply.get_by_text(text)
        if link.count():
            link.click()
    time.sleep(0.5)  # an <img src=x> fails to load within this; its handler would have fired

    root = chat.root.element_handle()
    assert lab.page.evaluate("() => window.__pwned ?? null") is None
    assert lab.page.evaluate("root => root.querySelectorAll('script').length", root) == 0
    handlers = lab.page.evaluate(
        "root => [...root.querySelectorAll('*')].flatMap(el => [...el.attributes].map(a => a.name))"
        ".filter(name => name.toLowerCase().startsWith('on'))",
        root,
    )
    assert handlers == []
    hrefs = lab.page.evaluate("root => [...root.querySelectorAll('[href]')].map(el => el.getAttribute('href'))", root)
    assert not [href for href in hrefs if href.strip().lower().startswith("javascript:")], hrefs


STAMP_TOOL = '''
import asyncio
ran_at = None
released = asyncio.Event()

@tool(approval=True)
def stamp() -> str:
    """Record when the tool ran."""
    global ran_at
    ran_at = time.time()
    return "stamped"

@tool
def release() -> str:
    """Let the waiting cell finish."""
    released.set()
    return "released"

provider = (ScriptedProvider().tool_calls([{"name": "stamp", "arguments": {}, "id": "call_stamp"}])
            .text("Stamped.", chunks=3)
            .tool_calls([{"name": "release", "arguments": {}, "id": "call_release"}]).text("Released."))
chat = Chat(provider, tools=[stamp, release], key="busy")
chat
'''
# awaits until a later message's tool releases it: it is surely still running when the approved tool's reply arrives
AWAIT_CELL = "started = time.time()\nawait asyncio.wait_for(released.wait(), 120)\nfinished = time.time()"


def test_approve_is_handled_while_another_cell_awaits(lab: Lab) -> None:
    probe = 'print("TIMES", json.dumps([started, ran_at, finished]))'
    chat = open_chat(lab, "busy.ipynb", STAMP_TOOL, AWAIT_CELL, probe)
    chat.send("Stamp it")
    card = chat.wait_pending_card()
    lab.start_cell(1)
    lab.page.wait_for_function(
        "() => [...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem')]"
        ".some(item => /\\| Busy$/.test(item.textContent.trim()))"
    )

    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("Stamped.")
    assert chat.card("success").get_attribute("data-tool-call-id") == "call_stamp"
    assert lab.cell_is_running(1)
    chat.send("Now let the cell finish")
    chat.wait_reply_containing("Released.")
    lab.wait_cell_done(1)
    started, ran_at, finished = kernel_value(lab, 2, "TIMES")
    assert started < ran_at < finished, (started, ran_at, finished)
