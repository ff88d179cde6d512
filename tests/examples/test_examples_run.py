"""Every notebook in examples/ runs top to bottom, headless (nbclient + a real ipykernel), on the offline DemoModel.

The kernel is this test's interpreter (a kernelspec written to a temp JUPYTER_PATH), the working directory a temp copy
of examples/, and no OpenAI variable reaches it. Each notebook runs once per session; the tests below read its outputs.
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import nbformat
import pytest
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOTEBOOKS = sorted(path.name for path in EXAMPLES.glob("*.ipynb"))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
OPENAI_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "NOTEBOOK_CHAT_MODEL")

Notebook = Any  # nbformat.NotebookNode


@pytest.fixture(scope="module")
def examples_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A temp copy of examples/, with kernels started from this interpreter and no OpenAI variables set."""
    root = tmp_path_factory.mktemp("examples-run")
    workdir = root / "examples"
    shutil.copytree(EXAMPLES, workdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.json", "*.txt"))
    spec = root / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test venv)", "language": "python",
    }))
    with pytest.MonkeyPatch.context() as patch:
        for variable in OPENAI_VARIABLES:
            patch.delenv(variable, raising=False)
        patch.setenv("JUPYTER_PATH", str(root / "jupyter"))
        patch.setenv("IPYTHONDIR", str(root / "ipython"))
        patch.setenv("MPLCONFIGDIR", str(root / "matplotlib"))
        yield workdir


def client_for(notebook: Notebook, workdir: Path) -> NotebookClient:
    return NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(workdir)}})


def read_notebook(path: Path) -> Notebook:
    return nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]


@pytest.fixture(scope="module")
def run_example(examples_dir: Path) -> Callable[[str], Notebook]:
    """Execute an example once and hand back the executed notebook."""
    executed: dict[str, Notebook | Exception] = {}

    def run(name: str) -> Notebook:
        if name not in executed:
            notebook = read_notebook(examples_dir / name)
            began = time.monotonic()
            try:
                client_for(notebook, examples_dir).execute()
            except Exception as error:  # a failed run fails every test of that notebook, without running it again
                executed[name] = error
            else:
                executed[name] = notebook
            print(f"\n{name}: executed in {time.monotonic() - began:.1f} s")
        outcome = executed[name]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return run


def cell(notebook: Notebook, cell_id: str) -> Any:
    return next(item for item in notebook.cells if item.get("id") == cell_id)


def text_of(notebook: Notebook, cell_id: str) -> str:
    """Everything a code cell printed or displayed as text."""
    return printed(cell(notebook, cell_id))


def printed(item: Any) -> str:
    parts = []
    for output in item.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_example_runs_top_to_bottom_without_an_error(run_example: Callable[[str], Notebook], name: str) -> None:
    notebook = run_example(name)
    outputs = [output for item in notebook.cells if item.cell_type == "code"
               and "raises-exception" not in item.metadata.get("tags", []) for output in item.outputs]
    assert [output for output in outputs if output.output_type == "error"] == []
    assert all(item.execution_count for item in notebook.cells if item.cell_type == "code")


def test_the_examples_folder_holds_the_notebooks_the_readme_names() -> None:
    assert NOTEBOOKS == ["approvals.ipynb", "continue.ipynb", "data_assistant.ipynb", "openai.ipynb",
                         "quickstart.ipynb", "skills.ipynb"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_example_is_stored_as_nbformat_4_5_with_cell_ids_and_no_outputs(name: str) -> None:
    notebook = read_notebook(EXAMPLES / name)
    nbformat.validate(notebook)
    assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5)
    assert notebook.metadata.kernelspec.name == "python3"
    assert "notebook_chat" not in notebook.metadata
    code = [item for item in notebook.cells if item.cell_type == "code"]
    assert [(item.outputs, item.execution_count) for item in code] == [([], None)] * len(code)


