"""The chat from the keyboard alone (issue 15, items 2 and 3): Tab walks every control in reading order, a whole
approval flow (deny with a reason, then approve) needs no mouse, "?" lists the shortcuts, and the composer's slash
menu opens on "/", filters as you type, chooses with the arrow keys and Enter, closes with Esc; commands report in
the status line, never as chat messages, and an unknown one says so."""

from __future__ import annotations

import pytest

from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab

pytestmark = pytest.mark.browser

IMPORTS = """
import json
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider
"""
PUBLISH = '''
published = []

@tool(approval=True)
def publish(target: str) -> str:
    """Publish the report."""
    published.append(target)
    return f"published to {target}"
'''
STORY = "\n\n".join(f"Paragraph {n}: " + "word " * 20 for n in range(1, 200))


def open_chat(lab: Lab, name: str, setup: str, *cells: str) -> ChatPage:
    lab.open_notebook(name, [IMPORTS + setup, *cells])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat


def focused(lab: Lab) -> dict[str, str | None]:
    """What has the keyboard focus: its data-action / data-field, or its tag."""
    return lab.page.evaluate(
        """() => { const el = document.activeElement;
                   return {action: el?.dataset?.action ?? null, field: el?.dataset?.field ?? null,
                           tag: el?.tagName ?? null, cls: String(el?.className ?? "")}; }"""
    )


def wait_focus(lab: Lab, selector: str) -> None:
    try:
        lab.page.wait_for_function("sel => document.activeElement?.matches(sel)", arg=selector, timeout=10_000)
    except Exception as error:
        raise AssertionError(f"the focus is on {focused(lab)}, not {selector}") from error


def test_a_whole_approval_flow_works_with_the_keyboard_alone(lab: Lab) -> None:
    setup = PUBLISH + '''
provider = (ScriptedProvider()
            .tool_calls([{"name": "publish", "arguments": {"target": "web"}, "id": "call_web"}])
            .text("Not published, as you asked.")
            .tool_calls([{"name": "publish", "arguments": {"target": "print"}, "id": "call_print"}])
            .text("Published to print."))
chat = Chat(provider, tools=[publish], key="keyboard")
chat
'''
    chat = open_chat(lab, "keyboard.ipynb", setup, 'print("PUBLISHED", json.dumps(published))')
    keyboard = lab.page.keyboard
    chat.root.locator("[data-field=input]").focus()
    keyboard.type("Publish to the web")
    keyboard.press("Enter")

    chat.wait_pending_card()
    wait_focus(lab, "[data-action=approve]")
    keyboard.press("Tab")
    assert focused(lab)["action"] == "deny"
    keyboard.press("Enter")
    assert focused(lab)["field"] == "deny-reason"
    keyboard.type("not the web")
    keyboard.press("Enter")
    chat.wait_reply_containing("Not published, as you asked.")
    assert chat.card("denied").get_attribute("data-tool-call-id") == "call_web"
    wait_focus(lab, "[data-field=input]")

    keyboard.type("Then print it")
    keyboard.press("Enter")
    chat.root.locator(".nbc-tool[data-tool-call-id=call_print][data-status=awaiting-approval]").wait_for()
    wait_focus(lab, ".nbc-tool[data-tool-call-id=call_print] [data-action=approve]")
    keyboard.press("Space")
    chat.wait_reply_containing("Published to print.")
    wait_focus(lab, "[data-field=input]")
    assert kernel_value(lab, 1, "PUBLISHED") == ["print"]


def test_tab_reaches_every_control_of_the_widget_in_reading_order(lab: Lab) -> None:
    setup = PUBLISH + '''
provider = (ScriptedProvider().text("```python\\nprint(1)\\n```\\nDone.")
            .tool_calls([{"name": "publish", "arguments": {"target": "web"}, "id": "call_web"}]))
chat = Chat(provider, tools=[publish], key="tabs")
chat
'''
    chat = open_chat(lab, "tabs.ipynb", setup)
    chat.send("Show code")
    chat.wait_reply_containing("Done.")
    chat.send("Publish")
    chat.wait_pending_card()
    wait_focus(lab, "[data-action=approve]")

    controls = """root => [...root.querySelectorAll('button, textarea, input, [tabindex="0"], summary')]
            .filter(el => !el.disabled && el.getClientRects().length > 0)"""
    expected = chat.root.evaluate(
        f"{controls}.map(el => el.dataset.action ?? el.dataset.field ?? el.className)")
    chat.root.evaluate(f"root => ({controls})(root)[0].focus()")  # the first control: the conversations header
    reached = []
    for _ in range(len(expected) + 3):
        inside = chat.root.evaluate("root => root.contains(document.activeElement)")
        if not inside:
            break
        reached.append(chat.root.evaluate(
            "() => { const el = document.activeElement;"
            " return el.dataset.action ?? el.dataset.field ?? el.className; }"))
        lab.page.keyboard.press("Tab")
    assert reached == expected
    assert {"approve", "deny", "arguments", "input", "copy-code", "help"} <= set(reached)


