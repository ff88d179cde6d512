"""Without a kernel (issue 13, item 5): a notebook opened without running its cells shows each stored conversation
read-only instead of "Error displaying widget: model not found", and the saved output carries a readable transcript
(text/plain and escaped text/html) that is kept current at turn ends, for GitHub and nbviewer."""

from __future__ import annotations

import json

import pytest

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab, documentation_screenshot, notebook_json

pytestmark = pytest.mark.browser

SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
provider = ScriptedProvider().text("Paris is the capital of France.").text("Lyon is <b>second</b>.")
chat = Chat(provider, key="kernel-less")
chat
"""
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
READ_ONLY = ".notebook-chat-read-only"


def joined(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


def chat_output(lab: Lab) -> dict[str, str]:
    [output] = [o for o in lab.read_notebook_from_disk()["cells"][0]["outputs"] if WIDGET_MIME in o.get("data", {})]
    return {mime: joined(value) for mime, value in output["data"].items() if mime.startswith("text/")}


def talk_and_save(lab: Lab) -> ChatPage:
    lab.open_notebook("kernel-less.ipynb", [SETUP])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    for question, answer in (("Capital of France?", "Paris is the capital"), ("And the second city?", "second")):
        chat.send(question)
        chat.wait_reply_containing(answer)
        chat.wait_state("completed")
    lab.page.wait_for_function("el => Number(el.dataset.fallbacks ?? 0) >= 2", arg=chat.root.element_handle())
    lab.save()
    return chat


def reopen_without_running(lab: Lab) -> None:
    """Shut the kernel down, load the page again: a new kernel starts, but no cell runs."""
    lab.shutdown_kernels()
    path = lab.path
    if lab.app == "notebook":
        lab.page.goto(f"{lab.server.url}/notebooks/{path}?token={lab.server.token}")
    else:
        lab.page.goto(f"{lab.server.url}/lab/tree/{path}?token={lab.server.token}&reset")
    lab.wait_for_cell_count(1)
    lab.wait_idle()


def test_the_saved_output_carries_the_latest_turns_as_text_and_escaped_html(lab: Lab) -> None:
    talk_and_save(lab)
    data = chat_output(lab)

    assert "object at 0x" not in data["text/plain"]
    assert "And the second city?" in data["text/plain"]  # the second turn: refreshed at its end, not at display
    assert "Lyon is <b>second</b>." in data["text/plain"]
    assert "Lyon is &lt;b&gt;second&lt;/b&gt;." in data["text/html"]
    assert "<b>" not in data["text/html"]


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_a_notebook_opened_without_running_its_cells_shows_the_conversation_read_only(lab: Lab, app: str) -> None:
    lab.app = app
    talk_and_save(lab)
    reopen_without_running(lab)

    view = lab.cell(0).locator(READ_ONLY)
    view.wait_for(state="visible")
    text = view.inner_text()
    assert "Run this cell to continue" in text
    for line in ("Capital of France?", "Paris is the capital of France.", "And the second city?",
                 "Lyon is <b>second</b>."):
        assert line in text
    assert view.locator("b").count() == 0  # the model's markup stays text
    assert "model not found" not in lab.output_text(0)
    if app == "lab":
        lab.cell(0).screenshot(path=str(documentation_screenshot("screenshot-kernel-less.png")))


def test_running_the_cell_again_replaces_the_read_only_view_with_the_live_chat(lab: Lab) -> None:
    talk_and_save(lab)
    reopen_without_running(lab)
    lab.cell(0).locator(READ_ONLY).wait_for(state="visible")

    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_reply_containing("Lyon is")
    assert chat.texts("user") == ["Capital of France?", "And the second city?"]
    assert lab.cell(0).locator(READ_ONLY).count() == 0


HOSTILE = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>'


def stored_conversation(question: str, answer: str, **fields: object) -> dict[str, object]:
    return {"messages": [{"id": f"u-{question}", "role": "user", "content": question},
                         {"id": f"a-{question}", "role": "assistant", "content": answer}],
            "turns": [], "paused_turn": None, "updated_at": "2026-12-01T12:00:00Z", **fields}


def notebook_with_a_stored_chat(lab: Lab, name: str, entry: dict[str, object], *, version: int) -> str:
    """A saved notebook whose one cell showed a chat (its widget model is gone) and whose metadata holds `entry`."""
    notebook = notebook_json(["chat"], {"notebook_chat": {"version": version, "conversations": {"stored": entry}}})
    notebook["cells"][0]["outputs"] = [{
        "output_type": "display_data", "metadata": {"notebook_chat": {"key": "stored"}},
        "data": {WIDGET_MIME: {"model_id": "0" * 32, "version_major": 2, "version_minor": 1},
                 "text/plain": "Chat"}}]
    path = f"{lab.folder}/{name}"
    (lab.server.root / path).write_text(json.dumps(notebook))
    lab.path = path
    if lab.app == "notebook":
        lab.page.goto(f"{lab.server.url}/notebooks/{path}?token={lab.server.token}")
    else:
        lab.page.goto(f"{lab.server.url}/lab/tree/{path}?token={lab.server.token}&reset")
    lab.wait_for_cell_count(1)
    return path


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_every_conversation_of_a_version_2_entry_is_drawn_read_only(lab: Lab, app: str) -> None:
    lab.app = app
    entry = {"version": 2, "active": "c2", "items": {
        "main": stored_conversation("First question?", "First answer.", title="Trip planning"),
        "c2": stored_conversation("Second question?", "Second answer " + HOSTILE)}}
    notebook_with_a_stored_chat(lab, f"v2-{app}.ipynb", entry, version=2)

    view = lab.cell(0).locator(READ_ONLY)
    view.wait_for(state="visible")
    sections = view.locator(".notebook-chat-read-only-conversation")
    assert sections.count() == 2
    assert [sections.nth(i).get_attribute("data-conversation-id") for i in range(2)] == ["main", "c2"]
    first, second = sections.nth(0).inner_text(), sections.nth(1).inner_text()
    for line in ("Trip planning", "First question?", "First answer."):
        assert line in first
    for line in ("Second question?", "Second answer", "(active)"):
        assert line in second
    assert "2 conversations" in view.inner_text()
    assert HOSTILE in second  # the stored markup is shown as text
    assert view.locator("img, script").count() == 0
    assert lab.page.evaluate("() => window.__pwned") is None


def test_a_version_1_record_is_drawn_as_the_one_conversation(lab: Lab) -> None:
    notebook_with_a_stored_chat(lab, "v1.ipynb", stored_conversation("Old question?", "Old answer."), version=1)

    view = lab.cell(0).locator(READ_ONLY)
    view.wait_for(state="visible")
    assert view.locator(".notebook-chat-read-only-conversation").count() == 1
    text = view.inner_text()
    assert "Old question?" in text
    assert "Old answer." in text
    assert "(active)" not in text


V2_SETUP = """
from notebook_chat import Chat
from notebook_chat.testing import ScriptedProvider
provider = ScriptedProvider().text("Paris is the capital of France.").text("Tokyo is the capital of Japan.")
chat = Chat(provider, key="many")
chat
"""


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_each_conversation_a_chat_stored_is_drawn_read_only_after_reopening(lab: Lab, app: str) -> None:
    lab.app = app
    lab.open_notebook(f"many-{app}.ipynb", [V2_SETUP, "chat.new_conversation('Second trip')"])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    chat.send("Capital of France?")
    chat.wait_reply_containing("Paris is the capital")
    chat.wait_state("completed")
    lab.run_cell(1)
    chat.send("Capital of Japan?")
    chat.wait_reply_containing("Tokyo is the capital")
    chat.wait_state("completed")
    lab.save()
    reopen_without_running(lab)

    view = lab.cell(0).locator(READ_ONLY)
    view.wait_for(state="visible")
    sections = view.locator(".notebook-chat-read-only-conversation")
    assert sections.count() == 2
    texts = [sections.nth(i).inner_text() for i in range(2)]
    [first] = [text for text in texts if "Capital of France?" in text]
    [second] = [text for text in texts if "Capital of Japan?" in text]
    assert "Paris is the capital of France." in first
    assert "(active)" not in first
    assert "Second trip (active)" in second
    assert "Tokyo is the capital of Japan." in second
