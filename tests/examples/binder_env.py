"""The Binder environment for tests: built by `scripts/binder_check.sh build`, served by its own JupyterLab.

`tests/e2e/lab.py` starts JupyterLab with the test interpreter; here the server (and so the kernel, since
jupyter_client runs a `python` kernelspec with the server's interpreter) must come from the Binder venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
from pathlib import Path

from tests.e2e.lab import LabServer, free_port

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "scripts" / "binder_check.sh"
PREBUILT = "NOTEBOOK_CHAT_BINDER_ENV"  # reuse a `binder_check.sh build DIR` instead of building again


def build_binder_env(target: Path) -> tuple[Path, float]:
    """`DIR` with `repo/` and `venv/` built the way repo2docker builds binder/; and the seconds it took."""
    prebuilt = os.environ.get(PREBUILT)
    if prebuilt:
        return Path(prebuilt), 0.0
    began = time.monotonic()
    log = target.parent / f"{target.name}-build.log"
    with log.open("wb") as sink:
        done = subprocess.run(["bash", str(BUILD_SCRIPT), "build", str(target)], stdout=sink,
                              stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the Binder build failed ({done.returncode}):\n{log.read_text()[-4000:]}")
    return target, time.monotonic() - began


def start_binder_lab(env: Path, workdir: Path, timeout: float = 60.0) -> LabServer:
    """JupyterLab from `env/venv` serving `env/repo`, isolated from ~ like tests/e2e/lab.py's server."""
    began = time.monotonic()
    dirs = {name: workdir / name for name in ("config", "runtime", "settings", "workspaces", "tmp")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    notification = dirs["settings"] / "@jupyterlab/apputils-extension/notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    venv_bin = env / "venv" / "bin"
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("JUPYTER_PATH", "VIRTUAL_ENV", "PYTHONPATH") and not key.startswith("OPENAI_")}
    environment.update(
        PATH=f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]), JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        TMPDIR=str(dirs["tmp"]), PYTHONUNBUFFERED="1",
    )
    port, token = free_port(), os.urandom(16).hex()
    log = workdir / "jupyterlab.log"
    command = [
        str(venv_bin / "python"), "-m", "jupyter", "lab", "--no-browser", "--allow-root", f"--port={port}",
        "--ServerApp.port_retries=0", f"--ServerApp.token={token}", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.root_dir={env / 'repo'}", "--LabApp.expose_app_in_browser=True",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=environment, cwd=env / "repo", stdout=sink, stderr=subprocess.STDOUT)
    server = LabServer(f"http://127.0.0.1:{port}", token, env / "repo", log, process)
    while time.monotonic() - began < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            server.api("GET", "/api/status")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
            continue
        server.started_in = time.monotonic() - began
        return server
    server.stop()
    raise RuntimeError(f"jupyter lab did not answer within {timeout} s:\n{log.read_text()[-3000:]}")