def test_the_help_button_lists_the_keyboard_shortcuts_and_the_commands(lab: Lab) -> None:
    chat = open_chat(lab, "help.ipynb", 'chat = Chat(ScriptedProvider(), key="help")\nchat')
    help_button = chat.root.get_by_role("button", name="Keyboard shortcuts")
    assert help_button.get_attribute("aria-expanded") == "false"
    help_button.focus()
    lab.page.keyboard.press("Enter")

    panel = chat.root.get_by_role("region", name="Keyboard shortcuts and commands")
    panel.wait_for()
    assert help_button.get_attribute("aria-expanded") == "true"
    keys = panel.locator("dt").all_inner_texts()
    assert {"Enter", "Shift+Enter", "Esc", "/", "/help", "/stop"} <= set(keys)
    assert "/continue" not in keys  # not offered: no turn was interrupted
    lab.page.keyboard.press("Enter")
    assert panel.is_hidden()


def options(chat: ChatPage) -> list[str]:
    return [text.split(" ")[0] for text in chat.root.locator(
        ".nbc-slash-menu [role=option] .nbc-listbox-label").all_inner_texts()]


def test_the_slash_menu_filters_as_you_type_chooses_with_arrows_and_enter_and_closes_with_escape(lab: Lab) -> None:
    chat = open_chat(lab, "menu.ipynb", 'chat = Chat(ScriptedProvider(), key="menu")\nchat')
    box = chat.root.locator("[data-field=input]")
    box.focus()
    keyboard = lab.page.keyboard
    keyboard.type("/")
    menu = chat.root.get_by_role("listbox", name="Commands")
    menu.wait_for()
    listed = options(chat)
    assert {"/stop", "/help", "/retry"} <= set(listed)
    assert "/continue" not in listed

    keyboard.type("s")
    assert options(chat) == ["/stop"]
    keyboard.press("Escape")
    assert menu.is_hidden()
    assert box.input_value() == "/s"
    assert chat.root.get_attribute("data-state") == "idle"

    keyboard.press("Backspace")
    keyboard.press("Backspace")
    keyboard.type("/")
    menu.wait_for()
    position = options(chat).index("/help")
    for _ in range(position):
        keyboard.press("ArrowDown")
    active = box.get_attribute("aria-activedescendant")
    assert chat.root.locator(f"[id='{active}']").get_attribute("aria-selected") == "true"
    assert chat.root.locator(f"[id='{active}']").inner_text().startswith("/help")
    keyboard.press("Enter")

    chat.root.get_by_role("region", name="Keyboard shortcuts and commands").wait_for()
    assert "keyboard shortcuts are shown" in chat.root.locator(".nbc-status").inner_text()
    assert box.input_value() == ""
    assert chat.messages("user").count() == 0


def test_slash_commands_stop_and_continue_a_turn_report_in_the_status_line_and_unknown_ones_say_so(lab: Lab) -> None:
    setup = (f'provider = ScriptedProvider().text({STORY!r}, chunks=400, delay=0.03).text("Continued briefly.")\n'
             'chat = Chat(provider, key="commands")\nchat')
    chat = open_chat(lab, "commands.ipynb", setup,
                     'print("LAST", json.dumps(provider.requests[-1]["messages"][-1]["content"]))')
    box = chat.root.locator("[data-field=input]")
    status = chat.root.locator(".nbc-status")
    chat.send("Tell me a story")
    chat.root.locator(".nbc-message[data-role=assistant][data-loading=true]", has_text="Paragraph 2").wait_for()

    box.fill("/continue be brief")
    box.press("Enter")
    assert "A turn is running: /continue" in status.inner_text()
    box.fill("/stop")
    box.press("Enter")
    chat.wait_state("aborted")

    box.fill("/frobnicate now")
    box.press("Enter")
    assert "Unknown command /frobnicate" in status.inner_text()
    assert box.input_value() == "/frobnicate now", "an unknown command is kept for correcting"

    box.fill("/")
    assert "/continue" in options(chat)
    box.fill("/continue be brief")
    box.press("Enter")
    chat.wait_reply_containing("Continued briefly.")
    assert chat.texts("user") == ["Tell me a story"], "a command became a chat message"
    assert "be brief" in kernel_value(lab, 1, "LAST")


