"""The Binder build (binder/, reproduced by scripts/binder_check.sh) serves a working quickstart.

A fresh venv gets JupyterLab, binder/requirements.txt and binder/postBuild, exactly as repo2docker runs them; its
JupyterLab then opens examples/quickstart.ipynb in Chromium: the widget draws with the offline model, Approve works
by click, and the conversation lands in the notebook's metadata through the notebook-chat extension.
Set NOTEBOOK_CHAT_BINDER_ENV=DIR to reuse a `scripts/binder_check.sh build DIR`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab, LabServer, launch_chromium

from .binder_env import ROOT, build_binder_env, start_binder_lab

pytestmark = pytest.mark.browser

QUICKSTART = "examples/quickstart.ipynb"
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env, seconds = build_binder_env(tmp_path_factory.mktemp("binder") / "build")
    print(f"\nBinder build: {seconds:.0f} s ({env})")
    return env


@pytest.fixture(scope="module")
def binder_lab(binder_env: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    server = start_binder_lab(binder_env, tmp_path_factory.mktemp("binder-lab"))
    print(f"\nJupyterLab from the Binder venv ready in {server.started_in:.1f} s")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def quickstart(binder_lab: LabServer) -> Iterator[Lab]:
    """The quickstart opened in Chromium through the URL path Binder uses (lab/tree/examples/quickstart.ipynb)."""
    shutil.copy(ROOT / QUICKSTART, binder_lab.root / QUICKSTART)  # a reused build holds the last run's conversation
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.set_default_timeout(30_000)
        lab = Lab(page, binder_lab, "examples", ARTIFACTS, path=QUICKSTART)
        cells = len(json.loads((binder_lab.root / QUICKSTART).read_text())["cells"])
        try:
            page.goto(f"{binder_lab.url}/lab/tree/{QUICKSTART}?token={binder_lab.token}&reset")
            lab.wait_for_cell_count(cells, 60_000)
            lab.wait_idle()
            yield lab
        except BaseException:
            lab.screenshot("binder-quickstart-failure")
            (ARTIFACTS / "binder-quickstart-console.txt").write_text("\n".join(lab.console))
            raise
        finally:
            lab.shutdown_kernels()
            browser.close()


def cell_index(lab: Lab, cell_id: str) -> int:
    cells = json.loads((lab.server.root / QUICKSTART).read_text())["cells"]
    return next(index for index, cell in enumerate(cells) if cell["id"] == cell_id)


def test_postbuild_installs_the_notebook_chat_extension_into_the_binder_environment(binder_env: Path) -> None:
    listing = subprocess.run([str(binder_env / "venv" / "bin" / "jupyter"), "labextension", "list"],
                             capture_output=True, text=True, check=True)
    line = next(line for line in (listing.stdout + listing.stderr).splitlines() if "notebook-chat" in line)
    assert "enabled" in line
    assert "OK" in line


def test_the_quickstart_of_the_binder_build_chats_approves_and_saves_into_the_notebook(quickstart: Lab) -> None:
    began = time.monotonic()
    lab = quickstart
    for cell_id in ("imports", "tools", "chat"):
        lab.run_cell(cell_index(lab, cell_id))
    chat = ChatPage(lab, cell_index(lab, "chat"))
    chat.wait_ready()
    assert chat.root.locator(".nbc-title").inner_text() == "DemoModel (offline)"
    assert lab.page.evaluate("typeof window.__notebook_chat__?.findPanel") == "function"

    lab.run_cell(cell_index(lab, "send"))
    assert "It is sunny and 22 °C in Paris." in lab.wait_for_output(cell_index(lab, "send"), "sunny")
    chat.wait_reply_containing("It is sunny and 22 °C in Paris.")

    lab.run_cell(cell_index(lab, "ask-email"))
    card = chat.wait_pending_card()
    assert card.locator(".nbc-tool-name").inner_text() == "send_email"
    card.locator("[data-action=approve]").click()
    chat.wait_reply_containing("Email to ada@example.com with the subject 'Lunch on Friday' is on its way.")
    chat.wait_state("completed")

    roles = ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    lab.page.wait_for_function(  # the turn's end is written into the open notebook's metadata, then saved
        "n => window.jupyterapp.shell.currentWidget.context.model.getMetadata('notebook_chat')"
        "?.conversations?.chat?.items?.main?.messages?.length === n", arg=len(roles))
    lab.save()
    stored = lab.read_notebook_from_disk()["metadata"]["notebook_chat"]["conversations"]["chat"]["items"]["main"]
    assert stored["paused_turn"] is None
    assert [message["role"] for message in stored["messages"]] == roles
    assert stored["messages"][-1]["content"].endswith("is on its way.`")
    print(f"\nquickstart in the browser: {time.monotonic() - began:.1f} s")
