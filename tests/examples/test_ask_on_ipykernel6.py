"""`chat.ask()` runs cleanly on ipykernel 6 too (issue 13, item 6): the openai example, headless, in a kernel started
from a second environment holding `ipykernel<7` from PyPI and this checkout (editable, so the code under test is the
working tree's). The environment is made on first use and kept in `.venv-ipykernel6` (made again when pyproject.toml
or the pinned ipykernel range change); nothing is skipped when it is missing: it is built.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("NOTEBOOK_CHAT_IPYKERNEL6_VENV", ROOT / ".venv-ipykernel6"))
IPYKERNEL_6 = "ipykernel>=6.29,<7"
HIDDEN = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH")
VERSION_CELL = "import ipykernel\nprint('ipykernel', ipykernel.__version__)"


def wanted_stamp() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + IPYKERNEL_6.encode()).hexdigest()


def clean_env() -> dict[str, str]:
    """No venv of this process, no OpenAI settings (the example falls back to the offline DemoModel)."""
    return {key: value for key, value in os.environ.items()
            if key not in HIDDEN and not key.startswith("OPENAI_") and key != "NOTEBOOK_CHAT_MODEL"}


def run(command: list[str], log: Path) -> None:
    done = subprocess.run(command, env={**clean_env(), "NOTEBOOK_CHAT_SKIP_JS": "1"}, cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    log.write_text(done.stdout.decode(errors="replace"))
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(command)}` failed with {done.returncode}:\n{log.read_text()[-4000:]}")


def ipykernel6_python() -> Path:
    """The Python of the ipykernel-6 environment, made (or made again) when it is not current."""
    python = VENV / "bin" / "python"
    stamp = VENV / ".notebook_chat_stamp"
    if python.is_file() and stamp.is_file() and stamp.read_text() == wanted_stamp():
        return python
    shutil.rmtree(VENV, ignore_errors=True)
    base = getattr(sys, "_base_executable", sys.executable)
    VENV.parent.mkdir(parents=True, exist_ok=True)
    run([base, "-m", "venv", str(VENV)], VENV.parent / ".venv-ipykernel6-venv.log")
    run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-compile", IPYKERNEL_6,
         "-e", str(ROOT)], VENV / "pip.log")
    stamp.write_text(wanted_stamp())
    return python


@pytest.fixture(scope="module")
def kernel_on_ipykernel6(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A kernelspec (in a temp JUPYTER_PATH) whose kernel is the ipykernel-6 environment, and a copy of examples/."""
    python = ipykernel6_python()
    root = tmp_path_factory.mktemp("ipykernel6")
    spec = root / "jupyter" / "kernels" / "ipykernel6"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel 6)", "language": "python",
    }))
    workdir = root / "examples"
    shutil.copytree(ROOT / "examples", workdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.json", "*.txt"))
    with pytest.MonkeyPatch.context() as patch:
        for variable in [name for name in os.environ if name.startswith("OPENAI_")] + ["NOTEBOOK_CHAT_MODEL"]:
            patch.delenv(variable, raising=False)
        patch.setenv("JUPYTER_PATH", str(root / "jupyter"))
        patch.setenv("IPYTHONDIR", str(root / "ipython"))
        yield "ipykernel6", workdir


def stderr_of(cell: Any) -> list[str]:
    return [output.text for output in cell.outputs if output.output_type == "stream" and output.name == "stderr"]


def printed(cell: Any) -> str:
    return "".join(output.text for output in cell.outputs if output.output_type == "stream")


def test_chat_ask_in_the_openai_example_writes_nothing_to_stderr_on_ipykernel_6(
        kernel_on_ipykernel6: tuple[str, Path]) -> None:
    kernel_name, workdir = kernel_on_ipykernel6
    notebook = nbformat.read(workdir / "openai.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    notebook.cells.append(nbformat.v4.new_code_cell(VERSION_CELL))  # type: ignore[no-untyped-call]
    NotebookClient(notebook, timeout=180, kernel_name=kernel_name,
                   resources={"metadata": {"path": str(workdir)}}).execute()

    cells = {cell.get("id"): cell for cell in notebook.cells if cell.cell_type == "code"}
    assert printed(notebook.cells[-1]).startswith("ipykernel 6.")
    ask = cells["ask"]
    assert stderr_of(ask) == []
    assert [o for o in ask.outputs if o.output_type == "error"] == []
    assert "80.0 USD is 12080.00 JPY." in printed(ask)
    assert {cell_id: stderr_of(cell) for cell_id, cell in cells.items() if stderr_of(cell)} == {}
