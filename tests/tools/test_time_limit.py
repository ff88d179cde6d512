from __future__ import annotations

import time
from typing import Any

import pytest

from notebook_chat.tools import kernel

from .conftest import call


def keep_busy(seconds: float) -> None:
    """Run Python bytecode for a while: a stray stop from an earlier run would be raised in here."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        pass


async def run(ns: dict[str, Any], code: str, **options: Any) -> Any:
    return await call(ns, "run_python", {"code": code}, **options)


async def test_a_loop_that_runs_past_the_time_limit_is_stopped(ns: dict[str, Any]) -> None:
    started = time.monotonic()
    result = await run(ns, "count = 0\nwhile True:\n    count += 1", time_limit=0.3)
    assert time.monotonic() - started < 2
    assert not result.ok
    assert result.error == "TimeLimitExceeded: stopped after 0.3 s (the time limit)"
    assert result.content.endswith("Changes made before the stop stay in the namespace.")
    assert ns["count"] > 0


async def test_a_one_line_busy_loop_is_stopped_too(ns: dict[str, Any]) -> None:
    result = await run(ns, "while True: pass", time_limit=0.2)
    assert result.error == "TimeLimitExceeded: stopped after 0.2 s (the time limit)"


async def test_code_that_swallows_exceptions_is_still_stopped(ns: dict[str, Any]) -> None:
    code = "while True:\n    try:\n        sum(range(1000))\n    except Exception:\n        pass"
    result = await run(ns, code, time_limit=0.2)
    assert result.error == "TimeLimitExceeded: stopped after 0.2 s (the time limit)"


async def test_the_session_keeps_working_after_a_stop(ns: dict[str, Any]) -> None:
    await run(ns, "while True: pass", time_limit=0.2)
    keep_busy(0.3)
    result = await run(ns, "sum(range(10))", time_limit=0.2)
    assert (result.ok, result.content) == (True, "result:\n45")


async def test_code_that_finishes_in_time_is_not_stopped_later(ns: dict[str, Any]) -> None:
    result = await run(ns, "import time\ntime.sleep(0.1)\n'finished'", time_limit=0.3)
    keep_busy(0.4)  # past the deadline
    assert (result.ok, result.content) == (True, "result:\n'finished'")


async def test_no_time_limit_is_said_in_the_tool_description(ns: dict[str, Any]) -> None:
    described = {tool.name: tool.description for tool in kernel(ns, time_limit=None)}
    assert described["run_python"].endswith("There is no time limit.")
    limited = {tool.name: tool.description for tool in kernel(ns, time_limit=12)}
    assert limited["run_python"].endswith("The code is stopped after 12 seconds.")


@pytest.mark.parametrize("bad", [0, -1.0])
def test_a_time_limit_that_is_not_positive_is_refused(ns: dict[str, Any], bad: float) -> None:
    with pytest.raises(ValueError, match="time_limit must be a positive number of seconds or None"):
        kernel(ns, time_limit=bad)