def test_slash_new_starts_a_conversation_and_slash_clear_empties_it_reporting_in_the_status_line(lab: Lab) -> None:
    setup = ('provider = ScriptedProvider().text("First reply.").text("Second reply.")\n'
             'chat = Chat(provider, key="slash-new")\nchat')
    chat = open_chat(lab, "slash_new.ipynb", setup,
                     'print("CONVS", json.dumps([chat.conversation_id, [c["id"] for c in chat.conversations], '
                     '[m["content"] for m in chat.messages if m["role"] != "system"]]))')
    box = chat.root.locator("[data-field=input]")
    status = chat.root.locator(".nbc-status")
    chat.send("Keep me")
    chat.wait_reply_containing("First reply.")
    chat.wait_state("completed")

    box.fill("/")
    assert {"/new", "/clear"} <= set(options(chat))
    box.fill("/new")
    box.press("Enter")
    assert "Starting a new conversation" in status.inner_text()
    chat.messages("user").first.wait_for(state="detached")
    active, ids, messages = kernel_value(lab, 1, "CONVS")
    assert ids == ["main", active]
    assert messages == []
    assert box.input_value() == ""

    chat.send("Then this")
    chat.wait_reply_containing("Second reply.")
    chat.wait_state("completed")
    box.fill("/clear")
    box.press("Enter")
    assert "Clearing the conversation" in status.inner_text()
    chat.messages("user").first.wait_for(state="detached")
    assert kernel_value(lab, 1, "CONVS") == [active, ["main", active], []]
    assert chat.texts("user") == [], "a command became a chat message"


NOTES_PLUGIN = '''
from notebook_chat.engine import Plugin, UserCommand

class Notes(Plugin):
    name = "notes"
    kept = []

    def user_commands(self):
        return {"note": UserCommand("Keep a note for later", self.note)}

    async def note(self, argument):
        self.kept.append(argument)
        return f"Kept the note: {argument}"

notes = Notes()
'''


def test_a_plugins_command_is_chosen_from_the_slash_menu_with_the_keyboard_and_reports_in_the_status_line(
        lab: Lab) -> None:
    setup = NOTES_PLUGIN + 'chat = Chat(ScriptedProvider(), plugins=[notes], key="plugin-commands")\nchat'
    chat = open_chat(lab, "plugin_commands.ipynb", setup, 'print("KEPT", json.dumps(notes.kept))')
    box = chat.root.locator("[data-field=input]")
    box.focus()
    keyboard = lab.page.keyboard
    keyboard.type("/")
    menu = chat.root.get_by_role("listbox", name="Commands")
    menu.wait_for()
    assert "/note" in options(chat)
    assert "Keep a note for later" in menu.inner_text()
    for _ in range(options(chat).index("/note")):
        keyboard.press("ArrowDown")
    keyboard.press("Enter")
    assert box.input_value() == "/note ", "a plugin's command waits for its text"
    keyboard.type("buy milk")
    keyboard.press("Enter")

    status = chat.root.locator(".nbc-status")
    status.filter(has_text="Kept the note: buy milk").wait_for()
    assert box.input_value() == ""
    assert chat.messages("user").count() == 0
    assert chat.messages("assistant").count() == 0
    assert kernel_value(lab, 1, "KEPT") == ["buy milk"]

    box.fill("/nothere")
    box.press("Enter")
    assert "Unknown command /nothere" in status.inner_text()


def test_a_slash_menu_opened_before_the_kernels_first_view_arrives_offers_the_plugins_commands_once_it_does(
        lab: Lab) -> None:
    release = lab.server.root / lab.folder / "release-the-kernel"
    setup = NOTES_PLUGIN + f'''
import os, time
from IPython.display import display
chat = Chat(ScriptedProvider(), plugins=[notes], key="early-menu")
display(chat)
while not os.path.exists({str(release)!r}):  # the kernel is busy: the view's first request waits
    time.sleep(0.02)
'''
    lab.open_notebook("early_menu.ipynb", [IMPORTS + setup])
    lab.start_cell(0)
    chat = ChatPage(lab)
    box = chat.root.locator("[data-field=input]")
    box.wait_for()
    assert chat.root.get_attribute("data-synced") is None, "the kernel answered while its cell was still running"
    box.focus()
    lab.page.keyboard.type("/")
    chat.root.get_by_role("listbox", name="Commands").wait_for()
    assert "/note" not in options(chat)
    release.touch()
    chat.root.locator(".nbc-slash-menu [role=option]", has_text="/note").wait_for()
    assert options(chat)[-1] == "/note"
    assert box.input_value() == "/", "the refresh kept what the user typed"
    lab.wait_cell_done(0)
