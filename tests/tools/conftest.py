"""Real pandas and real matplotlib (Agg backend, so figures render without a display)."""

from __future__ import annotations

from typing import Any

import matplotlib
import pytest

from notebook_chat.plugins.tool_definition import Tool, ToolResult
from notebook_chat.tools import kernel
from tests.widget.conftest import recording_comms  # noqa: F401  (the MCP tests drive a Chat)

matplotlib.use("Agg")


@pytest.fixture
def ns() -> dict[str, Any]:
    """A fresh user namespace, shaped like a notebook's."""
    return {"__name__": "__main__"}


def tools_by_name(namespace: dict[str, Any], **options: Any) -> dict[str, Tool]:
    return {tool.name: tool for tool in kernel(namespace, **options)}


async def call(namespace: dict[str, Any], name: str, arguments: dict[str, Any] | None = None,
               **options: Any) -> ToolResult:
    """Invoke one kernel tool the way ToolPlugin does (JSON arguments, validated)."""
    return await tools_by_name(namespace, **options)[name].invoke(arguments or {})