def test_the_quickstart_prints_the_weather_and_ends_on_the_email_call_waiting_for_the_reader(
        run_example: Callable[[str], Notebook]) -> None:
    """Run All ends with the Approve/Deny card pending: nothing in the notebook approves it from code."""
    notebook = run_example("quickstart.ipynb")
    assert "It is sunny and 22 °C in Paris." in text_of(notebook, "send")
    pending = text_of(notebook, "ask-email")
    assert "'name': 'send_email'" in pending
    assert "ada@example.com" in pending
    code = [item for item in notebook.cells if item.cell_type == "code"]
    assert code[-1].get("id") == "ask-email"
    assert not any("on its way" in printed(item) for item in code)
    assert not any("chat.approve(" in "".join(item.source) for item in code)


def test_the_quickstart_displays_the_chat_widget(run_example: Callable[[str], Notebook]) -> None:
    outputs = cell(run_example("quickstart.ipynb"), "chat").outputs
    assert any("application/vnd.jupyter.widget-view+json" in output.get("data", {}) for output in outputs)


def test_the_approvals_example_approves_denies_edits_and_approves_once_after_a_restore(
        run_example: Callable[[str], Notebook]) -> None:
    notebook = run_example("approvals.ipynb")
    assert "['draft_v1.txt', 'draft_v2.txt', 'raw.csv']" in text_of(notebook, "approve")
    denied = text_of(notebook, "deny")
    assert "raw.csv is the source data" in denied
    assert "'raw.csv'" in denied.splitlines()[-1]
    assert text_of(notebook, "edit").splitlines()[-1] == "['draft_v2.txt', 'raw.csv']"
    restored = text_of(notebook, "restore")
    assert restored.startswith("paused")
    assert "'name': 'save_note'" in restored
    assert "got: `Saved.`" in text_of(notebook, "restore-approve")
    refused, notes = text_of(notebook, "twice").split("\n", 1)
    assert refused.startswith("refused: tool call")
    assert notes == "approvals survive a kernel restart\n\n"


