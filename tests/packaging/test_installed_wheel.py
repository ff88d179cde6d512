"""The built wheel, installed into fresh venvs with no node on PATH and away from the checkout, chats in JupyterLab.

Two layouts a user has: one environment for server and kernel (`pip install "notebook_chat[lab]"`), and a kernel
environment of its own (`pip install notebook_chat ipykernel`, registered as a kernelspec of the server's
environment) that holds no JupyterLab. JupyterLab runs from the server venv, isolated like tests/e2e/lab.py's server;
the notebook is opened in Chromium and the chat is used by typing and clicking.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from notebook_chat._version import __version__
from tests.e2e.chat_page import ChatPage, kernel_value
from tests.e2e.lab import Lab, LabServer, isolated_lab_env, start_lab_server
from tests.e2e.sessions import chromium_browser, lab_page

from .environments import ROOT, Distributions, Venv, fresh_venv, labextension_listing, node_free_env, run

pytestmark = [pytest.mark.packaging, pytest.mark.browser]

KERNEL_NAME = "notebook-chat-kernel-venv"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
WHERE = """import importlib.util, json, sys, notebook_chat
print("WHERE", json.dumps({"package": notebook_chat.__file__, "python": sys.executable,
                           "version": notebook_chat.__version__,
                           "jupyterlab": importlib.util.find_spec("jupyterlab") is not None}))"""
CHAT = "from notebook_chat import Chat\nchat = Chat()\nchat"


class Installed:
    """The folders of this module's installs: node-free environments, venvs, and the server's dirs."""

    def __init__(self, base: Path) -> None:
        self.base = base

    def env(self, venv: Venv) -> dict[str, str]:
        env = node_free_env(self.base / "path", venv.bin)
        env["JUPYTER_DATA_DIR"] = str(self.base / "data")  # nothing from ~/.local/share/jupyter
        return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return Installed(tmp_path_factory.mktemp("installed"))


@pytest.fixture(scope="module")
def server_venv(distributions: Distributions, installed: Installed) -> Venv:
    venv = fresh_venv(installed.base / "server-venv", [f"{distributions.wheel}[lab]"],
                      node_free_env(installed.base / "path"))
    print(f"\nfresh server venv with {distributions.wheel.name}[lab] in {venv.seconds:.1f} s")
    return venv


@pytest.fixture(scope="module")
def kernel_venv(distributions: Distributions, installed: Installed, server_venv: Venv) -> Venv:
    """notebook_chat + ipykernel only, registered as a kernelspec in the server venv's share/jupyter/kernels."""
    venv = fresh_venv(installed.base / "kernel-venv", [str(distributions.wheel), "ipykernel>=6.29"],
                      node_free_env(installed.base / "path"))
    run([str(venv.python), "-m", "ipykernel", "install", "--prefix", str(server_venv.path), "--name", KERNEL_NAME,
         "--display-name", "Python (kernel venv)"], installed.env(venv), installed.base / "kernelspec.log")
    print(f"\nfresh kernel venv with {distributions.wheel.name} + ipykernel in {venv.seconds:.1f} s")
    return venv


@pytest.fixture(scope="module")
def server(server_venv: Venv, installed: Installed) -> Iterator[LabServer]:
    workdir = installed.base / "lab"
    lab_server = start_lab_server(workdir, 90.0, python=str(server_venv.python), root=workdir / "root",
                                  env=installed.env(server_venv))
    print(f"\nJupyterLab from the fresh venv ready in {lab_server.started_in:.1f} s")
    try:
        yield lab_server
    finally:
        lab_server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def lab(server: LabServer, chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Lab]:
    with lab_page(server, chromium, request) as helper:
        yield helper


def inside(path: str, venv: Venv) -> bool:
    """`path` lies in `venv` (links not followed: a venv's bin/python links to the base interpreter)."""
    return Path(os.path.abspath(path)).is_relative_to(Path(os.path.abspath(venv.path)))


def chat_once(lab: Lab, name: str, metadata: dict[str, object] | None = None) -> dict[str, object]:
    """Open a notebook (WHERE cell, chat cell), show the chat, send one message, see the reply in the page and in
    the notebook's metadata; return what the kernel printed about itself."""
    lab.open_notebook(name, [WHERE, CHAT], metadata)
    where: dict[str, object] = kernel_value(lab, 0, "WHERE")
    lab.run_cell(1)
    chat = ChatPage(lab, 1)
    chat.wait_ready()
    assert chat.root.locator(".nbc-title").inner_text() == "DemoModel (offline)"
    assert lab.page.evaluate("typeof window.__notebook_chat__?.findPanel") == "function"  # the labextension loaded
    chat.send("Hello from the wheel")
    chat.wait_reply_containing("You wrote: Hello from the wheel")
    assert chat.wait_state("completed") == "completed"
    lab.page.wait_for_function(
        "() => JSON.stringify(window.jupyterapp.shell.currentWidget.context.model.getMetadata('notebook_chat') ?? null)"
        ".includes('Hello from the wheel')")
    return where


def test_jupyter_labextension_list_of_the_fresh_venv_shows_notebook_chat_enabled_ok_from_that_venv(
    server_venv: Venv, installed: Installed,
) -> None:
    workdir = installed.base / "listing"
    listing = ANSI.sub("", labextension_listing(server_venv, isolated_lab_env(workdir, installed.env(server_venv)),
                                                workdir / "labextension-list.log"))
    section, found = "", None
    for line in listing.splitlines():
        if line.strip().endswith("labextensions"):
            section = line.strip()
        elif line.strip().startswith("notebook-chat "):
            found = (section, line.split())
    assert found is not None, listing
    assert found[0] == str(server_venv.path / "share" / "jupyter" / "labextensions")
    assert found[1] == ["notebook-chat", f"v{__version__}", "enabled", "OK", "(python,", "notebook_chat)"]


def test_a_chat_from_the_installed_wheel_answers_in_jupyterlab_without_node_or_the_checkout(
    lab: Lab, server_venv: Venv,
) -> None:
    began = time.monotonic()
    where = chat_once(lab, "installed.ipynb")
    assert inside(str(where["package"]), server_venv), where
    assert inside(str(where["python"]), server_venv), where
    assert not inside(str(where["package"]), Venv(ROOT, 0.0))
    assert where["version"] == __version__
    print(f"\nopen, show Chat(), send, reply in the browser: {time.monotonic() - began:.1f} s")


def test_a_kernel_venv_without_jupyterlab_chats_in_a_server_venv_that_has_the_extension(
    lab: Lab, kernel_venv: Venv, server_venv: Venv,
) -> None:
    kernelspec = {"name": KERNEL_NAME, "display_name": "Python (kernel venv)", "language": "python"}
    spec = json.loads((server_venv.path / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").read_text())
    assert inside(spec["argv"][0], kernel_venv), spec
    where = chat_once(lab, "kernel-venv.ipynb", {"kernelspec": kernelspec})
    assert inside(str(where["python"]), kernel_venv), where
    assert inside(str(where["package"]), kernel_venv), where
    assert where["jupyterlab"] is False
