"""The chat behaves like it belongs in a notebook (issue 13, items 1–3): keys typed in it never reach the notebook,
Esc stops a turn from anywhere inside, the message list follows new content (and stops following when the reader
scrolls up), a pending approval is brought into view with Approve focused, the composer keeps focus and its draft."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import GATED, IDLE_ONLY_AT_TIMEOUT, ChatPage
from tests.e2e.lab import Lab, active_record, documentation_screenshot

pytestmark = pytest.mark.browser

IMPORTS = """
import json
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider
"""
APPS = ["lab", "notebook"]
"""JupyterLab and Notebook 7 (both served by the test server; their shortcut handling differs: Notebook 7 listens
for keys in the capture phase)."""
STORY = "\n\n".join(f"Paragraph {n}: " + " ".join(f"w{n}x{m}" for m in range(12)) for n in range(1, 121))


def story_chat(key: str, *, chunks: int, delay: float) -> str:
    """Cell source: a chat whose model streams STORY in `chunks` pieces, `delay` s apart."""
    return (f"provider = ScriptedProvider().text({STORY!r}, chunks={chunks}, delay={delay})\n"
            f"chat = Chat(provider, key={key!r})\nchat")


def cell_kinds(lab: Lab) -> list[str]:
    return lab.page.evaluate(
        """sel => [...document.querySelectorAll(sel)].map(cell =>
            cell.classList.contains('jp-MarkdownCell') ? 'markdown'
            : cell.classList.contains('jp-RawCell') ? 'raw' : 'code')""",
        ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell",
    )


def prompt(lab: Lab, index: int) -> str:
    return lab.cell(index).locator(".jp-InputPrompt").inner_text().strip()


def open_chat(lab: Lab, name: str, setup: str, *cells: str) -> ChatPage:
    lab.open_notebook(name, [IMPORTS + setup, *cells])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat


NEAR_BOTTOM = 100
"""px: a streaming list is measured between two frames, so the newest line may not be pinned yet; a list that does
not follow is hundreds of pixels off (the whole reply below the fold)."""


def list_geometry(chat: ChatPage) -> dict[str, float]:
    return chat.root.locator(".nbc-messages").evaluate(
        "l => ({top: l.scrollTop, height: l.scrollHeight, client: l.clientHeight,"
        " gap: l.scrollHeight - l.scrollTop - l.clientHeight})"
    )


@pytest.mark.parametrize("app", APPS)
def test_shift_enter_makes_a_new_line_and_no_key_typed_in_the_chat_reaches_the_notebook(lab: Lab, app: str) -> None:
    lab.app = app
    setup = 'provider = ScriptedProvider().text("Noted.", chunks=2)\nchat = Chat(provider, key="keys")\nchat'
    chat = open_chat(lab, "keys.ipynb", setup, "x = 1")
    kinds, count_before = cell_kinds(lab), prompt(lab, 0)
    box = chat.root.locator("[data-field=input]")
    box.click()

    lab.page.keyboard.type("first line")
    lab.page.keyboard.press("Shift+Enter")
    lab.page.keyboard.type("second mrya line")
    lab.page.keyboard.press("Enter")
    chat.wait_reply_containing("Noted.")

    assert chat.texts("user") == ["first line\nsecond mrya line"]
    assert prompt(lab, 0) == count_before, "Shift+Enter in the chat re-ran the chat's cell"
    assert cell_kinds(lab) == kinds
    # with the focus on a message (not a text box) the notebook's command-mode letters do nothing either
    chat.messages("user").first.click()
    for key in ("m", "r", "y", "a", "b", "d", "d", "Shift+Enter", "Control+Enter"):
        lab.page.keyboard.press(key)
    assert cell_kinds(lab) == kinds
    assert prompt(lab, 0) == count_before
    assert lab.cells().count() == len(kinds)
    focus_inside = lab.page.evaluate("root => root.contains(document.activeElement)", chat.root.element_handle())
    assert focus_inside


@pytest.mark.parametrize("app", APPS)
def test_escape_stops_a_streaming_reply_while_the_focus_is_on_a_message(lab: Lab, app: str) -> None:
    lab.app = app
    setup = story_chat("esc", chunks=600, delay=0.02)
    chat = open_chat(lab, "esc.ipynb", setup)
    chat.send("Tell me a long story")
    chat.root.locator(".nbc-message[data-role=assistant][data-loading=true]", has_text="Paragraph 2").wait_for()

    chat.messages("user").first.click()
    lab.page.keyboard.press("Escape")

    assert chat.wait_state("aborted") == "aborted"
    assert chat.root.locator(".nbc-status").inner_text() == "Stopped"


GATED_STORY = GATED + f"""
provider = Gated(ScriptedProvider().text({STORY!r}, chunks=400, delay=0.01), 40, 70, 100)
chat = Chat(provider, key="follow")
chat
"""


@pytest.mark.parametrize("app", APPS)
def test_the_list_follows_a_streaming_reply_pauses_when_scrolled_up_and_jump_to_latest_resumes(
    lab: Lab, app: str
) -> None:
    lab.app = app
    # the reply holds after paragraphs 40, 70 and 100 until the test lets it go on (cells 1-3), so each check runs
    # while the reply is still streaming, however slow the machine is
    chat = open_chat(lab, "follow.ipynb", GATED_STORY, *(f"provider.holds[{n}].set()" for n in (40, 70, 100)))
    chat.send("Tell me a long story")
    streaming = chat.root.locator(".nbc-message[data-role=assistant][data-loading=true][data-drawn=true]")
    streaming.filter(has_text="Paragraph 40:").wait_for()
    lab.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    following = list_geometry(chat)
    assert following["height"] > following["client"] * 1.5, following
    assert following["gap"] <= NEAR_BOTTOM, f"the streaming reply ran below the fold: {following}"
    jump = chat.root.locator("[data-action=jump-latest]")
    assert jump.is_hidden()
    if app == "lab":
        chat.root.screenshot(path=str(documentation_screenshot("screenshot-streaming.png")))

    chat.root.locator(".nbc-messages").hover()
    lab.page.mouse.wheel(0, -800)
    lab.page.wait_for_function("el => el.scrollTop < el.scrollHeight - el.clientHeight - 200",
                               arg=chat.root.locator(".nbc-messages").element_handle())
    jump.wait_for(state="visible")
    parked = list_geometry(chat)["top"]
    lab.run_cell(1)
    streaming.filter(has_text="Paragraph 70:").wait_for()
    assert abs(list_geometry(chat)["top"] - parked) < 2, "the list moved while the reader was scrolled up"

    jump.click()
    assert list_geometry(chat)["gap"] <= NEAR_BOTTOM
    assert jump.is_hidden()
    lab.run_cell(2)
    streaming.filter(has_text="Paragraph 100:").wait_for()
    lab.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert list_geometry(chat)["gap"] <= NEAR_BOTTOM, "following did not resume after Jump to latest"
    lab.run_cell(3)
    chat.wait_state("completed")


LONG_REPLY = "".join(
    f"## Part {n}\n\nParagraph {n} with **bold**, `code` and $x_{n}^2$.\n\n- item a{n}\n- item b{n}\n\n"
    f"| k | v |\n|---|---|\n| a{n} | {n} |\n\n```python\nstep_{n} = {n} * 2\n```\n\n"
    for n in range(1, 301)
) + "The last line of the reply."
"""About 40 KB of mixed markdown (more than a frame draws at once when it arrives whole), then one last line."""


def test_a_long_reply_arriving_as_fast_as_possible_is_drawn_whole_with_its_last_line_in_view(lab: Lab) -> None:
    setup = f'provider = ScriptedProvider().text({LONG_REPLY!r}, chunks=4000)\nchat = Chat(provider, key="fast")\nchat'
    chat = open_chat(lab, "fast.ipynb", setup)
    chat.send("Write it all")
    chat.wait_state("completed", timeout=60_000)
    lab.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    reply = chat.messages("assistant").last
    assert reply.locator("h2").count() == 300
    assert reply.locator("table").count() == 300
    last = reply.locator(".nbc-content > p").last
    assert last.inner_text() == "The last line of the reply."
    box = chat.root.locator(".nbc-messages").evaluate(
        "(l, last) => { const list = l.getBoundingClientRect(), line = last.getBoundingClientRect();"
        " return { gap: l.scrollHeight - l.scrollTop - l.clientHeight, top: line.top - list.top,"
        " bottom: list.bottom - line.bottom }; }",
        last.element_handle(),
    )
    assert box["gap"] <= 2, f"the list is not at its bottom: {box}"
    assert box["top"] >= 0, f"the last line is above the view: {box}"
    assert box["bottom"] >= 0, f"the last line is below the view: {box}"


@pytest.mark.parametrize("app", APPS)
def test_a_chat_shown_again_opens_at_its_latest_message(lab: Lab, app: str) -> None:
    lab.app = app
    setup = f'provider = ScriptedProvider().text({STORY!r}, chunks=5)\nchat = Chat(provider, key="reopen")\nchat'
    chat = open_chat(lab, "reopen.ipynb", setup, "chat")
    chat.send("Tell me a long story")
    chat.wait_reply_containing("Paragraph 120")

    lab.run_cell(1)
    again = ChatPage(lab, cell=1)
    again.wait_reply_containing("Paragraph 120")
    lab.page.wait_for_function(
        "l => l.scrollHeight > l.clientHeight && l.scrollHeight - l.scrollTop - l.clientHeight <= 30",
        arg=again.root.locator(".nbc-messages").element_handle(),
    )
    assert again.root.locator(".nbc-messages").evaluate("l => l.scrollTop") > 0


PENDING_SETUP = f'''
@tool(approval=True)
def publish(target: str) -> str:
    """Publish the report."""
    return f"published to {{target}}"

provider = (ScriptedProvider().text({STORY!r}, chunks=3)
            .tool_calls([{{"name": "publish", "arguments": {{"target": "web"}}, "id": "call_pub"}}]))
chat = Chat(provider, tools=[publish], key="pending")
chat
'''


@pytest.mark.parametrize("app", APPS)
def test_a_pending_approval_is_scrolled_into_view_and_its_approve_button_has_the_focus(lab: Lab, app: str) -> None:
    lab.app = app
    chat = open_chat(lab, "pending.ipynb", PENDING_SETUP)
    chat.send("Tell me a story")
    chat.wait_reply_containing("Paragraph 120")
    chat.root.locator("[data-field=input]").fill("Now publish it")
    chat.root.locator("[data-action=send]").click()

    card = chat.wait_pending_card()
    approve = card.locator("[data-action=approve]")
    lab.page.wait_for_function("el => document.activeElement === el", arg=approve.element_handle())
    inside = chat.root.locator(".nbc-messages").evaluate(
        """(l, el) => { const a = l.getBoundingClientRect(), b = el.getBoundingClientRect();
                        return b.top >= a.top - 1 && b.bottom <= a.bottom + 1; }""",
        approve.element_handle(),
    )
    assert inside, "the Approve button is outside the visible part of the list"
    lab.page.keyboard.press("Enter")
    chat.wait_state("completed", "idle", "error")
    assert chat.card("success").get_attribute("data-tool-call-id") == "call_pub"


def test_the_composer_keeps_focus_takes_the_next_message_while_a_reply_streams_and_sends_it_after(lab: Lab) -> None:
    setup = (f'provider = ScriptedProvider().text({STORY!r}, chunks=200, delay=0.02).text("Second answer.")\n'
             'chat = Chat(provider, key="focus")\nchat')
    chat = open_chat(lab, "focus.ipynb", setup)
    box = chat.root.locator("[data-field=input]")
    box.click()
    lab.page.keyboard.type("First question")
    lab.page.keyboard.press("Enter")
    chat.root.locator(".nbc-message[data-role=assistant][data-loading=true]").wait_for()

    assert box.evaluate("el => document.activeElement === el"), "the composer lost focus after sending"
    lab.page.keyboard.type("Second question")
    send = chat.root.locator("[data-action=send]")
    assert box.input_value() == "Second question"
    assert send.is_disabled()
    assert send.inner_text() == "Sends after the reply"
    lab.page.keyboard.press("Enter")  # too early: nothing is lost, nothing is sent
    assert box.input_value() == "Second question"

    chat.wait_state("completed")
    assert send.inner_text() == "Send"
    lab.page.keyboard.press("Enter")
    chat.wait_reply_containing("Second answer.")
    assert chat.texts("user") == ["First question", "Second question"]
    assert box.evaluate("el => document.activeElement === el")


def test_a_draft_survives_the_chat_being_drawn_again(lab: Lab) -> None:
    setup = 'chat = Chat(ScriptedProvider(), key="draft")'
    lab.open_notebook("draft.ipynb", [IMPORTS + setup, "chat"])
    lab.run_cells(0, 1)
    first = ChatPage(lab, cell=1)
    first.wait_ready()
    first.root.locator("[data-field=input]").click()
    lab.page.keyboard.type("half a thought")

    lab.run_cell(1)
    again = ChatPage(lab, cell=1)
    again.wait_ready()
    assert again.root.locator("[data-field=input]").input_value() == "half a thought"


def test_ctrl_s_typed_in_the_chat_still_saves_the_notebook(lab: Lab) -> None:
    setup = 'provider = ScriptedProvider().text("Saved reply.")\nchat = Chat(provider, key="save")\nchat'
    chat = open_chat(lab, "save.ipynb", setup)
    chat.root.locator("[data-field=input]").click()
    lab.page.keyboard.type("Keep this")
    lab.page.keyboard.press("Enter")
    chat.wait_reply_containing("Saved reply.")
    assert chat.root.locator("[data-field=input]").evaluate("el => document.activeElement === el")

    lab.save()  # presses Ctrl+S where the focus is: in the chat's composer

    stored = active_record(lab.read_notebook_from_disk()["metadata"]["notebook_chat"], "save")
    assert [m["content"] for m in stored["messages"] if m["role"] == "user"] == ["Keep this"]


# Ctrl+S in the composer in the same task that draws the finished reply `text` (the user's fastest possible press).
SAVE_THE_MOMENT_IT_IS_DRAWN = """([root, text]) => new MutationObserver((_, observer) => {
    const reply = [...root.querySelectorAll('.nbc-message[data-role=assistant][data-loading=false][data-drawn=true]')]
        .find((message) => message.textContent.includes(text));
    if (!reply) return;
    observer.disconnect();
    root.querySelector('[data-field=input]').dispatchEvent(
        new KeyboardEvent('keydown', {key: 's', ctrlKey: true, bubbles: true, cancelable: true}));
}).observe(root, {subtree: true, childList: true, attributes: true, characterData: true})"""


def test_ctrl_s_pressed_the_moment_a_reply_is_drawn_saves_that_reply_and_leaves_the_tab_clean(lab: Lab) -> None:
    setup = 'provider = ScriptedProvider().text("Saved at once.")\nchat = Chat(provider, key="save-now")\nchat'
    chat = open_chat(lab, "save_now.ipynb", setup)
    before = lab.file_mtime()
    lab.page.evaluate(IDLE_ONLY_AT_TIMEOUT)
    lab.page.evaluate(SAVE_THE_MOMENT_IT_IS_DRAWN, [chat.root.element_handle(), "Saved at once."])
    chat.send("Keep this too")

    lab.wait_saved(before)  # and the tab is clean: no write of the turn came after the save

    stored = active_record(lab.read_notebook_from_disk()["metadata"]["notebook_chat"], "save-now")
    assert [(m["role"], m["content"]) for m in stored["messages"]] == [
        ("user", "Keep this too"), ("assistant", "Saved at once.")]