async def test_the_approvals_example_approves_the_saved_call_after_a_real_kernel_restart(examples_dir: Path) -> None:
    workdir = examples_dir.parent / "restart"
    shutil.copytree(EXAMPLES, workdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.json", "*.txt"))
    notebook = read_notebook(workdir / "approvals.ipynb")
    client = client_for(notebook, workdir)
    restart_before = next(index for index, item in enumerate(notebook.cells) if item.get("id") == "restore")
    probe = nbformat.v4.new_code_cell(  # type: ignore[no-untyped-call]
        "print('saved_chat' in globals(), 'files' in globals())")
    async with client.async_setup_kernel():
        for index, item in enumerate(notebook.cells):
            if index == restart_before:
                manager, kernel_client = cast(Any, client.km), cast(Any, client.kc)  # the async kinds, once set up
                await manager.restart_kernel()
                await kernel_client.wait_for_ready(timeout=60)
                await client.async_execute_cell(probe, index)
            await client.async_execute_cell(item, index)
    assert printed(probe) == "False False\n"
    assert text_of(notebook, "restore").startswith("paused\n")
    assert "got: `Saved.`" in text_of(notebook, "restore-approve")
    assert text_of(notebook, "twice").endswith("\napprovals survive a kernel restart\n\n")


def test_the_continue_example_continues_after_the_token_limit_an_error_and_stop(
        run_example: Callable[[str], Notebook]) -> None:
    notebook = run_example("continue.ipynb")
    assert "ended: max-tokens" in text_of(notebook, "length")
    assert text_of(notebook, "length-continue").startswith("…and here is the rest: does not lose the conversation.")
    assert text_of(notebook, "error").startswith("error - DemoModel: simulated provider error")
    assert "the simulated error is over" in text_of(notebook, "error-continue")
    assert text_of(notebook, "stop").startswith("aborted after")
    assert text_of(notebook, "stop-continue").startswith("…and here is the rest:")


def test_the_data_assistant_runs_the_plot_code_only_after_approval_and_shows_the_figure(
        run_example: Callable[[str], Notebook]) -> None:
    notebook = run_example("data_assistant.ipynb")
    assert "sales: pandas.DataFrame, shape (1460, 5)" in text_of(notebook, "list")
    assert "DataFrame sales: 1460 rows × 5 columns" in text_of(notebook, "describe")
    before = text_of(notebook, "run-ask")
    assert before.startswith("False\n")
    assert "'name': 'run_python'" in before
    assert "Name: revenue" in text_of(notebook, "approve")
    images = [output.data["image/png"] for output in cell(notebook, "result").outputs
              if output.output_type == "display_data" and "image/png" in output.data]
    assert len(images) == 1
    assert base64.b64decode(images[0]).startswith(PNG_SIGNATURE)
    assert "[1 figure:" in text_of(notebook, "result")


def test_the_openai_example_falls_back_to_the_demo_model_without_a_key(
        run_example: Callable[[str], Notebook]) -> None:
    notebook = run_example("openai.ipynb")
    assert text_of(notebook, "pick") == "DemoModel (offline)\n"
    assert "120.0 USD is 94.80 GBP." in text_of(notebook, "send")
    assert "80.0 USD is 12080.00 JPY." in text_of(notebook, "ask")


def test_the_skills_example_follows_a_selected_skill_reads_its_reference_and_activates_one_in_auto_mode(
        run_example: Callable[[str], Notebook]) -> None:
    notebook = run_example("skills.ipynb")
    assert text_of(notebook, "discover").splitlines()[0].startswith("pandas-cleaning: A checklist for cleaning")
    assert text_of(notebook, "select") == "['pandas-cleaning', 'plotting-style'] -> ['pandas-cleaning']\n"
    assert "- **pandas-cleaning**: Work through this checklist" in text_of(notebook, "ask")
    assert text_of(notebook, "read").startswith("I called `read_skill_file` and got: `# Pandas cleaning reference")
    assert text_of(notebook, "not-stored") == "False\n"
    assert text_of(notebook, "auto").splitlines()[-1] == "['plotting-style']"
    assert text_of(notebook, "careful").startswith("paused [{'tool_call_id'")
    assert "- template.py (" in text_of(notebook, "careful-approve")


def test_the_data_assistant_describes_a_mentioned_dataframe_and_the_last_error_on_the_demo_model(
        run_example: Callable[[str], Notebook]) -> None:
    notebook = run_example("data_assistant.ipynb")
    assert text_of(notebook, "mention").startswith(
        "**`sales`** is a DataFrame with 1460 rows × 5 columns: `date` (datetime64")
    assert "No column has missing values." in text_of(notebook, "mention")
    failing = [output for output in cell(notebook, "failing").outputs if output.output_type == "error"]
    assert [output.ename for output in failing] == ["KeyError"]
    assert text_of(notebook, "ask-error").startswith(
        "The last error is a **KeyError**: 'profit'. It was raised at line 1 of your cell: "
        '`sales["profit"].sum()  # there is no profit column`.')


def test_the_data_assistant_chat_magic_shows_the_reply_as_markdown(run_example: Callable[[str], Notebook]) -> None:
    outputs = cell(run_example("data_assistant.ipynb"), "magic").outputs
    shown = [output.data["text/markdown"] for output in outputs if "text/markdown" in output.get("data", {})]
    assert len(shown) == 1
    assert shown[0].startswith("**`sales`** is a DataFrame with 1460 rows × 5 columns")


def test_chat_ask_in_the_openai_example_writes_nothing_to_stderr(run_example: Callable[[str], Notebook]) -> None:
    """The headless run (nbclient, no front end); tests/e2e/test_chat_ask_in_lab.py covers a live widget, where the
    original nest-asyncio flooded the cell with asyncio errors on ipykernel 7."""
    notebook = run_example("openai.ipynb")
    ask = cell(notebook, "ask")
    assert [output for output in ask.outputs if output.output_type == "stream" and output.name == "stderr"] == []
    assert "80.0 USD is 12080.00 JPY." in printed(ask)


def test_the_quickstart_lists_both_conversations_after_starting_a_new_one_and_switching_back(
        run_example: Callable[[str], Notebook]) -> None:
    listed = text_of(run_example("quickstart.ipynb"), "conversations")
    assert "('Scratch', 'idle')" in listed
    assert "(\"What's the weather in Paris?\", 'idle')" in listed
