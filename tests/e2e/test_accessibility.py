"""The chat for keyboard and screen-reader users (issue 15, item 1): axe-core finds no serious or critical problem
in any state of the widget (empty, streaming, stopped with Continue offered, pending approval, error) in the light
and the dark theme; the list is an ARIA log whose finished replies are announced once; a new pending approval takes
the focus unless the user is writing in the composer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.axe import axe_violations, blocking, write_summary
from tests.e2e.chat_page import GATED, ChatPage
from tests.e2e.lab import Lab, documentation_screenshot

pytestmark = pytest.mark.browser

IMPORTS = """
from notebook_chat import Chat, tool
from notebook_chat.testing import ScriptedProvider
"""
STORY = "```python\nprint('hello')\n```\n\n" + "\n\n".join(f"Paragraph {n}: " + "word " * 20 for n in range(1, 80))
# the story holds after paragraph 3 (see GATED) until Stop: each test checks it while it streams
STATES_SETUP = GATED + f'''
@tool(approval=True)
def publish(target: str) -> str:
    """Publish the report."""
    return f"published to {{target}}"

provider = Gated(ScriptedProvider()
                 .text({STORY!r}, chunks=400, delay=0.01)
                 .tool_calls([{{"name": "publish", "arguments": {{"target": "web"}}, "id": "call_pub"}}])
                 .text("Published.")
                 .failure(RuntimeError("the model server is down")), 3)
chat = Chat(provider, tools=[publish], key="a11y")
chat
'''
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def open_chat(lab: Lab, name: str, setup: str, *cells: str) -> ChatPage:
    lab.open_notebook(name, [IMPORTS + setup, *cells])
    lab.run_cell(0)
    chat = ChatPage(lab)
    chat.wait_ready()
    return chat


def set_theme(lab: Lab, theme: str) -> None:
    lab.page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme)
    lab.page.wait_for_function("theme => document.body.dataset.jpThemeName === theme", arg=theme)


@pytest.fixture
def themed(lab: Lab, request: pytest.FixtureRequest) -> Iterator[Lab]:
    """The page in the theme named by the test's `theme` parameter; light again afterwards (the setting is the
    server's, shared by later tests)."""
    theme = THEMES[request.node.callspec.params["theme"]]
    lab.open_notebook("theme.ipynb", ["1"])
    set_theme(lab, theme)
    try:
        yield lab
    finally:
        set_theme(lab, THEMES["light"])


def assert_accessible(lab: Lab, chat: ChatPage, label: str) -> None:
    found = blocking(axe_violations(lab, chat.root, label))
    assert found == [], f"axe in state {label!r}: {found}"


@pytest.mark.parametrize("theme", list(THEMES))
def test_axe_finds_no_serious_problem_in_any_state_of_the_widget(themed: Lab, theme: str) -> None:
    lab = themed
    chat = open_chat(lab, f"axe-{theme}.ipynb", STATES_SETUP)
    try:
        assert_accessible(lab, chat, f"{theme}: empty")
        box = chat.root.locator("[data-field=input]")
        chat.root.locator("[data-action=help]").click()
        chat.root.locator(".nbc-help:not([hidden])").wait_for()
        box.fill("/")
        chat.root.get_by_role("listbox", name="Commands").wait_for()
        assert_accessible(lab, chat, f"{theme}: command menu and shortcut list open")
        box.fill("")

        chat.send("Tell me a story")
        streaming = chat.root.locator(".nbc-message[data-role=assistant][aria-busy=true]")
        streaming.filter(has_text="Paragraph 3").wait_for()
        assert_accessible(lab, chat, f"{theme}: streaming")
        chat.root.locator("[data-action=stop]").click()
        chat.wait_state("aborted")
        chat.root.locator(".nbc-continue:not([hidden])").wait_for()
        assert_accessible(lab, chat, f"{theme}: stopped, continue offered")

        chat.send("Publish it")
        card = chat.wait_pending_card()
        assert_accessible(lab, chat, f"{theme}: pending approval")
        card.locator("[data-action=approve]").click()
        chat.wait_reply_containing("Published.")
        chat.wait_state("completed")

        chat.send("Once more")
        chat.wait_state("error")
        assert_accessible(lab, chat, f"{theme}: error")
    finally:
        write_summary(lab.artifacts / "axe-summary.json")


def test_the_message_list_is_a_labelled_log_and_the_controls_have_names(lab: Lab) -> None:
    chat = open_chat(lab, "names.ipynb", STATES_SETUP)
    chat.send("Tell me a story")
    chat.root.locator(".nbc-message[data-role=assistant]", has_text="Paragraph 3").wait_for()
    chat.root.locator("[data-action=stop]").click()
    chat.wait_state("aborted")

    page = lab.page
    log = chat.root.get_by_role("log", name="Conversation")
    assert log.count() == 1
    assert chat.root.get_by_role("textbox", name="Message", exact=True).count() == 1
    assert chat.root.get_by_role("button", name="Continue", exact=True).count() == 1
    assert chat.root.get_by_role("textbox", name="Continue instruction").count() == 1
    assert chat.root.get_by_role("button", name="Copy python code").count() == 1
    assert chat.root.get_by_role("status").filter(has_text="Stopped").count() == 1
    assert page.get_by_role("article", name="Assistant").count() >= 1

    chat.send("Publish it")
    chat.wait_pending_card()
    group = chat.root.get_by_role("group", name="Tool call publish: awaiting approval")
    assert group.count() == 1
    assert group.get_by_role("button", name="Approve").count() == 1
    group.get_by_role("button", name="Deny", exact=True).click()
    assert group.get_by_role("textbox", name="Deny reason").count() == 1


