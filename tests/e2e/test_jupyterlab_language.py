"""The widget follows JupyterLab's language setting (issue 15, item 4): with the real Simplified Chinese language pack
(jupyterlab-language-pack-zh-CN) and JupyterLab set to zh_CN through its settings API, a Chat() with no locale shows
Chinese labels and the kernel's notices in Chinese (the view tells the kernel its language); a Chat(locale="en") on
the same page stays English. Its own JupyterLab: the language is a server-wide setting."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.e2e.axe import BLOCKING, axe_violations
from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, LabServer, start_lab_server
from tests.e2e.sessions import lab_page

pytestmark = pytest.mark.browser

TRANSLATION_SETTINGS = "/lab/api/settings/@jupyterlab/translation-extension:plugin"
REFUSED_ZH = ("无法使用保存的对话：", "它在笔记本中保持原样；此对话不会被保存。")
REFUSED_EN = ("the stored conversation can't be used: ",
              "It is kept untouched in the notebook; this chat is not saved.")


def set_language(server: LabServer, locale: str) -> None:
    """JupyterLab's Settings → Language, through the settings REST API the settings editor uses."""
    body = json.dumps({"raw": json.dumps({"locale": locale})}).encode()
    request = urllib.request.Request(f"{server.url}{TRANSLATION_SETTINGS}", data=body, method="PUT", headers={
        "Authorization": f"token {server.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30):
        pass
    assert server.api("GET", TRANSLATION_SETTINGS)["settings"]["locale"] == locale


@pytest.fixture(scope="module")
def chinese_lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    server = start_lab_server(tmp_path_factory.mktemp("jupyterlab-zh"))
    try:
        languages = server.api("GET", "/lab/api/translations")["data"]
        assert "zh_CN" in languages, f"the zh-CN language pack is not installed: {sorted(languages)}"
        set_language(server, "zh_CN")
        yield server
    finally:
        server.stop()


@pytest.fixture
def chinese_lab(chinese_lab_server: LabServer, chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Lab]:
    with lab_page(chinese_lab_server, chromium, request) as lab:
        yield lab


def open_in_lab(lab: Lab, name: str, cells: list[str], metadata: dict[str, object]) -> None:
    """Open a notebook and wait for its kernel (the status bar's words are Chinese here: ask the app instead)."""
    lab.path = lab.write_notebook(name, cells, metadata)
    lab.page.goto(f"{lab.server.url}/lab/tree/{lab.path}?token={lab.server.token}&reset")
    lab.wait_for_cell_count(len(cells))
    lab.page.wait_for_function(
        """() => {
            const kernel = window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel;
            if (!kernel || kernel.connectionStatus !== 'connected' || kernel.status !== 'idle') return false;
            kernel.info.then(() => { window.__ncKernelInfo = kernel.id; });
            return window.__ncKernelInfo === kernel.id;
        }""",
        timeout=60_000,
    )


CELLS = [
    "from notebook_chat import Chat\nfrom notebook_chat.testing import ScriptedProvider\n"
    'page = Chat(ScriptedProvider(), key="page")\npage',
    'english = Chat(ScriptedProvider(), key="english", locale="en")\nenglish',
    'import json\nprint("LOCALES", json.dumps([page.page_locale, page.locale, english.locale]))',
]
# what each chat finds in the notebook can't be used: the kernel says so in a notice (and leaves it untouched)
UNUSABLE = {"messages": "not a list"}
STORED = {"notebook_chat": {"version": 1, "conversations": {"page": UNUSABLE, "english": UNUSABLE}}}


def test_a_chat_without_a_locale_follows_jupyterlabs_language_and_a_chat_with_one_keeps_it(
        chinese_lab: Lab) -> None:
    lab = chinese_lab
    open_in_lab(lab, "language.ipynb", CELLS, STORED)
    assert lab.page.evaluate("() => document.documentElement.lang") == "zh-CN"
    lab.page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text="文件").wait_for()  # JupyterLab is in Chinese

    lab.run_cell(0)
    lab.run_cell(1)
    page, english = ChatPage(lab, 0), ChatPage(lab, 1)
    page.wait_ready()
    english.wait_ready()

    assert page.root.get_attribute("lang") == "zh-CN"
    assert page.root.get_by_role("textbox", name="消息").is_visible()
    assert page.root.get_by_role("button", name="发送").is_visible()
    assert page.root.get_by_role("button", name="键盘快捷键").is_visible()
    page.root.locator(".nbc-notice", has_text=REFUSED_ZH[1]).wait_for()
    assert page.root.locator(".nbc-notice").inner_text().startswith(REFUSED_ZH[0])

    assert english.root.get_attribute("lang") == "en"
    assert english.root.get_by_role("textbox", name="Message").is_visible()
    assert english.root.get_by_role("button", name="Send").is_visible()
    english.root.locator(".nbc-notice", has_text=REFUSED_EN[1]).wait_for()
    assert english.root.locator(".nbc-notice").inner_text().startswith(REFUSED_EN[0])

    # events in each view run in its own language: "/" menus and the "?" panels of both
    page.root.get_by_role("button", name="键盘快捷键").click()
    english.root.get_by_role("button", name="Keyboard shortcuts").click()
    page.root.get_by_role("region", name="键盘快捷键和命令").wait_for()
    english.root.get_by_role("region", name="Keyboard shortcuts and commands").wait_for()
    page.root.locator("[data-field=input]").fill("/nothere")
    page.root.locator("[data-field=input]").press("Enter")
    assert "未知命令 /nothere" in page.root.locator(".nbc-status").inner_text()
    english.root.locator("[data-field=input]").fill("/nothere")
    english.root.locator("[data-field=input]").press("Enter")
    assert "Unknown command /nothere" in english.root.locator(".nbc-status").inner_text()

    assert kernel_value(lab, 2, "LOCALES") == ["zh-CN", None, "en"]
    for chat, label in ((page, "jupyterlab-zh-CN"), (english, "jupyterlab-zh-CN-english")):
        blocking = [v for v in axe_violations(lab, chat.root, label) if v["impact"] in BLOCKING]
        assert blocking == [], blocking
    lab.screenshot("jupyterlab-zh-CN")


def test_the_language_pack_is_a_dev_dependency_installed_by_the_setup() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"jupyterlab-language-pack-zh-CN' in pyproject
