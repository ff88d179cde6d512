"""The Binder environment for tests: built by `scripts/binder_check.sh build`, served by its own JupyterLab.

`tests/e2e/lab.py` starts JupyterLab with the test interpreter; here the server (and so the kernel, since
jupyter_client runs a `python` kernelspec with the server's interpreter) must come from the Binder venv.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.e2e.lab import LabServer, start_lab_server

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
    venv_bin = env / "venv" / "bin"
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("JUPYTER_PATH", "VIRTUAL_ENV", "PYTHONPATH") and not key.startswith("OPENAI_")}
    environment["PATH"] = f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    return start_lab_server(workdir, timeout, python=str(venv_bin / "python"), root=env / "repo", env=environment)
