from __future__ import annotations

from typing import Any

import pandas as pd

from notebook_chat.tools import TRUNCATION_NOTE

from .conftest import call, tools_by_name


async def run(ns: dict[str, Any], code: str, **options: Any) -> Any:
    return await call(ns, "run_python", {"code": code}, **options)


def test_run_python_needs_approval_by_default_and_can_opt_out(ns: dict[str, Any]) -> None:
    assert tools_by_name(ns)["run_python"].approval is True
    assert tools_by_name(ns, run_python_approval=False)["run_python"].approval is False
    assert tools_by_name(ns)["list_variables"].approval is False


async def test_returns_stdout_and_the_value_of_the_last_expression(ns: dict[str, Any]) -> None:
    result = await run(ns, "print('hello')\nx = 6\nx * 7")
    assert result.ok
    assert result.content == "stdout:\nhello\n\nresult:\n42"
    assert result.display is None


async def test_captures_stderr_separately(ns: dict[str, Any]) -> None:
    result = await run(ns, "import sys\nprint('out')\nprint('careful', file=sys.stderr)")
    assert result.content == "stdout:\nout\n\nstderr:\ncareful"


async def test_assignments_stay_in_the_namespace_like_a_cell(ns: dict[str, Any]) -> None:
    await run(ns, "total = 40\ndef add(a, b):\n    return a + b")
    result = await run(ns, "add(total, 2)")
    assert ns["total"] == 40
    assert result.content == "result:\n42"


async def test_a_trailing_semicolon_hides_the_value_as_in_ipython(ns: dict[str, Any]) -> None:
    result = await run(ns, "y = 3\ny;")
    assert result.content == "Done: no output and no result."


async def test_an_exception_is_a_failed_result_with_the_traceback_of_the_users_code(ns: dict[str, Any]) -> None:
    result = await run(ns, "print('before')\ndef boom():\n    return 1 / 0\nboom()")
    assert not result.ok
    assert result.error == "ZeroDivisionError: division by zero"
    assert result.content.startswith("stdout:\nbefore\n\nTraceback (most recent call last):\n"
                                     '  File "<run_python-')
    assert "line 4, in <module>\n    boom()" in result.content
    assert "line 3, in boom\n    return 1 / 0" in result.content
    assert "run_python.py" not in result.content
    assert result.content.endswith("ZeroDivisionError: division by zero")


async def test_changes_made_before_an_exception_stay(ns: dict[str, Any]) -> None:
    await run(ns, "done = 'yes'\nraise ValueError('late')")
    assert ns["done"] == "yes"


async def test_a_syntax_error_is_a_failed_result_and_nothing_runs(ns: dict[str, Any]) -> None:
    result = await run(ns, "ran = True\ndef (")
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith("SyntaxError: invalid syntax")
    assert "ran" not in ns


async def test_sys_exit_in_the_code_is_reported_and_does_not_leave(ns: dict[str, Any]) -> None:
    result = await run(ns, "import sys\nsys.exit(3)")
    assert (result.ok, result.error) == (False, "SystemExit: 3")


async def test_a_keyboard_interrupt_is_reported_instead_of_ending_the_turn(ns: dict[str, Any]) -> None:
    result = await run(ns, "raise KeyboardInterrupt")
    assert (result.ok, result.error) == (False, "KeyboardInterrupt")


async def test_a_dataframe_value_is_a_text_table_for_the_model_and_html_for_the_user(ns: dict[str, Any]) -> None:
    ns["df"] = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    result = await run(ns, "df")
    assert result.content == "result:\n   a  b\n0  1  x\n1  2  y\n\n[2 rows x 2 columns]"
    assert result.display is not None
    assert result.display["text/html"].startswith('<table border="1" class="dataframe">')
    assert "<td>y</td>" in result.display["text/html"]


async def test_a_long_output_is_truncated_for_the_model_and_kept_whole_for_the_user(ns: dict[str, Any]) -> None:
    result = await run(ns, "print('x' * 10_000)", max_model_chars=100)
    full = "stdout:\n" + "x" * 10_000
    assert result.content == full[:100] + "\n" + TRUNCATION_NOTE.format(count=len(full) - 100)
    assert result.content.endswith("[truncated: 9908 more characters shown to the user only]")
    assert result.display == {"text/plain": full}


async def test_an_output_within_the_limit_is_not_truncated(ns: dict[str, Any]) -> None:
    result = await run(ns, "print('x' * 92)", max_model_chars=100)
    assert result.content == "stdout:\n" + "x" * 92
    assert result.display is None