def test_a_finished_reply_is_announced_once_and_not_while_it_streams(lab: Lab) -> None:
    setup = GATED + (f'provider = Gated(ScriptedProvider().text({STORY!r}, chunks=200, delay=0.01), 3)\n'
                     'chat = Chat(provider, key="say")\nchat')
    chat = open_chat(lab, "announce.ipynb", setup, "provider.holds[3].set()")  # the reply holds after paragraph 3
    announcer = chat.root.locator("[data-field=announcer]")
    announcer.evaluate(
        """el => { window.__said = [];
                   new MutationObserver(() => { if (el.textContent) window.__said.push(el.textContent); })
                       .observe(el, {childList: true, characterData: true, subtree: true}); }"""
    )
    assert announcer.get_attribute("aria-live") == "polite"
    assert chat.root.locator(".nbc-messages").get_attribute("aria-live") == "off"

    chat.send("Tell me a story")
    busy = chat.root.locator(".nbc-message[data-role=assistant][aria-busy=true]")
    busy.filter(has_text="Paragraph 2").wait_for()
    assert lab.page.evaluate("window.__said") == []
    lab.run_cell(1)
    chat.wait_state("completed")
    lab.page.wait_for_function("() => window.__said.length > 0")

    said = lab.page.evaluate("window.__said")
    assert len(said) == 1, said
    assert said[0].startswith("Reply: print('hello')")
    assert "```" not in said[0]
    assert chat.root.locator(".nbc-message[aria-busy]").count() == 0


PENDING_SETUP = '''
@tool(approval=True)
def publish(target: str) -> str:
    """Publish the report."""
    return f"published to {target}"

provider = (ScriptedProvider().text("Ready.")
            .tool_calls([{"name": "publish", "arguments": {"target": "web"}, "id": "call_pub"}], delay=0.5))
chat = Chat(provider, tools=[publish], key="typing")
chat
'''


def test_a_new_pending_approval_does_not_take_the_focus_from_a_draft_in_the_composer(lab: Lab) -> None:
    chat = open_chat(lab, "typing.ipynb", PENDING_SETUP)
    chat.send("Hello")
    chat.wait_reply_containing("Ready.")
    box = chat.root.locator("[data-field=input]")
    box.fill("Publish it")
    box.press("Enter")
    box.press_sequentially("and then a second thought")

    card = chat.wait_pending_card()
    chat.wait_state("paused")
    lab.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert box.evaluate("el => document.activeElement === el"), "the pending approval took the focus"
    assert box.input_value() == "and then a second thought"
    assert card.locator("[data-action=approve]").is_visible()
    assert chat.root.locator(".nbc-status").inner_text() == "Waiting for approval"


ZH_SETUP = '''
@tool(approval=True)
def publish(target: str) -> str:
    """Publish the report."""
    return f"published to {target}"

provider = (ScriptedProvider().text("```python\\nprint('你好')\\n```\\n报告已准备好。")
            .tool_calls([{"name": "publish", "arguments": {"target": "web"}, "id": "call_pub"}]))
chat = Chat(provider, tools=[publish], key="zh", locale="zh-CN")
chat
'''


def test_chat_locale_zh_cn_draws_the_widget_in_chinese_with_chinese_accessible_names(lab: Lab) -> None:
    chat = open_chat(lab, "zh.ipynb", ZH_SETUP)
    chat.send("准备报告")
    chat.wait_reply_containing("报告已准备好。")
    chat.send("发布")
    chat.wait_pending_card()
    chat.wait_state("paused")

    root = chat.root
    assert root.get_by_role("textbox", name="消息", exact=True).get_attribute("placeholder") == (
        "输入消息（Enter 发送，Shift+Enter 换行，Esc 停止）")
    assert root.get_by_role("log", name="对话").count() == 1
    assert root.get_by_role("button", name="复制 python 代码").count() == 1
    group = root.get_by_role("group", name="工具调用 publish：等待批准")
    assert group.get_by_role("button", name="批准").count() == 1
    assert group.get_by_role("button", name="拒绝", exact=True).count() == 1
    assert root.locator(".nbc-status").inner_text() == "等待批准"
    assert root.locator("[data-action=send]").inner_text() == "请先处理工具调用"
    assert blocking(axe_violations(lab, root, "zh-CN: pending approval")) == []
    root.locator("[data-field=input]").fill("/")
    root.get_by_role("listbox", name="命令").wait_for()
    root.screenshot(path=str(documentation_screenshot("screenshot-zh-CN.png")))
