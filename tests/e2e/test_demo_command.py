"""The README's demo command, `scripts/demo.sh`, started for real: it runs scripts/setup.sh (in an existing venv
that is one more `pip install -e`, ~7 s), starts JupyterLab with examples/ as its root, and the quickstart it serves
opens and draws the chat on the offline DemoModel. Then the server's process group is stopped: kernels first (REST),
SIGTERM, SIGKILL only as a fallback.

Isolation as in lab.py: config, runtime, settings, workspaces and TMPDIR in a temp dir; autosave is off and
checkpoints go to the temp dir, so nothing is written into the repository. NOTEBOOK_CHAT_VENV is the venv running the
tests (no second venv); NOTEBOOK_CHAT_SKIP_JS=1 keeps that `pip install -e` from rebuilding the front end (the test
run's own setup did that already).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.e2e.chat_page import ChatPage
from tests.e2e.lab import Lab, LabServer, free_port, isolated_lab_env, wait_until_serving

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart.ipynb"
SERVED_PATH = "quickstart.ipynb"  # `jupyter lab examples/quickstart.ipynb` serves examples/ as its root
ARTIFACTS = REPO / "test-artifacts"
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}
SECRETS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JUPYTER_PATH")


@dataclass
class Demo:
    server: LabServer
    ready_in: float

    def stop(self, grace: float = 15.0) -> bool:
        """Shut the kernels down, SIGTERM the process group, SIGKILL it after `grace` s; True if SIGTERM sufficed."""
        process = self.server.process
        if process.poll() is None:
            with contextlib.suppress(OSError, urllib.error.URLError):
                self.server.shutdown_kernels()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
            clean = True
        except subprocess.TimeoutExpired:
            clean = False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)
        return clean


def start_demo(workdir: Path, timeout: float = 240.0) -> Demo:
    """Run `scripts/demo.sh --no-browser` in its own process group; return once /api/status answers."""
    env = isolated_lab_env(workdir, {key: value for key, value in os.environ.items() if key not in SECRETS})
    for relative, values in SETTINGS.items():
        path = workdir / "settings" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    (workdir / "checkpoints").mkdir(parents=True, exist_ok=True)
    port, token = free_port(), os.urandom(16).hex()
    env.update(
        NOTEBOOK_CHAT_PORT=str(port),
        NOTEBOOK_CHAT_VENV=sys.prefix,
        NOTEBOOK_CHAT_SKIP_JS="1",
    )
    log = workdir / "demo.log"
    command = ["bash", str(REPO / "scripts" / "demo.sh"), "--no-browser", f"--ServerApp.token={token}",
               "--ServerApp.port_retries=0", "--LabApp.expose_app_in_browser=True",
               f"--FileCheckpoints.root_dir={workdir / 'checkpoints'}"]
    began = time.monotonic()
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=workdir, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    demo = Demo(LabServer(f"http://127.0.0.1:{port}", token, REPO, log, process), 0.0)
    try:
        wait_until_serving(demo.server, began, timeout)
    except RuntimeError:
        demo.stop()
        raise
    demo.ready_in = demo.server.started_in
    return demo


def port_is_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    assert QUICKSTART.is_file(), f"{QUICKSTART} is missing"
    running = start_demo(tmp_path)
    print(f"\nscripts/demo.sh served /api/status after {running.ready_in:.1f} s")
    try:
        yield running
    finally:
        running.stop()


def test_the_demo_command_serves_the_quickstart_and_its_chat_runs_on_the_offline_model(
    demo: Demo, chromium: Browser, request: pytest.FixtureRequest
) -> None:
    original = QUICKSTART.read_bytes()
    cells = json.loads(original)["cells"]
    chat_cell = next(i for i, cell in enumerate(cells)
                     if cell["cell_type"] == "code" and "Chat(" in "".join(cell["source"]))
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    lab = Lab(context.new_page(), demo.server, "", ARTIFACTS, path=SERVED_PATH)
    try:
        assert demo.server.api("GET", f"/api/contents/{SERVED_PATH}?content=0")["type"] == "notebook"
        lab.page.goto(f"{demo.server.url}/lab/tree/{SERVED_PATH}?token={demo.server.token}&reset")
        lab.wait_for_cell_count(len(cells), timeout=60_000)
        lab.wait_idle()
        for index in range(chat_cell + 1):
            if cells[index]["cell_type"] == "code":
                lab.run_cell(index)
        chat = ChatPage(lab, cell=chat_cell)
        chat.wait_ready()
        assert chat.root.locator(".nbc-title").inner_text() == "DemoModel (offline)"
    except Exception:
        lab.screenshot(f"{request.node.name}-failure")
        (ARTIFACTS / f"{request.node.name}-console.txt").write_text("\n".join(lab.console))
        raise
    finally:
        context.close()

    port = int(demo.server.url.rsplit(":", 1)[1])
    kernels = demo.server.api("GET", "/api/kernels")
    assert len(kernels) == 1, kernels
    assert demo.stop(), f"jupyter lab ignored SIGTERM:\n{demo.server.log.read_text()[-2000:]}"
    assert not port_is_open(port)
    assert QUICKSTART.read_bytes() == original
