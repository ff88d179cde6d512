"""Run a few cells in a real ipykernel (this interpreter, through nbclient) and read what they printed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NBFORMAT_V4: Any = nbformat.v4  # untyped
OPENAI_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "NOTEBOOK_CHAT_MODEL")


def run_cells(root: Path, sources: list[str], *, timeout: float = 90) -> Any:
    """The executed notebook; errors stay in the outputs (``allow_errors``) so a test can read them."""
    spec = root / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test venv)", "language": "python",
    }))
    notebook = NBFORMAT_V4.new_notebook(cells=[NBFORMAT_V4.new_code_cell(source) for source in sources])
    with pytest.MonkeyPatch.context() as patch:
        for variable in OPENAI_VARIABLES:
            patch.delenv(variable, raising=False)
        patch.setenv("JUPYTER_PATH", str(root / "jupyter"))
        patch.setenv("IPYTHONDIR", str(root / "ipython"))
        patch.setenv("MPLCONFIGDIR", str(root / "matplotlib"))
        NotebookClient(notebook, timeout=timeout, kernel_name="python3", allow_errors=True).execute()
    return notebook


def printed(cell: Any) -> str:
    """Everything a code cell printed or displayed as text."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def errors(cell: Any) -> list[str]:
    return [f"{output.ename}: {output.evalue}" for output in cell.outputs if output.output_type == "error"]
