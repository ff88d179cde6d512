"""Where the tools look by default: the live IPython user namespace in a kernel, ``__main__`` elsewhere."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from notebook_chat.tools import kernel

NBFORMAT_V4: Any = nbformat.v4  # untyped


def run_script(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_importing_the_tools_loads_neither_ipython_nor_pandas_nor_matplotlib_nor_the_mcp_sdk() -> None:
    loaded = run_script(
        "import sys, notebook_chat\n"
        "before = set(sys.modules)\n"
        "import notebook_chat.tools\n"
        "heavy = {'IPython', 'pandas', 'matplotlib', 'mcp'}\n"
        "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} & heavy))"
    )
    assert loaded == "[]\n"


def test_outside_ipython_the_tools_work_on_main() -> None:
    printed = run_script(
        "from notebook_chat.tools import kernel\n"
        "tools = {tool.name: tool for tool in kernel()}\n"
        "tools['run_python'](code='made_by_the_tool = 7')\n"
        "import __main__\n"
        "print(__main__.made_by_the_tool)"
    )
    assert printed == "7\n"


def test_a_namespace_that_is_not_a_dict_is_refused() -> None:
    with pytest.raises(TypeError, match=r"kernel\(namespace\) needs a dict"):
        kernel(namespace=[])  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -5, True, 2.5])
def test_max_model_chars_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_model_chars must be a positive int"):
        kernel(namespace={}, max_model_chars=bad)


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A notebook run top to bottom in a real ipykernel (this interpreter) that uses the tools without a namespace."""
    root = tmp_path_factory.mktemp("kernel-tools")
    spec = root / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test venv)", "language": "python",
    }))
    notebook = NBFORMAT_V4.new_notebook(cells=[
        NBFORMAT_V4.new_code_cell("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3]})\n"
                                  "def helper(x):\n    return x"),
        NBFORMAT_V4.new_code_cell("from notebook_chat.tools import kernel\n"
                                  "tools = {tool.name: tool for tool in kernel()}\n"
                                  "print(tools['list_variables']().content)"),
        NBFORMAT_V4.new_code_cell("tools['run_python'](code='total = int(df.a.sum())')\nprint(total)"),
        NBFORMAT_V4.new_code_cell("%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                                  "shown = tools['run_python'](code='plt.plot([1, 2])')\n"
                                  "print(shown.content, type(shown.display['image/png']).__name__)"),
        NBFORMAT_V4.new_code_cell("print('next cell')"),
    ])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(root / "jupyter"))
        patch.setenv("IPYTHONDIR", str(root / "ipython"))
        patch.setenv("MPLCONFIGDIR", str(root / "matplotlib"))
        NotebookClient(notebook, timeout=60, kernel_name="python3").execute()
    return notebook


def test_in_a_real_kernel_list_variables_shows_the_users_variables_only(executed: Any) -> None:
    listed = executed.cells[1].outputs[0]["text"].splitlines()
    assert listed[0] == "3 variables in the user's namespace:"
    assert listed[1] == "df: pandas.DataFrame, shape (3, 1) — columns: a (int64)"
    assert listed[2] == "helper: function — def helper(x)"
    assert listed[3].startswith("tools: dict, len 4 — {'describe_dataframe': Tool(name='describe_dataframe'")


def test_in_a_real_kernel_run_python_changes_the_users_namespace(executed: Any) -> None:
    assert [output["text"] for output in executed.cells[2].outputs] == ["6\n"]


def test_in_a_real_kernel_a_figure_goes_to_the_tool_result_and_not_into_a_cells_output(executed: Any) -> None:
    assert [output["text"] for output in executed.cells[3].outputs] == [
        "[1 figure: 640x480 PNG shown to the user] str\n"]
    assert [output["output_type"] for output in executed.cells[4].outputs] == ["stream"]
