"""Drive a real JupyterLab in Debian's Chromium: an isolated server, a browser, and `Lab` for one page.

Recipe and selectors: shared/notes/jupyterlab-e2e.md (JupyterLab 4.6). Tests use `Lab` through the `lab`
fixture (conftest.py); every test gets its own folder under the server's root, so notebooks never mix.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Locator, Page, Playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
CELLS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell"
IDLE = r"\| Idle$"
CURRENT_TAB = ".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current"


def launch_chromium(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class LabServer:
    """A JupyterLab with its own config, runtime, settings and workspace dirs (nothing from ~ leaks in)."""

    url: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen[bytes]
    started_in: float = 0.0

    def api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def new_folder(self, name: str) -> str:
        folder = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:80]
        (self.root / folder).mkdir(parents=True, exist_ok=True)
        return folder

    def shutdown_kernels(self, folder: str | None = None) -> None:
        """Shut down the kernels of notebooks under `folder` (all kernels when None) through the REST API."""
        for session in self.api("GET", "/api/sessions"):
            if folder is None or str(session.get("path", "")).startswith(f"{folder}/"):
                try:
                    self.api("DELETE", f"/api/sessions/{session['id']}")
                except urllib.error.HTTPError as error:  # two notebooks on one kernel: it went with the first
                    if error.code != 404:
                        raise
        if folder is None:
            for kernel in self.api("GET", "/api/kernels"):
                self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self) -> None:
        try:
            self.shutdown_kernels()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def isolated_lab_env(workdir: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a JupyterLab that reads and writes nothing under ~ (config, runtime, settings, workspaces,
    temp files all below `workdir`), with news and update checks off."""
    dirs = {name: workdir / name for name in ("config", "data", "runtime", "settings", "workspaces", "tmp")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    notification = dirs["settings"] / "@jupyterlab/apputils-extension/notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ if base is None else base)
    env.pop("JUPYTER_PATH", None)
    env.update(
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        JUPYTER_DATA_DIR=str(dirs["data"]),  # the approval ledger of the lab's kernels
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        TMPDIR=str(dirs["tmp"]),
        PYTHONUNBUFFERED="1",
    )
    return env


def start_lab_server(workdir: Path, timeout: float = 60.0, *, python: str = sys.executable,
                     root: Path | None = None, env: dict[str, str] | None = None) -> LabServer:
    """Start `jupyter lab` (from `python`, serving `root`) on a free port and wait until /api/status answers."""
    began = time.monotonic()
    root = root if root is not None else workdir / "root"
    root.mkdir(parents=True, exist_ok=True)
    environment = isolated_lab_env(workdir, env)
    port, token = free_port(), os.urandom(16).hex()
    log = workdir / "jupyterlab.log"
    command = [
        python, "-m", "jupyter", "lab", "--no-browser", "--allow-root", f"--port={port}",
        "--ServerApp.port_retries=0", f"--ServerApp.token={token}", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
        "--JupyterNotebookApp.expose_app_in_browser=True",  # Notebook 7 (/notebooks/...), when installed
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=environment, cwd=root, stdout=sink, stderr=subprocess.STDOUT)
    server = LabServer(f"http://127.0.0.1:{port}", token, root, log, process)
    wait_until_serving(server, began, timeout)
    return server


def wait_until_serving(server: LabServer, began: float, timeout: float) -> None:
    """Poll /api/status until it answers; stop the server and raise with its log if it exits or never answers."""
    while time.monotonic() - began < timeout:
        if server.process.poll() is not None:
            code, tail = server.process.returncode, server.log.read_text()[-3000:]
            raise RuntimeError(f"jupyter lab exited with {code}:\n{tail}")
        try:
            server.api("GET", "/api/status")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
            continue
        server.started_in = time.monotonic() - began
        return
    server.stop()
    raise RuntimeError(f"jupyter lab did not answer within {timeout} s:\n{server.log.read_text()[-3000:]}")


def notebook_json(cells: Sequence[str], metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """nbformat 4.5 with a kernelspec (no kernel picker) and predictable cell ids `cell-0`, `cell-1`, ..."""
    return {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {}, "outputs": [],
             "source": source}
            for i, source in enumerate(cells)
        ],
        "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}, **(metadata or {})},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@dataclass
class Lab:
    """One browser page on the server, working on notebooks in `folder`."""

    page: Page
    server: LabServer
    folder: str
    artifacts: Path
    path: str | None = None
    console: list[str] = field(default_factory=list)
    app: str = "lab"
    """"lab" (JupyterLab, /lab/tree/...) or "notebook" (Notebook 7, /notebooks/...)."""

    def __post_init__(self) -> None:
        self.page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        self.page.on("pageerror", lambda error: self.console.append(f"pageerror: {error}"))

    # -- notebooks -------------------------------------------------------------------------------------------

    def write_notebook(self, name: str, cells: Sequence[str], metadata: dict[str, Any] | None = None) -> str:
        path = f"{self.folder}/{name}"
        (self.server.root / path).write_text(json.dumps(notebook_json(cells, metadata), indent=1))
        return path

    def open_notebook(
        self, name: str, cells: Sequence[str], metadata: dict[str, Any] | None = None, timeout: float = 60_000
    ) -> str:
        """Write `name` with `cells`, open it, and wait until every cell is drawn and the kernel is idle."""
        self.path = self.write_notebook(name, cells, metadata)
        if self.app == "notebook":
            self.page.goto(f"{self.server.url}/notebooks/{self.path}?token={self.server.token}")
        else:
            self.page.goto(f"{self.server.url}/lab/tree/{self.path}?token={self.server.token}&reset")
        self.wait_for_cell_count(len(cells), timeout)
        self.wait_idle(timeout)
        return self.path

    def wait_for_cell_count(self, count: int, timeout: float = 30_000) -> None:
        self.page.wait_for_function(
            "([sel, n]) => document.querySelectorAll(sel).length === n", arg=[CELLS, count], timeout=timeout
        )

    def cells(self) -> Locator:
        return self.page.locator(CELLS)

    def cell_sources(self) -> list[list[str]]:
        """`[cell_type, source]` of each cell of the open notebook, as its model holds them (saved or not)."""
        return list(self.page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
            ".map((cell) => [cell.cell_type, cell.source])"))

    def cell(self, index: int) -> Locator:
        return self.cells().nth(index)

    def output(self, index: int) -> Locator:
        return self.cell(index).locator(".jp-OutputArea-output")

    def output_text(self, index: int) -> str:
        return "\n".join(self.output(index).all_inner_texts())

    def wait_idle(self, timeout: float = 60_000) -> None:
        """The status bar says "| Idle" (the execution indicator says idle too early; see the notes). Notebook 7 has
        no status bar: its kernel connection says idle and connected, and the kernel answered kernel_info."""
        if self.app == "notebook":
            self.page.wait_for_function(
                """() => {
                    const kernel = window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel;
                    if (!kernel || kernel.connectionStatus !== 'connected' || kernel.status !== 'idle') return false;
                    kernel.info.then(() => { window.__ncKernelInfo = kernel.id; });
                    return window.__ncKernelInfo === kernel.id;
                }""",
                timeout=timeout,
            )
            return
        self.page.wait_for_function(
            "re => [...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem')]"
            ".some(item => new RegExp(re).test(item.textContent.trim()))",
            arg=IDLE,
            timeout=timeout,
        )

    def run_cell(self, index: int, timeout: float = 60_000) -> None:
        """Run cell `index` (Ctrl+Enter: no new cell at the end); wait until its prompt changed to `[n]:`."""
        self.start_cell(index)
        self.wait_cell_done(index, timeout)

    def start_cell(self, index: int) -> None:
        """Run cell `index` (Ctrl+Enter) without waiting for it to finish; see `wait_cell_done`."""
        prompt = self.cell(index).locator(".jp-InputPrompt")
        prompt.evaluate(
            """el => {
                el.__ncChanged = false;
                if (el.__ncObserver) { el.__ncObserver.disconnect(); }
                el.__ncObserver = new MutationObserver(() => { el.__ncChanged = true; });
                el.__ncObserver.observe(el, {childList: true, characterData: true, subtree: true});
            }"""
        )
        self.cell(index).locator(".jp-InputArea-editor").click()
        self.page.keyboard.press("Control+Enter")

    def wait_cell_done(self, index: int, timeout: float = 60_000) -> None:
        """Wait until cell `index`, started with `start_cell`, shows `[n]:` again."""
        self.page.wait_for_function(
            r"el => el.__ncChanged && /^\[\d+\]:?$/.test(el.textContent.trim())",
            arg=self.cell(index).locator(".jp-InputPrompt").element_handle(),
            timeout=timeout,
        )

    def cell_is_running(self, index: int) -> bool:
        """The cell's prompt shows `[*]` (queued or running)."""
        return self.cell(index).locator(".jp-InputPrompt").inner_text().strip().startswith("[*]")

    def run_cells(self, *indices: int) -> None:
        for index in indices:
            self.run_cell(index)

    def wait_for_output(self, index: int, pattern: str, timeout: float = 30_000) -> str:
        """Wait until cell `index`'s output text matches the regular expression `pattern`; return the text."""
        self.cell(index).locator(".jp-OutputArea-output", has_text=re.compile(pattern)).first.wait_for(
            timeout=timeout
        )
        return self.output_text(index)

    def save(self, timeout: float = 15.0) -> None:
        """Ctrl+S, then wait until the file on disk changed and the tab is no longer dirty."""
        before = self.file_mtime()
        self.page.keyboard.press("Control+s")
        self.wait_saved(before, timeout)

    def file_mtime(self) -> int:
        """The open notebook's file's modification time on disk, in nanoseconds."""
        return self._file().stat().st_mtime_ns

    def wait_saved(self, before: int, timeout: float = 15.0) -> None:
        """Wait until the file on disk changed since its mtime `before` (ns) and the tab is no longer dirty."""
        file = self._file()
        deadline = time.monotonic() + timeout
        while file.stat().st_mtime_ns == before:
            if time.monotonic() > deadline:
                raise AssertionError(f"Ctrl+S did not write {file} within {timeout} s")
            time.sleep(0.05)
        self.page.wait_for_function(
            f"() => !document.querySelector('{CURRENT_TAB}.jp-mod-dirty')",
            timeout=timeout * 1000,
        )

    def read_notebook_from_disk(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self._file().read_text())
        return data

    def stored_record(self, key: str, wanted: str, timeout: float = 15.0) -> dict[str, Any]:
        """The active record of chat `key` in the browser's copy of the notebook metadata, once its field `wanted`
        is set (a turn, a paused turn…)."""
        deadline = time.monotonic() + timeout
        while True:
            blob = self.notebook_metadata("notebook_chat") or {}
            record = active_record(blob, key)
            if record.get(wanted):
                return record
            if time.monotonic() > deadline:
                raise AssertionError(f"metadata never had {key}.{wanted}: {blob!r}")
            time.sleep(0.1)

    def notebook_metadata(self, key: str) -> Any:
        """metadata[key] of the open notebook as the browser holds it (saved or not)."""
        return self.page.evaluate(
            "key => window.jupyterapp.shell.currentWidget.context.model.getMetadata(key) ?? null", key
        )

    def wait_paused_turn(self, key: str, timeout: float = 30_000) -> None:
        """Wait until chat `key`'s active conversation in the open notebook's metadata holds a paused turn."""
        self.page.wait_for_function(
            """key => {
              const section = window.jupyterapp.shell.currentWidget.context.model.getMetadata('notebook_chat');
              const entry = section?.conversations?.[key];
              return Boolean(entry?.items?.[entry.active]?.paused_turn);
            }""",
            arg=key, timeout=timeout,
        )

    # -- kernel and document ---------------------------------------------------------------------------------

    def restart_kernel(self, timeout: float = 60_000) -> None:
        """Kernel menu → Restart Kernel… → Restart, then wait until the kernel is idle again."""
        self.page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text=re.compile("^Kernel$")).click()
        self.page.locator("li[data-command='kernelmenu:restart']").click()
        self.page.locator(".jp-Dialog-button.jp-mod-accept").click()
        with contextlib.suppress(PlaywrightTimeout):  # the restart may be quicker than one look
            self.page.wait_for_function(
                "re => ![...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem')]"
                ".some(item => new RegExp(re).test(item.textContent.trim()))",
                arg=IDLE,
                timeout=5_000,
            )
        self.wait_idle(timeout)

    def close_and_reopen(self, timeout: float = 60_000) -> None:
        """Close the notebook's tab (save first) and open the same file again; the kernel keeps running."""
        path, count = self._require_path(), self.cells().count()
        self.page.locator(f"{CURRENT_TAB} .lm-TabBar-tabCloseIcon").click()
        if self.page.locator(".jp-Dialog").count():
            raise AssertionError("closing the notebook asked about unsaved changes; call save() first")
        self.page.wait_for_function(f"() => document.querySelectorAll({json.dumps(CELLS)}).length === 0")
        self.page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", path)
        self.wait_for_cell_count(count, timeout)
        self.wait_idle(timeout)

    def shutdown_kernels(self) -> None:
        self.server.shutdown_kernels(self.folder)

    # -- evidence --------------------------------------------------------------------------------------------

    def screenshot(self, name: str) -> Path:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        target = self.artifacts / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
        self.page.screenshot(path=str(target), full_page=True)
        return target

    def _require_path(self) -> str:
        if self.path is None:
            raise AssertionError("no notebook is open: call open_notebook() first")
        return self.path

    def _file(self) -> Path:
        return self.server.root / self._require_path()


def documentation_screenshot(name: str) -> Path:
    """Where a test saves a picture the README shows: test-artifacts/ normally, docs/ itself when
    NOTEBOOK_CHAT_UPDATE_SCREENSHOTS=1 (so a test run leaves the tracked files alone)."""
    repo = Path(__file__).resolve().parents[2]
    folder = repo / "docs" if os.environ.get("NOTEBOOK_CHAT_UPDATE_SCREENSHOTS") == "1" else repo / "test-artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def active_record(section: Any, key: str) -> dict[str, Any]:
    """The active conversation's record of chat `key` in a `metadata["notebook_chat"]` section (version 2), or {}."""
    chats = section.get("conversations") if isinstance(section, dict) else None
    entry = chats.get(key) if isinstance(chats, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("items"), dict):
        return {}
    record = entry["items"].get(entry.get("active"))
    return record if isinstance(record, dict) else {}
